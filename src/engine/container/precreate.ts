/**
 * Containers created ahead. On a local engine, an agent's `docker create` (the engine copies the
 * image's filesystem for it: about 2 s with the `vfs` driver, more on a busy machine) runs while
 * git makes the agent's worktree: placement has given the agent its host before any worktree is
 * made (race-actors.ts), so its `home` volume and its container are made beside its
 * `worktree add`. Its start then takes it with `docker start -a`, provided it is the container
 * `docker run` would make now (the same arguments and variables, by fingerprint: run-args.ts); if
 * not, the start goes on as without it (its `rm -f` of the name removes it first). Created is not
 * running: an agent waiting for room on its host (slots.ts) holds no slot by it, and the engine's
 * `docker ps` does not count it. A race that fails or ends before an agent starts removes what was
 * created for it (discardPrecreated); the containers carry the run's labels and the watchdog is
 * told their host, so a killed hydra's are removed too.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ProcessRegistry } from '../process/index.js';
import { trace } from '../../trace.js';
import { docker } from './docker.js';
import { containerName, volumeName } from './labels.js';
import type { ContainerAgentLaunch } from './run-args.js';
import { containerArgs, createAgentHome, localRunArgs, privateGitOf } from './run-args.js';

interface Ahead {
  runId: string;
  host: string;
  /** Its `home` volume, made for it. */
  volume: string;
  /** Its fingerprint once created; null when it was not (a failure: its start says why). */
  created: Promise<string | null>;
}

/** Containers created ahead and not yet taken by their agent's start, by container name. */
const ahead = new Map<string, Ahead>();

const fingerprintOf = (args: readonly string[], env: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify([args, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]))
    .digest('hex');

const CONFLICT = /Conflict\.|is already in use/i;

/** `docker create` of what `docker run` would start; a container of the name left by a killed hydra goes first. */
async function createNow(launch: ContainerAgentLaunch): Promise<string | null> {
  const { host } = launch.container;
  const name = containerName(launch.runId, launch.agent);
  const run = await localRunArgs(launch);
  const { env } = containerArgs(launch);
  await createAgentHome(launch);
  const create = ['create', ...run.slice(1)];
  let result = await docker(host, create, { env: env.values });
  if (result.exitCode !== 0 && CONFLICT.test(result.stderr)) {
    await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] });
    result = await docker(host, create, { env: env.values });
  }
  // Not created: its start makes it as without, and says what is wrong.
  if (result.exitCode !== 0) return null;
  trace(`agent ${launch.agent}: container created ahead`);
  return fingerprintOf(run, env.values);
}

/**
 * Makes the directories a local engine's agent container bind-mounts (empty where missing: `git
 * worktree add` fills an empty directory, private-git.ts an empty private directory; the engine
 * refuses a bind mount of a missing one), then creates its container in the background. Nothing on
 * a remote engine (its container is made with the base bundle in: container-process.ts).
 */
export async function precreateContainer(
  launch: ContainerAgentLaunch,
  processes: ProcessRegistry,
): Promise<void> {
  if (launch.container.remote) return;
  await mkdir(path.dirname(launch.worktree), { recursive: true, mode: 0o700 });
  await Promise.all([
    mkdir(launch.worktree, { recursive: true }),
    mkdir(launch.scratchDir, { recursive: true }),
    mkdir(privateGitOf(launch), { recursive: true, mode: 0o700 }),
  ]);
  processes.watchContainerHost(launch.container.host);
  const created = createNow(launch).catch(() => null);
  ahead.set(containerName(launch.runId, launch.agent), {
    runId: launch.runId,
    host: launch.container.host,
    volume: volumeName(launch.runId, launch.agent, 'home'),
    created,
  });
}

/**
 * The agent's container created ahead, if it is the one `run` (`docker run`'s arguments, with the
 * docker CLI's `env`) would make on its host: the arguments that start it. Else null, and the start
 * goes on as without (its `rm -f` removes one of the same name first).
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
  const made = await entry.created;
  if (made === null) return null;
  if (entry.host !== launch.container.host) {
    await docker(entry.host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
    return null;
  }
  if (made !== fingerprintOf(run, env)) {
    trace(`agent ${launch.agent}: the container created ahead is not what docker run would make`);
    return null;
  }
  return ['start', '-a', ...(launch.command.stdinFile === undefined ? [] : ['-i']), name];
}

/**
 * Removes the run's containers created ahead that no start took (a race that failed or was
 * cancelled before its agents started, an agent whose setup failed or that was stopped while it
 * waited for room), with their `home` volumes: nothing ran in them.
 */
export async function discardPrecreated(runId: string): Promise<void> {
  const mine = [...ahead].filter(([, entry]) => entry.runId === runId);
  for (const [name] of mine) ahead.delete(name);
  await Promise.all(
    mine.map(async ([name, entry]) => {
      // Whether it was made or not: a failed create may have made its volume, or met the name.
      await entry.created;
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
