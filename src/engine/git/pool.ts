/**
 * The warm worktree pool (`worktree_pool`): an agent's worktree kept after its race, detached in
 * `<worktree root>/<repo key>/.pool/`, and handed to a later race's agent as a fresh checkout.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { trace } from '../../trace.js';
import { runGit, splitZ } from './git.js';
import { gitlinksOf, pinWorktree, runPinned } from './pinned.js';
import type { PinnedWorktree } from './pinned.js';
import { deleteBranch, oneAtATime, removeWorktree } from './worktrees.js';
import type { WorktreeGitOptions } from './worktrees.js';

/**
 * Takes an idle worktree from the pool (`pool`, see worktreePoolDir) and makes it the agent's:
 * moved to `dir` (`git worktree move`, which is also the claim: of two races after the same one,
 * the second finds nothing to move and tries the next), then reset to a fresh checkout of the base
 * on a new `branch` (resetToBase), so git updates only the files that differ. False when the pool
 * has none to give (the caller makes one with createWorktree). A pooled worktree that is no longer
 * sound (git will not move it, its `.git` is broken, or the reset cannot be verified) is removed
 * with the branch made for it, and skipped. The caller checks `dir` and `branch` with
 * assertWorktreeFree first and rolls back `dir` and `branch` on a throw.
 *
 * With `setup` (the race's setup fingerprint, src/engine/setup): a pooled worktree whose setup had
 * the same fingerprint keeps the top-level ignored paths its setup made (node_modules...), and
 * `kept` names them; every other worktree is reset to nothing untracked, and `kept` is null.
 */
export async function takePooledWorktree(
  root: string,
  pool: string,
  dir: string,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions = {},
  setup: { fingerprint: string } | null = null,
): Promise<false | { kept: string[] | null }> {
  const idle = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (idle.length === 0) return false;
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  for (const name of idle) {
    const from = path.join(pool, name);
    const moved = await oneAtATime(root, () =>
      runGit(root, ['worktree', 'move', from, dir], { ...options, okExitCodes: [128] }),
    );
    // What its setup left, read once the move claimed it (and forgotten with it).
    const record = moved.exitCode === 0 ? await takeSetupRecord(pool, name) : null;
    if (moved.exitCode !== 0) {
      // Still there: git refused to move it (its `.git` no longer points back): not worth keeping.
      if (existsSync(from)) await removeWorktree(root, from, pool).catch(() => undefined);
      continue;
    }
    const keep =
      setup !== null && record !== null && record.fingerprint === setup.fingerprint ? record.produced : null;
    const pinned = await pinWorktree(root, dir).catch(() => null);
    const reset = { branchMade: false };
    const problem =
      pinned === null
        ? 'its .git is broken'
        : await resetToBase(pinned, branch, baseRef, options, reset, keep ?? []).catch((error: unknown) => {
            if (options.signal?.aborted === true) throw error;
            return error instanceof Error ? error.message : String(error);
          });
    if (problem === null) return { kept: keep };
    trace(`pool: dropped a pooled worktree (${problem.split('\n')[0] ?? ''})`);
    await removeWorktree(root, dir, path.dirname(dir));
    // Only the branch this reset made: a checkout that failed made none (and `branch` may be another's).
    if (reset.branchMade) await deleteBranch(root, branch);
  }
  return false;
}

/**
 * What a new worktree's entry in `.git/worktrees/<id>` holds (and the reflog git writes at once).
 * Anything else there is the last agent's and belongs to this worktree alone: `config.worktree`
 * (`git config --worktree`), `info/sparse-checkout`, per-worktree refs (`refs/worktree/*`,
 * `refs/bisect/*`), a merge, rebase or cherry-pick in progress, submodules' repositories (`modules/`).
 */
const ENTRY_FILES = new Set(['HEAD', 'commondir', 'gitdir', 'index']);
const ENTRY_FILES_AFTER = new Set([...ENTRY_FILES, 'logs']);

/**
 * Settings that would let a worktree look cleaner than it is, off for the reset and its check: a
 * sparse checkout (files outside it are neither checked out nor looked at), a file-system monitor
 * and the untracked cache (git would take their word for what changed).
 */
const RESET_CONFIG = [
  '-c',
  'core.sparseCheckout=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
];

