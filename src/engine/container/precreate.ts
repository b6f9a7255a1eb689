/**
 * Containers made ahead. On a local engine, an agent's container is made while git makes its
 * worktree: placement has given the agent its host before any worktree is made (race/workspace.ts),
 * so its container (with its `home` volume, by a labelled `--mount`) is created beside its
 * `worktree add`, and, where nothing stands in the way, STARTED there too: its entry (GATE, a
 * `/bin/sh` in front of the CLI) waits on its stdin, so the CLI runs only once the agent's start
 * attaches (`docker attach`, whose stdin is empty: the end of it is the go). hydra's start then
 * costs an attach instead of the engine's start of a container (most of a second on `vfs`), and
 * the stream the adapter parses is the CLI's alone (nothing is printed before the go, and the
 * attach is made before the go is given, by the same call). A start takes the container only if it
 * is the one `docker run` would make now (the same arguments and variables, by fingerprint:
 * run-args.ts); if not, it goes on as without it (its `rm -f` of the name removes it first).
 *
 * Started ahead only when the agent does not wait for room (no `max_agents` on its host: a running
 * container counts as busy there, slots.ts), its prompt is an argument (a prompt through stdin
 * needs the attach's stdin) and it has no `[setup] share`; else it is created ahead only and
 * started by `docker start -a`.
 * Created or waiting, nothing of the agent has run: its idle and overall timers begin at its start.
 * A race that fails or ends before an agent starts removes what was made for it
 * (discardPrecreated); the containers carry the run's labels and the watchdog is told their host,
 * so a killed hydra's are removed too (a waiting container never goes on by itself: nothing closes
 * its stdin).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ProcessRegistry } from '../process/index.js';
import { trace } from '../../trace.js';
import { docker } from './docker.js';
import { containerName, volumeName } from './labels.js';
import type { ContainerAgentLaunch } from './run-args.js';
import {
  agentLabelArgs,
  cliFile,
  containerArgs,
  createAgentHome,
  labelledHomeMount,
  localMounts,
  localRunArgs,
  privateGitOf,
} from './run-args.js';
import { containerUser, giveHome } from './user.js';

/**
 * A waiting container's entry: one line (or the end) of its stdin is the go, then the CLI. `read`
 * takes its input a byte at a time from a pipe, so nothing past the go line is lost.
 */
const GATE = 'read -r _; exec "$@"';

interface Made {
  fingerprint: string;
  /** Started ahead: it waits on its stdin (GATE). */
  started: boolean;
}

interface Ahead {
  runId: string;
  host: string;
  /** Its `home` volume, made for it. */
  volume: string;
  /** What was made; null when nothing usable was (a failure: its start says why). */
  made: Promise<Made | null>;
}

/** Containers made ahead and not yet taken by their agent's start, by container name. */
const ahead = new Map<string, Ahead>();

const fingerprintOf = (args: readonly string[], env: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify([args, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]))
    .digest('hex');

const CONFLICT = /Conflict\.|is already in use/i;

/** Whether the agent's container may be started before its agent starts (see above). */
const startsAhead = (launch: ContainerAgentLaunch, sharing: boolean): boolean =>
  !launch.container.remote &&
  (launch.container.maxAgents ?? null) === null &&
  launch.command.stdinFile === undefined &&
  // Its start mounts overlay volumes made then (share-volumes.ts): what was made ahead is replaced.
  !sharing;

/**
 * `docker create` of the container started ahead: `docker run`'s, with its stdin open (`-i`), the
 * `home` volume made by its `--mount` where it can be, and GATE in front of the CLI.
 */
async function gatedCreateArgs(launch: ContainerAgentLaunch, home: string[] | null): Promise<string[]> {
  const { common } = containerArgs(launch, home ?? undefined);
  return [
    'create',
    '--pull',
    'never',
    '-i',
    ...common,
    ...(await localMounts(launch)),
    launch.container.image,
    '/bin/sh',
    '-c',
    GATE,
    'hydra-go',
    cliFile(launch),
    ...launch.command.args,
  ];
}

