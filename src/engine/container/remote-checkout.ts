/**
 * What a remote engine needs of this machine's trees, with no bind mount: the copied files
 * (`.worktreeinclude`, `[setup] copy`) of an agent's worktree go into its `work` volume before the
 * first container that clones it starts (REMOTE_ENTRY then checks the branch out around them), and
 * a checks checkout (a commit, its copied files) is made in a volume of its own, where its setup
 * and checks then run (exec.ts mounts it) and where what they disturbed is read back.
 *
 * The files come from the tree on this machine that copyIncludedFiles just filled (the same
 * commit, so the same rules held: only matched ignored regular files, no symlink, the size limit,
 * never over a file the tree has); their values were remembered as secrets and recorded in the
 * run's copied.json then. They go in with `docker cp` (modes kept), never into an image, and need
 * nothing in the image but git and /bin/sh.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, splitZ } from '../git/index.js';
import { EngineError } from '../errors.js';
import { docker, dockerOk, hostLabel } from './docker.js';
import { containerLabels, containerName, labelArgs } from './labels.js';

/** What this process last copied into each tree (setup/copy.ts says so): the files its containers get. */
const copiedByTree = new Map<string, readonly string[]>();

/** Called by copyIncludedFiles once it filled a tree hydra made. */
export const rememberCopied = (tree: string, files: readonly string[]): void => {
  copiedByTree.set(path.resolve(tree), [...files]);
};

/** The files copyIncludedFiles last copied into `tree` in this process (none when it copied nothing there). */
const copiedInto = (tree: string): readonly string[] => copiedByTree.get(path.resolve(tree)) ?? [];

/**
 * One copied file of `from` into the stage, as copy.ts left it: a regular file reached through
 * real directories (no symlink on the way or at the end), its permission bits kept; false when it
 * is no longer so (it is then left out).
 */
async function stageFile(from: string, stage: string, file: string): Promise<boolean> {
  const parts = file.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return false;
  for (let n = 1; n < parts.length; n++) {
    const stat = await lstat(path.join(from, ...parts.slice(0, n))).catch(() => null);
    if (stat === null || !stat.isDirectory()) return false;
  }
  const handle = await open(path.join(from, file), constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    () => null,
  );
  if (handle === null) return false;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return false;
    const target = path.join(stage, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, await handle.readFile(), { mode: stat.mode & 0o777 });
    await chmod(target, stat.mode & 0o777);
    return true;
  } finally {
    await handle.close();
  }
}

/**
 * Copies `files` of `from` (copied into it by copyIncludedFiles) into the created container `name`
 * at `to` (a directory on one of its volumes, made when missing); nothing when there are none.
 */