/**
 * Makes a pooled worktree a fresh checkout of `baseRef` on a new `branch`: its entry's extra files
 * removed (ENTRY_FILES), every index flag that hides a file from git cleared (`skip-worktree`,
 * `assume-unchanged`: `checkout --force` leaves such files as the agent left them), the base checked
 * out over it (`checkout --force -b`), everything git does not track removed (`clean -ffdx`, ignored
 * files too), then checked (freshCheckoutProblem). Null when it is fresh; else what is not.
 */
async function resetToBase(
  pinned: PinnedWorktree,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions,
  reset: { branchMade: boolean },
  keep: readonly string[] = [],
): Promise<string | null> {
  for (const name of await readdir(pinned.gitDir)) {
    if (!ENTRY_FILES.has(name)) await rm(path.join(pinned.gitDir, name), { recursive: true, force: true });
  }
  const flagged = await flaggedEntries(pinned, options);
  for (const [flag, files] of [
    ['--no-skip-worktree', flagged.skipWorktree],
    ['--no-assume-unchanged', flagged.assumeUnchanged],
  ] as const) {
    // One flag per command: `update-index --stdin` applies only the last of several.
    if (files.length > 0)
      await runPinned(pinned, ['update-index', flag, '-z', '--stdin'], {
        ...options,
        input: files.join('\0'),
      });
  }
  await runPinned(pinned, [...RESET_CONFIG, 'checkout', '-q', '--force', '-b', branch, baseRef], options);
  reset.branchMade = true;
  // `-e` patterns hold with `-x`: the kept setup output stays, every other untracked file goes.
  const excludes = keep.flatMap((name) => ['-e', `/${escapePattern(name)}`]);
  await runPinned(pinned, [...RESET_CONFIG, 'clean', '-ffdxq', ...excludes], options);
  return freshCheckoutProblem(pinned, branch, baseRef, options, keep);
}

/** The index entries whose flags hide them from git (`git ls-files -v`: S, or a lower-case tag). */
async function flaggedEntries(
  pinned: PinnedWorktree,
  options: WorktreeGitOptions,
): Promise<{ skipWorktree: string[]; assumeUnchanged: string[] }> {
  const listed = await runPinned(pinned, [...RESET_CONFIG, 'ls-files', '-v', '-z'], options);
  const skipWorktree: string[] = [];
  const assumeUnchanged: string[] = [];
  for (const entry of splitZ(listed.stdout)) {
    const tag = entry.slice(0, 1);
    const file = entry.slice(2);
    if (tag === 'S' || tag === 's') skipWorktree.push(file);
    if (tag !== tag.toUpperCase()) assumeUnchanged.push(file);
  }
  return { skipWorktree, assumeUnchanged };
}

/**
 * What makes a reset worktree differ from a fresh checkout of `baseRef` on `branch`, or null: HEAD
 * on the branch at the base, the index the base's tree with no entry flagged, conflicted or only
 * intended, nothing changed, untracked or ignored in the work tree (submodules included), and
 * nothing in its entry that a new worktree does not have.
 */
async function freshCheckoutProblem(
  pinned: PinnedWorktree,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions,
  keep: readonly string[] = [],
): Promise<string | null> {
  const git = (args: readonly string[], okExitCodes: number[] = []) =>
    runPinned(pinned, [...RESET_CONFIG, ...args], { ...options, okExitCodes });
  const [head, base, onBranch, index, sameTree, status, entry] = await Promise.all([
    git(['rev-parse', 'HEAD']),
    git(['rev-parse', '--verify', `${baseRef}^{commit}`]),
    git(['symbolic-ref', '-q', 'HEAD'], [1]),
    git(['ls-files', '-v', '-s', '-z']),
    git(['diff-index', '--cached', '--quiet', baseRef, '--'], [1]),
    git([
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      '--ignored',
      '--untracked-files=all',
      // Never looking into a submodule's folder (its config and filters may be the agent's):
      // a fresh checkout leaves those folders empty, which is checked below.
      '--ignore-submodules=dirty',
    ]),
    readdir(pinned.gitDir),
  ]);
  for (const file of gitlinksOf(index.stdout)) {
    const left = await readdir(path.join(pinned.worktree, file)).catch(() => [] as string[]);
    if (left.length > 0) return `the submodule folder ${file} is not empty`;
  }
  if (head.stdout.trim() !== base.stdout.trim()) return 'HEAD is not the base';
  if (onBranch.stdout.trim() !== `refs/heads/${branch}`) return `HEAD is not on ${branch}`;
  const odd = splitZ(index.stdout).find((line) => !/^H \d+ [0-9a-f]+ 0\t/.test(line));
  if (odd !== undefined) return `an index entry is flagged or conflicted: ${odd}`;
  if (sameTree.exitCode !== 0) return "the index is not the base's tree";
  // Kept setup output may remain, as long as git still ignores it (`!!`).
  const differs = splitZ(status.stdout).filter((line) => !isKeptIgnored(line, keep));
  if (differs.length > 0) return `the work tree differs from the base: ${differs[0] ?? ''}`;
  const extra = entry.find((name) => !ENTRY_FILES_AFTER.has(name));
  if (extra !== undefined) return `its entry in the git directory holds ${extra}`;
  return null;
}

