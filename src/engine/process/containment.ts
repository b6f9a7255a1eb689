/**
 * How an agent's whole process tree is kept together, so that stopping it stops everything it
 * started: even a child that left the process group and cleared its environment (`setsid env -i`),
 * which neither the group signal nor the HYDRA_RUN_ID marker can reach.
 *
 * - `pid-namespace`: the agent runs in a PID namespace of its own (util-linux `unshare --pid
 *   --fork --kill-child`, with `--user --map-current-user` when hydra is not root, so no privilege
 *   is needed). hydra's init (namespace-init.sh, run by /bin/sh) is the namespace's PID 1 and the
 *   agent its child; when the init ends, for any reason, the kernel kills every process left in
 *   the namespace, and `--kill-child` ends the init if `unshare` itself is killed.
 *   The namespace gets a /proc of its own (`--mount-proc`, which needs a mount namespace; its
 *   propagation is `slave`, so the user's mounts still reach the agent and none of its go out).
 *   Without it, /proc is the host's: a PID the agent gets from fork() names another process there,
 *   or none. Sandboxes look their children up that way: Codex's bubblewrap (`bwrap`) opens
 *   /proc/<its child>/ns, fails, exits, and leaves that child blocked forever with Codex's pipes
 *   open, so Codex hung in every race. `ps`, `pgrep` and /proc/self would lie the same way.
 *   Nothing else is unshared: the agent sees the user's files, environment, network and tools. A
 *   user namespace only maps the user to itself; what it changes is that setuid programs (sudo) do
 *   not gain privileges inside.
 * - `process-group` (the fallback): its own process group, plus the run marker in its
 *   environment; a process that leaves both can outlive the agent.
 *
 * Checked once per hydra process by running the exact command on `true`. HYDRA_CONTAINMENT=group
 * (and HYDRA_PORTABLE=1, which also reads the process table from ps: ps-table.ts) turns the namespace off (`hydra doctor` says which one is active and why). Where a PID namespace
 * is allowed but mounting its /proc is not (a container that masks parts of the host's /proc), the
 * fallback is the process group too: a namespace with the host's /proc breaks the agents' sandboxes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findExecutable } from '../sandbox/index.js';
import { startChild } from './child.js';
import namespaceInit from './namespace-init.sh';
import { PORTABLE_ENV } from './ps-table.js';

const CONTAINMENT_ENV = 'HYDRA_CONTAINMENT';

export type Containment =
  | { kind: 'pid-namespace'; unshare: string; flags: readonly string[] }
  | { kind: 'process-group'; reason: string };

/** The command that runs `file args` inside the containment. */
interface ContainedCommand {
  file: string;
  args: string[];
}

/** How the agent ended, as the namespace's init saw it (the status file's content). */
export interface InitStatus {
  exitCode: number | null;
  /** Set when the agent could not be started: ENOENT, EACCES. */
  spawnError?: string;
}

/**
 * A shell script bundled as text (esbuild's `text` loader; the tests' vitest config loads `.sh`
 * the same way), ready for `sh -c`: its comment lines (the shebang too) dropped, so the command
 * line `ps` shows stays short.
 */
