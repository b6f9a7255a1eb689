/**
 * A setup's fingerprint: what its output depends on, so a pooled worktree can keep that output
 * (node_modules, .venv) for a later race while nothing it depends on changed. The commands, their
 * source, and the base commit's lockfiles (and `.cursor/worktrees.json` with the script it names),
 * read from git's tree as blob ids, so no file is read and a changed lockfile changes the fingerprint.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runGit } from '../git/index.js';
import type { SetupSettings } from './settings.js';

/** Files whose content decides what a setup produces, by name, wherever they are in the tree. */
const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'bun.lock',
  'poetry.lock',
  'uv.lock',
  'Pipfile.lock',
  'Cargo.lock',
  'go.sum',
  'Gemfile.lock',
  'composer.lock',
]);

/** Whether the setup's output depends on this tracked file. */
const isSetupInput = (file: string, extra: readonly string[] = []): boolean => {
  const name = path.posix.basename(file);
  return (
    LOCKFILES.has(name) ||
    /^requirements.*\.txt$/.test(name) ||
    file === '.cursor/worktrees.json' ||
    extra.includes(file)
  );
};

/**
 * The fingerprint of `settings`' commands at `baseRef` (hex SHA-256). `scripts` are further tracked
 * files the commands run (a `.cursor/worktrees.json` script).
 */
export async function setupFingerprint(
  root: string,
  baseRef: string,
  settings: SetupSettings,
  scripts: readonly string[] = [],
): Promise<string> {
  const tree = await runGit(root, ['ls-tree', '-r', '-z', '--full-tree', baseRef]);
  const inputs = tree.stdout
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return { file: line.slice(tab + 1), blob: line.slice(0, tab).split(' ')[2] ?? '' };
    })
    .filter((entry) => isSetupInput(entry.file, scripts))
    .map((entry) => `${entry.file}\0${entry.blob}`)
    .sort();
  return createHash('sha256')
    .update(JSON.stringify({ run: settings.run, source: settings.runSource, inputs }))
    .digest('hex');
}
