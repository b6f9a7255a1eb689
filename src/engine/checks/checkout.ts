/**
 * Checks run on a commit, never on a worktree somebody left: a fresh detached worktree of the
 * commit (`git worktree add --detach`, the baseline's mechanics), with no index flags and nothing
 * but what the commit holds, removed once the checks are done. An agent that neutered its tests in
 * its worktree and hid that with `git update-index --skip-worktree` is judged by what it committed.
 * After the checks, the checkout's tracked files are compared with the commit: nothing should have
 * written them (a test that edits tracked files, or another process reaching into hydra's
 * directories), and each check says so when something did.
 */
import path from 'node:path';
import type { CheckRun, CheckSpec } from '../check-types.js';
import { RUN_ID_ENV } from '../process/index.js';
import { createDetachedWorktree, pinCheckout, removeWorktree, runPinned, splitZ } from '../git/index.js';
import { copyIncludedFiles } from '../setup/index.js';
import { commandChanges } from './command-config.js';
import { contractTree } from './contract/index.js';
import { runChecks } from './runner.js';
import type { CheckPlace } from './runner.js';
import { worktreeShares } from '../setup/index.js';
import type { RunPlace } from '../setup/index.js';
import { runSetup, setupFailedError } from '../setup/index.js';
import { makeRemoteCheckout } from '../container/index.js';
import type { RemoteCheckout } from '../container/index.js';

/**
 * Where and how checks run on a commit: the check's part of the RunPlace (setup/run-place.ts) with
 * the checkout's `repoRoot`, `copy`, `shared` and `setup` (one that fails throws `SetupFailed` and
 * no check runs), and where the checkout goes.
 */
export type CommitCheckPlace = Omit<CheckPlace, 'cwd'> &
  Pick<RunPlace, 'repoRoot'> &
  Partial<Pick<RunPlace, 'copy' | 'shared' | 'setup'>> & {
    /** The commit the checks judge. */
    commit: string;
    /** Where its checkout goes: a directory inside `area` that does not exist yet. */
    dir: string;
    /** The run's worktree directory, which holds `dir`. */
    area: string;
    /** The race's base: the check's command config is compared with it (absent for the baseline). */
    base?: string;
    /**
     * Where the contract's checkout goes (with `base`): when the result changed the base's tests or
     * their configuration, the checks run there too, on the result with those put back (contract/).
     */
    contractDir?: string;
    /** The sandbox of the contract's checkout (its own tree writable), when the checks are sandboxed. */
    contractSandbox?: CheckPlace['sandbox'];
  };

/** Where an agent's checks run: `<run dir>/.checks-<agent>` (no agent name starts with a dot). */
export const checkoutDirOf = (runDir: string, agent: string): string => path.join(runDir, `.checks-${agent}`);

/** Where an agent's contract checks run: `<run dir>/.contract-<agent>`. */
export const contractDirOf = (runDir: string, agent: string): string =>
  path.join(runDir, `.contract-${agent}`);

/**
 * Tracked files of a checkout that differ from its commit, and any index flag (skip-worktree,
 * assume-unchanged) that would hide such a difference, or a HEAD that moved. git is pinned to the
 * checkout's entry in the repository: a check can rewrite the checkout's `.git` to point at a git
 * directory of its own (a filter there would run as the user), which is then one more change.
 */
async function checkoutChanges(root: string, dir: string, commit: string): Promise<string[]> {
  const { pinned, dotGit } = await pinCheckout(root, dir);
  const [status, flags, head] = await Promise.all([
    runPinned(pinned, [
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=no',
      '--no-renames',
      '--ignore-submodules=dirty',
    ]),
    runPinned(pinned, ['ls-files', '-v', '-z']),
    runPinned(pinned, ['rev-parse', 'HEAD']),
  ]);
  const changes = changesOf(
    { head: head.stdout.trim(), status: splitZ(status.stdout), flags: splitZ(flags.stdout) },
    commit,
  );
  return dotGit === null ? changes : [`.git (rewritten: ${dotGit.replace(/^its \.git /, '')})`, ...changes];
}

/** What git said of a checkout (`-z` entries), as checkoutChanges reports it; also a remote checkout's. */
function changesOf(git: { head: string; status: string[]; flags: string[] }, commit: string): string[] {
  const changed = git.status.map((entry) => entry.slice(3));
  // `ls-files -v`: `S` skip-worktree, a lowercase tag assume-unchanged.
  const hidden = git.flags
    .filter((entry) => /^(?:S|[a-z]) /.test(entry))
    .map((entry) => `${entry.slice(2)} (index flag)`);
  const moved = git.head === commit ? [] : [`HEAD moved to ${git.head.slice(0, 12)}`];
  return [...moved, ...changed, ...hidden];
}

