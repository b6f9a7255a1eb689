/**
 * A remote engine's workspace (no bind mounts): the agent's branch goes in as a git bundle copied
 * into the agent's `work` volume, the container clones it where the worktree would be, and once the
 * agent is done a helper container commits its work inside (as hydra, no hooks, no signing, as
 * result-commit.ts does) and bundles it; the bundle is copied out and fetched onto the agent's
 * branch, whose worktree then holds the result, so settling, diffing, checks and merge go on as for
 * a local agent.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commitSubject, HYDRA_IDENTITY, NO_HOOKS, pinWorktree, runGit, runPinned } from '../git/index.js';
import { EngineError } from '../errors.js';
import { docker, dockerOk, hostLabel } from './docker.js';

/** The volume's files beside the agents' trees: the base bundle in, the result bundle out. */
export const bundlePaths = (runDir: string, agent: string): { base: string; result: string } => ({
  base: path.join(runDir, `.hydra-base-${agent}.bundle`),
  result: path.join(runDir, `.hydra-result-${agent}.bundle`),
});

/**
 * The container's entry on a remote engine: clones the base bundle into the worktree's path the
 * first time (a follow-up finds its clone on the volume), around the copied files
 * (`.worktreeinclude`, `[setup] copy`) remote-checkout.ts put there (a clone into a directory that
 * has files: init, fetch, checkout, which never writes over an untracked file), then runs the
 * agent's CLI in its cwd. `$0` is a name; the CLI and its arguments follow.
 */
export const REMOTE_ENTRY = [
  'set -e',
  // No commit checked out yet (a clone cut short is made again; init and fetch are idempotent).
  'if ! git -C "$HYDRA_WORKTREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then',
  '  git init -q "$HYDRA_WORKTREE" >&2',
  '  git -C "$HYDRA_WORKTREE" fetch -q --update-head-ok "$HYDRA_BASE_BUNDLE" "refs/heads/$HYDRA_BRANCH:refs/heads/$HYDRA_BRANCH" >&2',
  '  git -C "$HYDRA_WORKTREE" checkout -q "$HYDRA_BRANCH" >&2',
  'fi',
  'cd "$HYDRA_CWD"',
  'exec "$@"',
].join('\n');

/** The helper's script: commit everything the agent changed and bundle HEAD. */
const RESULT_SCRIPT = [
  'set -e',
  'cd "$HYDRA_WORKTREE"',
  'git add -A',
  `git -c commit.gpgsign=false ${NO_HOOKS.join(' ')} commit --no-verify --quiet -m "$HYDRA_MESSAGE" || git diff --cached --quiet`,
  'git bundle create -q "$HYDRA_RESULT_BUNDLE" HEAD',
].join('\n');

/** The base: the agent's branch (its start, or the last round's result) as a bundle in a temporary directory. */
export async function bundleBranch(
  repoRoot: string,
  branch: string,
): Promise<{ file: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-bundle-'));
  const file = path.join(dir, 'base.bundle');
  await runGit(repoRoot, ['bundle', 'create', '-q', file, `refs/heads/${branch}`], {
    step: `git bundle of ${branch}`,
  });
  return { file, done: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The agent's scratch directory (its prompt file; where a CLI such as Codex writes its last
 * message) into the created container, at the same path, on the work volume mounted at `runDir`.
 * `docker cp` makes only the last part of a path, so `<runDir>/.scratch/<agent>` goes in whole
 * from a staging directory; an agent with nothing in it yet still gets the directory.
 */
export async function copyScratchIn(
  host: string,
  name: string,
  runDir: string,
  scratchDir: string,
): Promise<void> {
  const stage = await mkdtemp(path.join(os.tmpdir(), 'hydra-scratch-'));
  try {
    const inRun = path.relative(runDir, scratchDir);
    if (inRun.startsWith('..') || path.isAbsolute(inRun))
      throw new Error(`${scratchDir} is not in ${runDir}`);
    const own = path.join(stage, inRun);
    const top = path.join(stage, inRun.split(path.sep)[0] ?? inRun);
    if (existsSync(scratchDir)) await cp(scratchDir, own, { recursive: true });
    else await mkdir(own, { recursive: true });
    await dockerOk(host, ['cp', top, `${name}:${runDir}`]);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

export interface ResultRequest {
  host: string;
  /** The user's checkout: the worktree's entry in its git directory is where the result goes. */
  root: string;
  image: string;
  /** The helper container's name. */
  name: string;
  volumeArgs: string[];
  labelArgs: string[];
  runDir: string;
  agent: string;
  worktree: string;
  prompt: string;
  runId: string;
}

/**
 * Commits the agent's work in its volume, copies the bundle out and puts it in the agent's worktree
 * (its branch moves to the result). The helper container is removed whatever happens.
 */
export async function bringBackResult(request: ResultRequest): Promise<void> {
  const { host, name } = request;
  const bundle = bundlePaths(request.runDir, request.agent).result;
  const env = {
    ...HYDRA_IDENTITY,
    HYDRA_WORKTREE: request.worktree,
    HYDRA_RESULT_BUNDLE: bundle,
    HYDRA_MESSAGE: `hydra: ${request.agent} result: ${commitSubject(request.prompt)}\n\nRun ${request.runId}, agent ${request.agent}, committed in its container on ${hostLabel(host)}.\n`,
  };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-result-'));
  try {
    await docker(host, ['rm', '-f', name], { okExitCodes: [1] });
    await dockerOk(
      host,
      [
        'create',
        '--name',
        name,
        '--network',
        'none',
        ...request.labelArgs,
        ...request.volumeArgs,
        ...Object.keys(env).flatMap((key) => ['-e', key]),
        request.image,
        '/bin/sh',
        '-c',
        RESULT_SCRIPT,
      ],
      { env },
    );
    const run = await docker(host, ['start', '-a', name]);
    if (run.exitCode !== 0) {
      throw new EngineError({
        kind: 'GitFailed',
        message: `The agent's work could not be committed in its container on ${hostLabel(host)}: ${run.stderr.trim().split('\n').slice(-2).join(' ')}`,
        hint: 'The image needs git (and /bin/sh); its volume is kept until `hydra clean`.',
      });
    }
    const local = path.join(dir, 'result.bundle');
    await dockerOk(host, ['cp', `${name}:${bundle}`, local]);
    await takeResult(request.root, request.worktree, local, request.agent);
  } finally {
    await docker(host, ['rm', '-f', name], { okExitCodes: [1] }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Puts the result bundle's commit in the agent's worktree (its branch moves to it), with git pinned
 * to the repository's entry for the worktree (pinned.ts): never through what the worktree's `.git`
 * now says, so no git directory the agent chose (its filters, fsmonitor, hooks, includes) is read
 * by hydra's git on the host, and the checkout recurses into no nested repository.
 */
export async function takeResult(
  root: string,
  worktree: string,
  bundle: string,
  agent: string,
): Promise<void> {
  const pinned = await pinWorktree(root, worktree);
  await runPinned(pinned, ['fetch', '-q', bundle, 'HEAD'], { step: `git fetch of ${agent}'s result` });
  await runPinned(pinned, ['reset', '-q', '--hard', 'FETCH_HEAD'], {
    step: `git reset to ${agent}'s result`,
  });
}