async function copyFilesIn(
  host: string,
  name: string,
  from: string,
  to: string,
  files: readonly string[],
): Promise<void> {
  if (files.length === 0) return;
  const stage = await mkdtemp(path.join(os.tmpdir(), 'hydra-copy-'));
  try {
    // `docker cp <dir> <parent>` makes `<parent>/<dir's name>`, or adds to it: `to` itself.
    const dir = path.join(stage, path.basename(to));
    let staged = 0;
    for (const file of files) if (await stageFile(from, dir, file)) staged++;
    if (staged > 0) await dockerOk(host, ['cp', dir, `${name}:${path.dirname(to)}`]);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/**
 * The copied files of an agent's worktree into its `work` volume (mounted in the created container
 * `name`), where REMOTE_ENTRY will check its branch out: only before its first clone (a follow-up's
 * clone has them, and they are never written over).
 */
export async function copyWorktreeFilesIn(host: string, name: string, worktree: string): Promise<void> {
  const files = copiedInto(worktree);
  if (files.length === 0) return;
  const cloned = await docker(host, ['cp', `${name}:${path.join(worktree, '.git', 'HEAD')}`, '-'], {
    okExitCodes: [1],
  });
  if (cloned.exitCode !== 0) await copyFilesIn(host, name, worktree, worktree, files);
}

/** The helper's script: the commit checked out (detached) in the volume, the copied files in it. */
const CHECKOUT_SCRIPT = [
  'set -e',
  'mkdir -p "$HYDRA_CHECKOUT"',
  'cd "$HYDRA_CHECKOUT"',
  'git init -q .',
  'git fetch -q "$HYDRA_BUNDLE" "$HYDRA_REF"',
  'rm -f "$HYDRA_BUNDLE"',
  // The copied files are there already: checkout refuses to write over one (none is tracked).
  'git -c advice.detachedHead=false checkout -q --detach "$HYDRA_COMMIT"',
].join('\n');

/**
 * A bundle of `commit` under `ref`, with no ref in the user's repository (git bundles refs, never a
 * bare commit): the ref is made in a scratch bare repository beside the bundle that borrows the
 * repository's objects (`objects/info/alternates`), so a hydra killed mid-way leaves no ref behind,
 * only its temporary directory.
 */
export async function bundleCommit(
  repoRoot: string,
  commit: string,
  file: string,
  ref: string,
): Promise<void> {
  const common = await runGit(repoRoot, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  const scratch = path.join(path.dirname(file), 'refs.git');
  await mkdir(scratch);
  await runGit(scratch, ['init', '--bare', '-q']);
  await writeFile(
    path.join(scratch, 'objects', 'info', 'alternates'),
    `${path.join(common.stdout.trim(), 'objects')}\n`,
  );
  await runGit(scratch, ['update-ref', ref, commit]);
  await runGit(scratch, ['bundle', 'create', '-q', file, ref], {
    step: `git bundle of ${commit.slice(0, 12)}`,
  });
}

/** Between the parts of CHANGES_SCRIPT's output (no `-z` entry is `--hydra--`: each starts with its status). */
const PART = '\0--hydra--\0';

/** What checkout.ts compares with the commit, read in the volume: HEAD, the status, the index flags. */
const CHANGES_SCRIPT = [
  'set -e',
  'cd "$HYDRA_CHECKOUT"',
  'git rev-parse HEAD',
  "printf '\\0--hydra--\\0'",
  'git status --porcelain=v1 -z --untracked-files=no --no-renames',
  "printf '\\0--hydra--\\0'",
  'git ls-files -v -z',
].join('\n');

/** Before files are added to the checkout (cross-testing: another agent's tests): what is there goes, so none is written through a symlink. */
const UNLINK_SCRIPT = ['set -e', 'cd "$HYDRA_CHECKOUT"', 'rm -f -- "$@"'].join('\n');

/** The checkout put back to its commit (cross-test/run.ts's putBack): ignored files (the copies) stay. */
const PUT_BACK_SCRIPT = ['set -e', 'cd "$HYDRA_CHECKOUT"', 'git reset --hard -q', 'git clean -fdq'].join(
  '\n',
);

/** Whose checkout, on which engine, in which image (the parts of exec.ts's CommandContainer it reads). */
interface CheckoutTarget {
  host: string;
  image: string;
  runId: string;
  agent: string;
  repoRoot: string;
}

/** A checks checkout in a volume on a remote engine: commands run in it with `volume` (CommandContainer.volume). */
export interface RemoteCheckout {
  volume: { name: string; at: string };
  /** HEAD, the status and the index flags as git prints them in the volume (`-z`). */
  read: () => Promise<{ head: string; status: string[]; flags: string[] }>;
  /** `files` of the local checkout `from` (written there first, writeInside's rules) into the volume's. */
  add: (from: string, files: readonly string[]) => Promise<void>;
  /** Back to its commit: what a test or `add` wrote is gone, the copied (ignored) files stay. */
  putBack: () => Promise<void>;
  remove: () => Promise<void>;
}

const failed = (target: CheckoutTarget, what: string, stderr: string): EngineError =>
  new EngineError({
    kind: 'GitFailed',
    message: `${what} failed in ${target.image} on ${hostLabel(target.host)}: ${stderr.trim().split('\n').slice(-2).join(' ')}`,
    hint: 'The image needs git and /bin/sh for checks on a remote engine; `hydra clean` removes what is left.',
  });

/** Read through a function: TypeScript would keep the narrowing from before the await. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const interrupted = (target: CheckoutTarget): EngineError =>
  new EngineError({
    kind: 'Interrupted',
    message: `The checks checkout on ${hostLabel(target.host)} was interrupted.`,
    hint: 'It was cancelled; its helper container and volume were removed (`hydra clean` removes anything a crash left).',
  });

/**
 * Makes the checkout of `commit` at `dir` in a new volume on `target`'s engine: the commit goes in
 * as a bundle (bundleCommit: no ref in the repository), `copied` (files of the checkout at `local`)
 * as files. Each step is a helper container of the image on the volume, removed once it ended; a
 * cancel (`signal`) removes the running one and the volume, and the call rejects (Interrupted).
 */
export async function makeRemoteCheckout(
  target: CheckoutTarget,
  request: {
    repoRoot: string;
    commit: string;
    dir: string;
    local: string;
    copied: readonly string[];
    signal?: AbortSignal;
  },
): Promise<RemoteCheckout> {
  const { host } = target;
  const { signal } = request;
  // The volume holds the checkout's directory (`docker cp` into a volume needs its mount point).
  const area = path.dirname(request.dir);
  const id = randomBytes(3).toString('hex');
  const volume = `${containerName(target.runId, target.agent)}-checks-${id}`;
  const labels = labelArgs(
    containerLabels({ runId: target.runId, agent: target.agent, repoRoot: target.repoRoot }),
  );
  const remove = async (): Promise<void> => {
    await docker(host, ['volume', 'rm', '-f', volume], { okExitCodes: [1] }).catch(() => undefined);
  };
  let helpers = 0;
  /**
   * One helper container: created, filled (`fill`, with `docker cp`), run attached, removed. A
   * cancel removes it (its `start -a` then ends) and rejects; so does a cancel before it starts.
   */
  const runHelper = async (
    script: string,
    env: Record<string, string>,
    fill: (name: string) => Promise<void> = () => Promise.resolve(),
    args: readonly string[] = [],
    start = true,
  ): Promise<{ exitCode: number; stdout: string; stderr: string }> => {
    const name = `${volume}-${++helpers}`;
    const removeHelper = () =>
      docker(host, ['rm', '-f', name], { okExitCodes: [1] }).then(
        () => undefined,
        () => undefined,
      );
    if (signal?.aborted === true) throw interrupted(target);
    // The cancel's removal, awaited before the last one below: two at once make the engine refuse
    // the second ("removal already in progress"), and one made while `docker create` was still in
    // flight finds nothing, so the helper is removed again once every call of its own has ended.
    let cancelRemoval: Promise<void> = Promise.resolve();
    const onAbort = (): void => {
      cancelRemoval = removeHelper();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await dockerOk(
        host,
        [
          'create',
          '--name',
          name,
          ...labels,
          '--network',
          'none',
          '-v',
          `${volume}:${area}`,
          ...Object.keys(env).flatMap((key) => ['-e', key]),
          target.image,
          '/bin/sh',
          '-c',
          script,
          'hydra-checkout',
          ...args,
        ],
        { env },
      );
      await fill(name);
      if (aborted(signal)) throw interrupted(target);
      if (!start) return { exitCode: 0, stdout: '', stderr: '' };
      const run = await docker(host, ['start', '-a', name]);
      if (aborted(signal)) throw interrupted(target);
      return run;
    } catch (error) {
      // A call cut short by the cancel's removal of the helper fails for that reason.
      throw aborted(signal) ? interrupted(target) : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await cancelRemoval;
      await removeHelper();
    }
  };
  const env = {
    HYDRA_CHECKOUT: request.dir,
    HYDRA_BUNDLE: path.join(area, `.hydra-checks-${id}.bundle`),
    HYDRA_COMMIT: request.commit,
    HYDRA_REF: `refs/hydra/checks/${id}`,
  };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-checks-'));
  try {
    await dockerOk(host, ['volume', 'create', ...labels, volume]);
    const bundle = path.join(dir, 'checkout.bundle');
    await bundleCommit(request.repoRoot, request.commit, bundle, env.HYDRA_REF);
    const made = await runHelper(CHECKOUT_SCRIPT, env, async (name) => {
      await dockerOk(host, ['cp', bundle, `${name}:${env.HYDRA_BUNDLE}`]);
      await copyFilesIn(host, name, request.local, request.dir, request.copied);
    });
    if (made.exitCode !== 0) throw failed(target, 'The checks checkout', made.stderr);
  } catch (error) {
    await remove();
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const inCheckout = { HYDRA_CHECKOUT: request.dir };
  const read = async (): Promise<{ head: string; status: string[]; flags: string[] }> => {
    const run = await runHelper(CHANGES_SCRIPT, inCheckout);
    if (run.exitCode !== 0) throw failed(target, 'Reading the checks checkout', run.stderr);
    const [head = '', status = '', flags = ''] = run.stdout.split(PART);
    return { head: head.trim(), status: splitZ(status), flags: splitZ(flags) };
  };
  const add = async (from: string, files: readonly string[]): Promise<void> => {
    if (files.length === 0) return;
    const unlinked = await runHelper(UNLINK_SCRIPT, inCheckout, undefined, files);
    if (unlinked.exitCode !== 0) throw failed(target, 'Adding files to the checks checkout', unlinked.stderr);
    // `docker cp` into the created helper (modes kept); it need not run.
    await runHelper('true', {}, (name) => copyFilesIn(host, name, from, request.dir, files), [], false);
  };
  const putBack = async (): Promise<void> => {
    const run = await runHelper(PUT_BACK_SCRIPT, inCheckout);
    if (run.exitCode !== 0) throw failed(target, 'Putting the checks checkout back', run.stderr);
  };
  return { volume: { name: volume, at: area }, read, add, putBack, remove };
}