export const shellScript = (text: string): string => text.replace(/^[ \t]*#.*\n/gm, '');

/**
 * PID 1 of an agent's namespace (namespace-init.sh, checked by shellcheck in `npm run lint`):
 * `sh -c INIT_SCRIPT hydra-init <status file> <grace s> <mounts> <file> <args...>` (`<mounts>`:
 * the overlays it mounts first, see containedCommand). Runs the agent in the foreground, so it stays in the same process group with the
 * same stdio and signals to the group reach it as they would without a namespace (the init itself
 * has no handlers, and a namespace's PID 1 drops the signals it has no handler for). When the agent
 * ends, it writes how to the status file (a namespace's init cannot die of a signal, so its own
 * exit code could not say) and exits; the kernel then kills whatever is left in the namespace. A
 * shell, not a Node process: it starts in ~1 ms instead of ~40 and costs no CPU while the agent
 * runs.
 *
 * It is also the namespace's watchdog. hydra holds the other end of the init's fd 3 (the agent
 * does not get it); a background subshell waits on it at no cost, and reads end of file only when
 * hydra is gone without ending the agent (killed outright, no code of its own ran). It then sends
 * SIGTERM to every process of the namespace but the init and itself (`kill -1`), and SIGKILL after
 * the grace; the agent's end ends the init, the namespace and the subshell with it. It ignores the
 * signals hydra sends the group, so a hydra killed after a SIGTERM still has its SIGKILL sent.
 *
 * `file` is a path (containedCommand resolves a bare name on the agent's PATH), so `"$@"` never runs a shell
 * builtin or function in the agent's place. A shell sees a death by signal N as status 128+N, the
 * same as an exit with that code: the init writes the status and the supervisor reads it
 * (initExit in supervisor.ts).
 */
const INIT_SCRIPT = shellScript(namespaceInit);

/** The shell that runs the init and the watchdog: POSIX sh, present on every Linux. */
export const SHELL = '/bin/sh';

const pathDirs = (env: NodeJS.ProcessEnv): string[] => (env.PATH ?? '').split(path.delimiter);

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** A PID namespace to try (the command that checks it), or the fallback already decided. */
type Candidate =
  { kind: 'try'; unshare: string; flags: string[] } | Extract<Containment, { kind: 'process-group' }>;

const candidate = (env: NodeJS.ProcessEnv): Candidate => {
  if (process.platform !== 'linux') return { kind: 'process-group', reason: 'PID namespaces are Linux only' };
  if (env[PORTABLE_ENV] === '1')
    return { kind: 'process-group', reason: `${PORTABLE_ENV}=1 is set: the code paths of macOS` };
  if (env[CONTAINMENT_ENV] === 'group')
    return { kind: 'process-group', reason: `${CONTAINMENT_ENV}=group is set` };
  if (!existsSync(SHELL)) return { kind: 'process-group', reason: `${SHELL} is missing` };
  const unshare = findExecutable('unshare', [...pathDirs(env), '/usr/bin', '/bin', '/usr/sbin', '/sbin']);
  if (unshare === null) return { kind: 'process-group', reason: '`unshare` (util-linux) is not installed' };
  // Root needs no user namespace (and one would take its rights over other users' files away);
  // HYDRA_CONTAINMENT=user gives root one too, as an ordinary user's agents get (for tests).
  const flags = [
    ...(isRoot() && env[CONTAINMENT_ENV] !== 'user' ? [] : ['--user', '--map-current-user']),
    ...['--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'slave'],
  ];
  return { kind: 'try', unshare, flags };
};

/** The verdict of `unshare <flags> -- true`: its exit status and the last line of its stderr. */
const verdict = (
  tried: { unshare: string; flags: string[] },
  status: number | null,
  stderr: string,
  error: string | undefined,
): Containment => {
  if (status === 0) return { kind: 'pid-namespace', unshare: tried.unshare, flags: tried.flags };
  const why = stderr.trim().split('\n').at(-1) || error || `exit ${String(status)}`;
  return {
    kind: 'process-group',
    reason: `\`unshare ${tried.flags.join(' ')}\` is not allowed here: ${why}`,
  };
};

/** How long the check of the namespace may take. */
const CHECK_TIMEOUT_MS = 5000;

let cached: Containment | null = null;
let pending: Promise<Containment> | null = null;

/**
 * The containment agents run in, checked on first use. The check runs `unshare` once and waits for
 * it; a race starts it early with prepareContainment, so spawning an agent does not wait.
 */
export const activeContainment = (): Containment => {
  if (cached !== null) return cached;
  const tried = candidate(process.env);
  if (tried.kind !== 'try') return (cached = tried);
  const check = spawnSync(tried.unshare, [...tried.flags, '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: CHECK_TIMEOUT_MS,
    encoding: 'utf8',
  });
  cached = verdict(tried, check.status, check.stderr ?? '', check.error?.message);
  return cached;
};

/** activeContainment without blocking: the check runs beside the race's other start-up work. */
export const prepareContainment = (): Promise<Containment> => {
  if (cached !== null) return Promise.resolve(cached);
  const tried = candidate(process.env);
  if (tried.kind !== 'try') return Promise.resolve((cached = tried));
  pending ??= (async () => {
    const check = startChild(tried.unshare, [...tried.flags, '--', 'true'], { env: process.env });
    const timer = setTimeout(() => check.process.kill('SIGKILL'), CHECK_TIMEOUT_MS);
    const result = await check.result;
    clearTimeout(timer);
    cached ??= verdict(
      tried,
      result.exitCode ?? null,
      result.stderr,
      result.spawnError?.message ?? (result.signal === undefined ? undefined : `ended by ${result.signal}`),
    );
    return cached;
  })();
  return pending;
};

/** One line for `hydra doctor`. */
export const describeContainment = (containment: Containment): string =>
  containment.kind === 'pid-namespace'
    ? `PID namespace per agent (unshare ${containment.flags.join(' ')}): everything an agent starts ends with it`
    : `process group + run marker (fallback: ${containment.reason}); a process that leaves both can outlive its agent`;

/** Overlays the init mounts before it starts the agent: `mount -t overlay hydra-share -o <options> <target>`. */
export interface InitMounts {
  /** The `mount` program (a path). */
  program: string;
  overlays: ReadonlyArray<{ options: string; target: string }>;
}

/**
 * The namespace's flags when the init mounts overlays. An ordinary user's namespace maps the user
 * to itself (`--map-current-user`), where util-linux `mount` refuses ("must be superuser") though
 * the kernel allows an overlay in a user namespace: such an init runs as the namespace's root
 * (`--map-root-user`), mounts, then starts the agent in a nested user namespace that maps it back
 * to the user's own ids (`drop`), so the agent is the user as before. Root needs neither.
 */
export const mountingFlags = (
  flags: readonly string[],
): { flags: string[]; drop: { uid: number; gid: number } | null } => {
  if (!flags.includes('--map-current-user')) return { flags: [...flags], drop: null };
  return {
    flags: flags.map((flag) => (flag === '--map-current-user' ? '--map-root-user' : flag)),
    drop: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
  };
};

/**
 * The init's arguments for its mounts: `<n> [<program> <drop> <uid> <gid> (<options> <target>) x n]`
 * (`<drop>`: the `unshare` that maps the agent back to the user, or `-`).
 */
const mountArgs = (
  mounts: InitMounts | null,
  unshare: string,
  drop: { uid: number; gid: number } | null,
): string[] =>
  mounts === null || mounts.overlays.length === 0
    ? ['0']
    : [
        String(mounts.overlays.length),
        mounts.program,
        ...(drop === null ? ['-', '0', '0'] : [unshare, String(drop.uid), String(drop.gid)]),
        // In a user namespace, overlayfs keeps its whiteouts and opaque directories in `user.`
        // xattrs (`userxattr`): without it, removing a shared directory fails with EIO.
        ...mounts.overlays.flatMap((overlay) => [
          drop === null ? overlay.options : `userxattr,${overlay.options}`,
          overlay.target,
        ]),
      ];

/**
 * `unshare <flags> -- /bin/sh -c <init> hydra-init <status file> <grace s> <mounts> <file> <args>`,
 * or the command itself. `env` is the agent's environment: its PATH finds `file`. With a `graceMs`,
 * the spawn must give the init a pipe as fd 3 and keep its other end open while hydra runs (see
 * INIT_SCRIPT); null leaves the init without its watchdog (HYDRA_WATCHDOG=0). `mounts`: overlays
 * mounted in the namespace before the agent starts (the shared directories, share-mount.ts); they
 * need the namespace, so the process-group fallback takes none.
 */
export const containedCommand = (
  containment: Containment,
  file: string,
  args: readonly string[],
  statusFile: string,
  env: NodeJS.ProcessEnv,
  graceMs: number | null,
  mounts: InitMounts | null = null,
): ContainedCommand => {
  if (containment.kind !== 'pid-namespace') return { file, args: [...args] };
  const mounting = mounts !== null && mounts.overlays.length > 0;
  const { flags, drop } = mounting
    ? mountingFlags(containment.flags)
    : { flags: [...containment.flags], drop: null };
  return {
    file: containment.unshare,
    args: [
      ...flags,
      '--',
      SHELL,
      '-c',
      INIT_SCRIPT,
      'hydra-init',
      statusFile,
      graceMs === null ? 'off' : String(Math.max(0, graceMs) / 1000),
      ...mountArgs(mounts, containment.unshare, drop),
      (file.includes('/') ? file : findExecutable(file, pathDirs(env))) ?? file,
      ...args,
    ],
  };
};
