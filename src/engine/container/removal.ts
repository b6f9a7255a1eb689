/**
 * An ended agent's container removed behind it. `docker rm -f` deletes the container's copy of the
 * image (the engine's `vfs` driver copies it whole), most of a second on a busy machine: it runs
 * while the agent is settled (its result committed, its diff read) instead of before. The docker
 * CLI is one of the race's process groups, so the race does not end (finishRace and cancel wait for
 * its groups) before the container is gone, and hydra exiting kills it as it kills an agent; a later
 * start of the same name (a follow-up in the same process) waits for it first.
 */
import { performance } from 'node:perf_hooks';
import type { ProcessRegistry } from '../process/index.js';
import { startChild } from '../process/index.js';
import { trace } from '../../trace.js';
import { dockerBinary, dockerEnv } from './docker.js';

/** Removals under way, by host and container name. */
const pending = new Map<string, Promise<void>>();

const keyOf = (host: string, name: string): string => `${host}\n${name}`;

/** Starts `docker rm -f <name>` on `host`; never throws (what is left, `hydra clean` removes by label). */
export function removeContainer(
  host: string,
  name: string,
  processes: ProcessRegistry,
  owner: Parameters<ProcessRegistry['registerGroup']>[1],
): void {
  const started = performance.now();
  const child = startChild(dockerBinary(), ['rm', '-f', '-v', name], {
    env: dockerEnv(host),
    stdin: 'ignore',
    detached: true,
  });
  const pid = child.pid;
  if (pid !== undefined) processes.registerGroup(pid, owner);
  const key = keyOf(host, name);
  const done = child.result.then(() => {
    if (pid !== undefined) processes.unregisterGroup(pid);
    if (pending.get(key) === done) pending.delete(key);
    trace(`docker rm -f ${name}: ${Math.round(performance.now() - started)} ms`);
  });
  pending.set(key, done);
}

/** Resolves once the removal of `name` on `host` started here (if any) is over. */
export const removalOf = (host: string, name: string): Promise<void> =>
  pending.get(keyOf(host, name)) ?? Promise.resolve();
