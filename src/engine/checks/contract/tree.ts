/**
 * The contract's tree: the result's commit with the base's tests and test configuration put back
 * (files.ts says which), made with git's plumbing in a temporary index (`read-tree`, `update-index
 * --index-info`, `write-tree`, `commit-tree`), the way `--only` builds its commit. Nothing is checked
 * out here and no ref is made: the checks' checkout is a detached worktree of the commit.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { CheckSpec } from '../../check-types.js';
import { HYDRA_IDENTITY, runGit, splitZ } from '../../git/index.js';
import { makeTargetOf, scriptFiles, scriptOf } from '../command-config.js';
import {
  TOML_TABLES,
  isTestConfig,
  isTestFile,
  partialKindOf,
  restoreMakeTargets,
  restorePackageJson,
  restoreToml,
} from './files.js';
import { addedMarkers } from './markers.js';

/** One path the result changed, from `git diff --raw`. */
interface Change {
  file: string;
  status: string;
  oldMode: string;
  newMode: string;
  oldObject: string;
  newObject: string;
}

export interface ContractTree {
  /** The commit the contract's checks run on; null when the result changed none of it. */
  commit: string | null;
  /** What the result changed of the base's tests and their configuration, one entry each (`lib.test.js`, `package.json scripts.test`, `a.test.js: adds it.skip(...)`). */
  changed: string[];
}

/** Blobs read for markers are at most this big; a bigger test file is put back all the same. */
const MARKER_READ_LIMIT = 1024 * 1024;

const parseRaw = (text: string): Change[] => {
  const parts = splitZ(text);
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [oldMode = '', newMode = '', oldObject = '', newObject = '', status = ''] = (parts[i] ?? '')
      .replace(/^:/, '')
      .split(' ');
    changes.push({
      file: parts[i + 1] ?? '',
      status: status.charAt(0),
      oldMode,
      newMode,
      oldObject,
      newObject,
    });
  }
  return changes;
};

const blob = async (root: string, object: string): Promise<string> =>
  (await runGit(root, ['cat-file', 'blob', object])).stdout;

/** The lines of `after` that `before` has not (as many times as they are new). */
const addedLines = (before: string, after: string): string[] => {
  const seen = new Map<string, number>();
  for (const line of before.split('\n')) seen.set(line, (seen.get(line) ?? 0) + 1);
  return after.split('\n').filter((line) => {
    const left = seen.get(line) ?? 0;
    if (left > 0) seen.set(line, left - 1);
    return left === 0;
  });
};

/** What the checks name: package.json scripts, Makefile targets, script files. */
const namedByChecks = (specs: readonly CheckSpec[]) => {
  const words = specs.map((spec) => spec.run.trim().split(/\s+/));
  return {
    scripts: words.flatMap((each) => scriptOf(each) ?? []),
    targets: ['test', ...words.flatMap((each) => makeTargetOf(each) ?? [])],
    files: new Set(words.flatMap(scriptFiles).map((file) => file.replace(/^\.\//, ''))),
  };
};

interface Restore {
  /** An index-info line: `<mode> <object>\t<path>`. */
  entry: string;
  changed: string[];
}

/** How one changed path is put back, or null when it is not the contract's. */
async function restoreOf(
  root: string,
  change: Change,
  named: ReturnType<typeof namedByChecks>,
): Promise<Restore | null> {
  const { file, status } = change;
  const nullId = '0'.repeat(change.oldObject.length);
  const inBase = status !== 'A';
  const baseEntry = inBase ? `${change.oldMode} ${change.oldObject}\t${file}` : `0 ${nullId}\t${file}`;
  const how = status === 'A' ? ' (added)' : status === 'D' ? ' (deleted)' : '';
  if (isTestFile(file) || isTestConfig(file) || named.files.has(file)) {
    const markers =
      status === 'D' || !isTestFile(file)
        ? []
        : await markersIn(root, file, inBase ? change.oldObject : null, change.newObject);
    return {
      entry: baseEntry,
      changed: [`${file}${how}`, ...markers.map((marker) => `${file}: adds ${marker}`)],
    };
  }
  const kind = partialKindOf(file);
  if (kind === null || status === 'D') return null;
  const before = inBase ? await blob(root, change.oldObject) : null;
  const after = await blob(root, change.newObject);
  let text: string | null;
  let changed: string[];
  if (kind === 'package.json') {
    const restored = restorePackageJson(before, after, named.scripts);
    text = restored.text;
    changed = restored.changed.map((what) => `${file} ${what}`);
  } else if (kind === 'Makefile') {
    const restored = restoreMakeTargets(before, after, named.targets);
    text = restored?.text ?? after;
    changed = (restored?.changed ?? []).map((what) => `${file} ${what}`);
  } else {
    const tables = TOML_TABLES[kind];
    const restored = restoreToml(before, after, tables.wanted);
    text = restored ?? after;
    changed = restored === null ? [] : [`${file} ${tables.what}`];
  }
  if (changed.length === 0) return null;
  if (text === null) return { entry: baseEntry, changed };
  const object = (await runGit(root, ['hash-object', '-w', '--stdin'], { input: text })).stdout.trim();
  return { entry: `${change.newMode} ${object}\t${file}`, changed };
}

async function markersIn(
  root: string,
  file: string,
  before: string | null,
  after: string,
): Promise<string[]> {
  const size = Number((await runGit(root, ['cat-file', '-s', after])).stdout.trim());
  if (!(size <= MARKER_READ_LIMIT)) return [];
  const old = before === null ? '' : await blob(root, before);
  return addedMarkers(file, addedLines(old, await blob(root, after)));
}

/**
 * The result's commit with the base's tests and test configuration put back, and what the result
 * changed of them. Throws on a git failure (the caller runs the checks on the result alone then).
 */
export async function contractTree(
  root: string,
  base: string,
  commit: string,
  specs: readonly CheckSpec[],
): Promise<ContractTree> {
  if (base === commit) return { commit: null, changed: [] };
  const diff = await runGit(root, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', base, commit]);
  const named = namedByChecks(specs);
  const restores = (
    await Promise.all(parseRaw(diff.stdout).map((change) => restoreOf(root, change, named)))
  ).filter((item): item is Restore => item !== null);
  if (restores.length === 0) return { commit: null, changed: [] };
  const gitPath = (
    await runGit(root, ['rev-parse', '--git-path', `hydra-contract-${randomBytes(6).toString('hex')}.index`])
  ).stdout.trim();
  const index = path.resolve(root, gitPath);
  const env = { GIT_INDEX_FILE: index };
  try {
    await runGit(root, ['read-tree', commit], { env });
    const info = restores.map((item) => item.entry).join('\0');
    await runGit(root, ['update-index', '-z', '--index-info'], { env, input: `${info}\0` });
    const tree = (await runGit(root, ['write-tree'], { env })).stdout.trim();
    const message = `hydra: the base's tests on ${commit.slice(0, 12)}\n`;
    const made = await runGit(root, ['commit-tree', tree, '-p', commit], {
      input: message,
      env: { ...HYDRA_IDENTITY },
    });
    return { commit: made.stdout.trim(), changed: restores.flatMap((item) => item.changed) };
  } finally {
    await rm(index, { force: true });
  }
}