/**
 * The checks of a commit. With a base and a contract checkout, when the result changed the base's
 * tests or their configuration, they run twice at once: on the result as committed and on the
 * contract's tree (the base's put back, contract/tree.ts); each run returned is then the contract's,
 * with the result's own run as `own` and what it changed as `contract`.
 */
export async function runChecksOnCommit(
  specs: readonly CheckSpec[],
  place: CommitCheckPlace,
): Promise<CheckRun[]> {
  if (specs.length === 0) return [];
  const { base, contractDir, contractSandbox, ...rest } = place;
  if (base === undefined || contractDir === undefined) return checkCommit(specs, place);
  const tree = await contractTree(place.repoRoot, base, place.commit, specs);
  if (tree.commit === null) return checkCommit(specs, place);
  const [own, contract] = await Promise.all([
    checkCommit(specs, place),
    // Its own marker: a check's processes are stopped by the marker of the run they belong to.
    checkCommit(specs, {
      ...rest,
      base,
      commit: tree.commit,
      dir: contractDir,
      owner: `${rest.owner}:contract`,
      ...(contractSandbox === undefined ? {} : { sandbox: contractSandbox }),
    }),
  ]);
  return contract.map((run, index) => {
    const mine = own[index];
    return { ...run, ...(mine === undefined ? {} : { own: mine }), contract: tree.changed };
  });
}

/** Makes the checkout, runs the checks there, checks it was left alone, removes it. */
async function checkCommit(specs: readonly CheckSpec[], place: CommitCheckPlace): Promise<CheckRun[]> {
  const {
    repoRoot,
    commit,
    dir,
    area,
    base,
    copy,
    shared = [],
    setup,
    contractDir: _dir,
    contractSandbox: _sandbox,
    ...rest
  } = place;
  let remote: RemoteCheckout | null = null;
  try {
    const [changes] = await Promise.all([
      base === undefined
        ? Promise.resolve(new Map<string, string[]>())
        : commandChanges(repoRoot, base, commit, specs),
      createDetachedWorktree(repoRoot, dir, commit, {
        ...(rest.signal === undefined ? {} : { signal: rest.signal }),
        step: `git worktree add for the checks of ${rest.owner}`,
        graceMs: rest.graceMs,
        env: { [RUN_ID_ENV]: rest.runId },
        processes: rest.processes,
        owner: rest.runId,
      }),
    ]);
    const copied = await copyIncludedFiles({ checkout: repoRoot, target: dir, patterns: copy ?? [] });
    // A remote engine: the same checkout, copied files and all, in a volume there (container/remote-checkout.ts).
    if (rest.container?.remote === true && rest.container.volume === undefined) {
      remote = await makeRemoteCheckout(rest.container, {
        repoRoot,
        commit,
        dir,
        local: dir,
        copied: copied.copied,
        ...(rest.signal === undefined ? {} : { signal: rest.signal }),
      });
      rest.container = { ...rest.container, volume: remote.volume };
    }
    const shares = worktreeShares(shared, dir);
    if (setup !== undefined && setup !== null) {
      const outcome = await runSetup(setup, {
        cwd: dir,
        repoRoot,
        runId: rest.runId,
        owner: `setup:${rest.owner}`,
        processes: rest.processes,
        graceMs: rest.graceMs,
        ...(rest.signal === undefined ? {} : { signal: rest.signal }),
        ...(rest.secrets === undefined ? {} : { secrets: rest.secrets }),
        ...(rest.environment === undefined ? {} : { environment: rest.environment }),
        sandbox: rest.sandbox ?? null,
        ...(shares.length === 0 ? {} : { shares }),
        ...(rest.identity === undefined ? {} : { identity: rest.identity }),
        container: rest.container ?? null,
      });
      if (outcome.status !== 'ok') throw setupFailedError(outcome, `(in the checkout for ${rest.owner})`);
    }
    const runs = await runChecks(specs, { ...rest, cwd: dir, ...(shares.length === 0 ? {} : { shares }) });
    const disturbed = await (
      remote === null
        ? checkoutChanges(repoRoot, dir, commit)
        : remote.read().then((git) => changesOf(git, commit))
    ).catch((error: unknown) => [
      `could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    ]);
    return runs.map((run) => {
      const configChanged = changes.get(run.name);
      return {
        ...run,
        ...(configChanged === undefined ? {} : { configChanged }),
        ...(disturbed.length === 0 ? {} : { checkoutChanged: disturbed.slice(0, 50) }),
      };
    });
  } finally {
    await remote?.remove();
    await removeWorktree(repoRoot, dir, area).catch(() => undefined);
  }
}