/** Makes (and, where it may, starts) the container `docker run` would start; a container of the name left by a killed hydra goes first. */
async function makeNow(launch: ContainerAgentLaunch, sharing: boolean): Promise<Made | null> {
  const { host } = launch.container;
  const name = containerName(launch.runId, launch.agent);
  const start = startsAhead(launch, sharing);
  const home = start ? labelledHomeMount(launch) : null;
  const [run, create] = await Promise.all([
    localRunArgs(launch),
    start ? gatedCreateArgs(launch, home) : null,
    // Without a labelled --mount, the volume is made first (and a mapped user's chown'd: user.ts).
    home === null ? createAgentHome(launch) : null,
  ]);
  const { env } = containerArgs(launch);
  const createArgs = create ?? ['create', ...run.slice(1)];
  let result = await docker(host, createArgs, { env: env.values });
  if (result.exitCode !== 0 && CONFLICT.test(result.stderr)) {
    await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] });
    result = await docker(host, createArgs, { env: env.values });
  }
  // Not created: its start makes it as without, and says what is wrong.
  if (result.exitCode !== 0) return null;
  const fingerprint = fingerprintOf(run, env.values);
  if (!start) {
    trace(`agent ${launch.agent}: container created ahead`);
    return { fingerprint, started: false };
  }
  const user = containerUser(false);
  const [started, given] = await Promise.all([
    docker(host, ['start', name]),
    // The volume the --mount made, given to a mapped user: the CLI's first write to HOME is after the go.
    home === null || user === null
      ? true
      : giveHome(
          host,
          volumeName(launch.runId, launch.agent, 'home'),
          agentLabelArgs(launch),
          user,
          launch.container.image,
        ).then(
          () => true,
          () => false,
        ),
  ]);
  if (started.exitCode === 0 && given) {
    trace(`agent ${launch.agent}: container started ahead`);
    return { fingerprint, started: true };
  }
  // Not usable (an image without /bin/sh, a home that could not be given): the start goes on as without.
  await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] });
  if (!given)
    await docker(host, ['volume', 'rm', '-f', volumeName(launch.runId, launch.agent, 'home')], {
      okExitCodes: [1],
    });
  return null;
}

/**
 * Makes the directories a local engine's agent container bind-mounts (empty where missing: `git
 * worktree add` fills an empty directory, private-git.ts empties and fills the private one; the
 * engine refuses a bind mount of a missing one, and a started container keeps the directory it
 * mounted), then makes its container in the background. Nothing on a remote engine (its container
 * is made with the base bundle in: container-process.ts).
 */
export async function precreateContainer(
  launch: ContainerAgentLaunch,
  processes: ProcessRegistry,
  /** The race has `[setup] share`: its start mounts overlay volumes, so it is not started ahead. */
  sharing = false,
): Promise<void> {
  if (launch.container.remote) return;
  await mkdir(path.dirname(launch.worktree), { recursive: true, mode: 0o700 });
  await Promise.all([
    mkdir(launch.worktree, { recursive: true }),
    mkdir(launch.scratchDir, { recursive: true }),
    mkdir(privateGitOf(launch), { recursive: true, mode: 0o700 }),
  ]);
  processes.watchContainerHost(launch.container.host);
  const made = makeNow(launch, sharing).catch(() => null);
  ahead.set(containerName(launch.runId, launch.agent), {
    runId: launch.runId,
    host: launch.container.host,
    volume: volumeName(launch.runId, launch.agent, 'home'),
    made,
  });
}

/**
 * The agent's container made ahead, if it is the one `run` (`docker run`'s arguments, with the
 * docker CLI's `env`) would make on its host: the arguments that start it (`docker attach` of one
 * started ahead, whose empty stdin is the go; `docker start -a` of one created). Else null, and
 * the start goes on as without (its `rm -f` removes one of the same name first).
 */
export async function takePrecreated(
  launch: ContainerAgentLaunch,
  run: readonly string[],
  env: Record<string, string>,
): Promise<string[] | null> {
  const name = containerName(launch.runId, launch.agent);
  const entry = ahead.get(name);
  if (entry === undefined || entry.runId !== launch.runId) return null;
  ahead.delete(name);
  const made = await entry.made;
  if (made === null) return null;
  if (entry.host !== launch.container.host) {
    await docker(entry.host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
    return null;
  }
  if (made.fingerprint !== fingerprintOf(run, env)) {
    trace(`agent ${launch.agent}: the container made ahead is not what docker run would make`);
    return null;
  }
  if (made.started) return ['attach', name];
  return ['start', '-a', ...(launch.command.stdinFile === undefined ? [] : ['-i']), name];
}

/**
 * Removes the run's containers made ahead (created, or started and waiting) that no start took (a race that failed or was
 * cancelled before its agents started, an agent whose setup failed or that was stopped while it
 * waited for room), with their `home` volumes: nothing ran in them.
 */
export async function discardPrecreated(runId: string): Promise<void> {
  const mine = [...ahead].filter(([, entry]) => entry.runId === runId);
  for (const [name] of mine) ahead.delete(name);
  await Promise.all(
    mine.map(async ([name, entry]) => {
      // Whether it was made or not: a failed create may have made its volume, or met the name.
      await entry.made;
      await docker(entry.host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
      await docker(entry.host, ['volume', 'rm', '-f', entry.volume], { okExitCodes: [1] }).catch(
        () => undefined,
      );
    }),
  );
}

/**
 * `docker start -a`'s exit when the engine could not start the command, read as `docker run`
 * reports it (container-process.ts reads those): 127 not found, 126 not executable, 125 any other
 * refusal. The agent's own exit codes pass unchanged.
 */
export const startExitCode = (code: number | null, stderr: string): number | null => {
  if (code !== 1 || !/^Error response from daemon/m.test(stderr)) return code;
  if (/executable file not found|no such file or directory/i.test(stderr)) return 127;
  if (/permission denied/i.test(stderr)) return 126;
  return 125;
};
