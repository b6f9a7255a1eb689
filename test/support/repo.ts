/**
 * The tests' repositories, copied from templates: each shape (the CLI suites' one commit of
 * README.md, the engine suites' README.md and app.txt) is made once per test worker with the same
 * git commands a test used to run itself (init, config, add, commit) and copied for every test that
 * asks for one, so a test gets the same files, commit content, config and branch (`main`) without
 * four git processes. A template is held in memory and written out file by file: on the test
 * machines a file's creation is the cost (a `copyFile` took about three times a `writeFile`).
 *
 * One thing differs from a repository made in the test: within one worker every copy of a shape has
 * the same commit id (the template's commit time). Nothing keys on it across repositories: run ids
 * are the clock plus random bytes, the worktree root and container labels are keyed by the
 * repository's path (records/paths.ts `repoKey`), and each test has a repository of its own.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GitIdentity } from './git.js';
import { CLI_IDENTITY, ENGINE_IDENTITY, runGit } from './git.js';

interface RepoShape {
  init: string[];
  files: Record<string, string>;
  add: string[];
  commit: string[];
  identity: GitIdentity;
}

const SHAPES = {
  cli: {
    init: ['init', '--quiet', '--initial-branch=main'],
    files: { 'README.md': '# test repo\n' },
    add: ['add', '-A'],
    // A test repository needs none of git's upkeep (one git process less a repository).
    commit: [
      '-c',
      'commit.gpgsign=false',
      '-c',
      'maintenance.auto=false',
      'commit',
      '--quiet',
      '-m',
      'first',
    ],
    identity: CLI_IDENTITY,
  },
  engine: {
    init: ['init', '-q', '-b', 'main'],
    files: { 'README.md': '# test repo\n', 'app.txt': 'line 1\nline 2\n' },
    add: ['add', '.'],
    commit: ['commit', '-q', '-m', 'init'],
    identity: ENGINE_IDENTITY,
  },
} satisfies Record<string, RepoShape>;

export type RepoShapeName = keyof typeof SHAPES;

/** Runs the shape's git commands in `repo` (an existing directory): what a template is made of. */
function buildRepo(repo: string, shape: RepoShape, commit: boolean): void {
  runGit(repo, shape.init, shape.identity);
  if (!commit) return;
  for (const [name, text] of Object.entries(shape.files)) writeFileSync(path.join(repo, name), text);
  runGit(repo, shape.add, shape.identity);
  runGit(repo, shape.commit, shape.identity);
}

/** A directory's entries, parents first: what writeTree needs to make it again. */
type TreeEntry =
  | { kind: 'dir'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; content: Buffer }
  | { kind: 'link'; path: string; target: string };

function readTree(root: string, relative = ''): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const name of readdirSync(path.join(root, relative)).sort()) {
    const item = path.join(relative, name);
    const full = path.join(root, item);
    const stat = lstatSync(full);
    if (stat.isSymbolicLink()) entries.push({ kind: 'link', path: item, target: readlinkSync(full) });
    else if (stat.isDirectory())
      entries.push({ kind: 'dir', path: item, mode: stat.mode & 0o7777 }, ...readTree(root, item));
    else entries.push({ kind: 'file', path: item, mode: stat.mode & 0o7777, content: readFileSync(full) });
  }
  return entries;
}

function writeTree(entries: readonly TreeEntry[], root: string): void {
  mkdirSync(root, { recursive: true });
  for (const entry of entries) {
    const target = path.join(root, entry.path);
    if (entry.kind === 'dir') mkdirSync(target, { mode: entry.mode });
    else if (entry.kind === 'file') writeFileSync(target, entry.content, { mode: entry.mode });
    else symlinkSync(entry.target, target);
  }
}

const templates = new Map<string, TreeEntry[]>();

/** The template of a shape, made on first use in this worker (in a temp dir, then read into memory). */
function template(name: RepoShapeName, commit: boolean): TreeEntry[] {
  const key = `${name}-${commit ? 'commit' : 'empty'}`;
  const known = templates.get(key);
  if (known !== undefined) return known;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-test-template-'));
  try {
    buildRepo(dir, SHAPES[name], commit);
    const entries = readTree(dir);
    templates.set(key, entries);
    return entries;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A repository of the given shape at `repo` (created; an existing empty directory is fine): a copy
 * of the template, or, where `repo` already holds files (which `git add` would take into the
 * commit), made there with the git commands themselves.
 */
export function copyRepo(name: RepoShapeName, repo: string, options: { commit?: boolean } = {}): string {
  const commit = options.commit !== false;
  if (existsSync(repo) && readdirSync(repo).length > 0) {
    buildRepo(repo, SHAPES[name], commit);
    return repo;
  }
  writeTree(template(name, commit), repo);
  return repo;
}
