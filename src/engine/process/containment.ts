/**
 * How an agent's whole process tree is kept together, so that stopping it stops everything it
 * started: even a child that left the process group and cleared its environment (`setsid env -i`),
 * which neither the group signal nor the HYDRA_RUN_ID marker can reach.
 *
 * - `pid-namespace`: the agent runs in a PID namespace of its own (util-linux `unshare --pid
 *   --fork --kill-child`, with `--user --map-current-user` when hydra is not root, so no privilege
 *   is needed). hydra's init (contain-init.ts) is the namespace's PID 1 and the agent its child;
 *   when the init ends, for any reason, the kernel kills every process left in the namespace, and
 *   `--kill-child` ends the init if `unshare` itself is killed.
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
 * turns the namespace off (`hydra doctor` says which one is active and why). Where a PID namespace
 * is allowed but mounting its /proc is not (a container that masks parts of the host's /proc), the
 * fallback is the process group too: a namespace with the host's /proc breaks the agents' sandboxes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTAINMENT_ENV = 'HYDRA_CONTAINMENT';

export type Containment =
  | { kind: 'pid-namespace'; unshare: string; flags: readonly string[]; init: string }
  | { kind: 'process-group'; reason: string };

/** The command that runs `file args` inside the containment. */
interface ContainedCommand {
  file: string;
  args: string[];
}

/** The compiled init script; tests run the engine from src/, the init always from dist/. */
const initScript = (): string => {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? path.resolve(path.dirname(here), '../../../dist/engine/process/contain-init.js')
    : path.join(path.dirname(here), 'contain-init.js');
};

const findOnPath = (name: string, env: NodeJS.ProcessEnv): string | null => {
  const dirs = [...(env.PATH ?? '').split(path.delimiter), '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
};

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Works out which containment this machine allows (no cache: see activeContainment). */
const detectContainment = (env: NodeJS.ProcessEnv = process.env): Containment => {
  if (process.platform !== 'linux') return { kind: 'process-group', reason: 'PID namespaces are Linux only' };
  if (env[CONTAINMENT_ENV] === 'group')
    return { kind: 'process-group', reason: `${CONTAINMENT_ENV}=group is set` };
  const init = initScript();
  if (!existsSync(init))
    return { kind: 'process-group', reason: `${init} is missing (run \`npm run build\`)` };
  const unshare = findOnPath('unshare', env);
  if (unshare === null) return { kind: 'process-group', reason: '`unshare` (util-linux) is not installed' };
  // Root needs no user namespace (and one would take its rights over other users' files away).
  const flags = [
    ...(isRoot() ? [] : ['--user', '--map-current-user']),
    ...['--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'slave'],
  ];
  const check = spawnSync(unshare, [...flags, '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 5000,
    encoding: 'utf8',
  });
  if (check.status !== 0) {
    const why = check.stderr?.trim().split('\n').at(-1) ?? check.error?.message ?? `exit ${check.status}`;
    return { kind: 'process-group', reason: `\`unshare ${flags.join(' ')}\` is not allowed here: ${why}` };
  }
  return { kind: 'pid-namespace', unshare, flags, init };
};

let cached: Containment | null = null;

/** The containment agents run in, checked on first use. */
export const activeContainment = (): Containment => {
  cached ??= detectContainment();
  return cached;
};

/** One line for `hydra doctor`. */
export const describeContainment = (containment: Containment): string =>
  containment.kind === 'pid-namespace'
    ? `PID namespace per agent (unshare ${containment.flags.join(' ')}): everything an agent starts ends with it`
    : `process group + run marker (fallback: ${containment.reason}); a process that leaves both can outlive its agent`;

/** `unshare <flags> -- node contain-init.js <status file> -- <file> <args>`, or the command itself. */
export const containedCommand = (
  containment: Containment,
  file: string,
  args: readonly string[],
  statusFile: string,
): ContainedCommand =>
  containment.kind === 'pid-namespace'
    ? {
        file: containment.unshare,
        args: [
          ...containment.flags,
          '--',
          process.execPath,
          containment.init,
          statusFile,
          '--',
          file,
          ...args,
        ],
      }
    : { file, args: [...args] };