/** A `git status --ignored` line for an ignored path under one of `keep`. */
const isKeptIgnored = (line: string, keep: readonly string[]): boolean => {
  if (!line.startsWith('!! ')) return false;
  const file = line.slice(3);
  return keep.some((name) => file === name || file === `${name}/` || file.startsWith(`${name}/`));
};

/** A file name as a literal gitignore pattern. */
const escapePattern = (name: string): string => name.replace(/[\\*?[\]!#]/g, (char) => `\\${char}`);

/** What a pooled worktree's setup left (src/engine/setup): `.<name>.setup.json` beside it in the pool. */
export interface PooledSetup {
  fingerprint: string;
  produced: string[];
}

const setupRecordOf = (pool: string, name: string): string => path.join(pool, `.${name}.setup.json`);

/** Reads and removes a pooled worktree's setup record; null when it has none. */
async function takeSetupRecord(pool: string, name: string): Promise<PooledSetup | null> {
  const file = setupRecordOf(pool, name);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  await rm(file, { force: true });
  try {
    const parsed = JSON.parse(text) as Partial<PooledSetup>;
    return typeof parsed.fingerprint === 'string' &&
      Array.isArray(parsed.produced) &&
      parsed.produced.every((item) => typeof item === 'string' && item !== '' && !item.includes('/'))
      ? { fingerprint: parsed.fingerprint, produced: parsed.produced }
      : null;
  } catch {
    return null;
  }
}

/**
 * Gives an agent's worktree back to the pool instead of removing it, when the pool holds fewer
 * than `size`: detached (so its branch can be deleted), changes dropped, moved under `pool`. False
 * when it was not pooled (the pool is full, the worktree is no longer sound, git refused the
 * move, e.g. for submodules); the caller then removes it as usual. `setup`: what its setup left,
 * kept beside it for a later race with the same setup (takePooledWorktree).
 */
export async function returnToPool(
  root: string,
  dir: string,
  pool: string,
  size: number,
  setup: PooledSetup | null = null,
): Promise<boolean> {
  const held = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (held.length >= size) return false;
  try {
    const pinned = await pinWorktree(root, dir);
    await runPinned(pinned, ['checkout', '-q', '--force', '--detach']);
    await mkdir(pool, { recursive: true, mode: 0o700 });
    const name = randomUUID();
    if (setup !== null)
      await writeFile(setupRecordOf(pool, name), `${JSON.stringify(setup)}\n`, { mode: 0o600 });
    await oneAtATime(root, () => runGit(root, ['worktree', 'move', dir, path.join(pool, name)])).catch(
      async (error: unknown) => {
        await rm(setupRecordOf(pool, name), { force: true });
        throw error;
      },
    );
    return true;
  } catch (error) {
    // Not pooled, so removed as usual; the trace says why (HYDRA_TRACE).
    trace(`pool: ${dir} not kept: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/** Every idle worktree of the pool. */
export async function pooledWorktrees(pool: string): Promise<string[]> {
  const names = await readdir(pool).catch(() => [] as string[]);
  return names.filter((name) => !name.startsWith('.')).map((name) => path.join(pool, name));
}
