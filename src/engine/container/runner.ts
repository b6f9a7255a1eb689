/**
 * What a runner is: where an agent's CLI runs. `local` is the supervisor on this machine (today's
 * path); `container` is a container per agent on a Docker-compatible engine. A future `kubernetes`
 * runner (a Job per agent) is one more object of this shape (ARCHITECTURE.md, "Runners").
 *
 * The contract every runner keeps, so the race does not know where an agent runs:
 * - `place` gives each launch where it runs before any starts (hosts, nodes), or throws an error
 *   naming the place and what to do; a follow-up stays where its agent ran (`stay`). Past a place's
 *   room (`max_agents`) it still places: the agent waits there before it starts (slots.ts). With
 *   `probe`, it probes each launch's CLI where it will run and returns its capabilities, which the
 *   agent's command is then built for (a CLI missing there is its error).
 * - `start` starts the CLI with its workspace at the agent's branch tip (the base commit, or the
 *   last round's result), streams its stdout as lines (`callbacks.onLine`), stops it on `terminate`
 *   (SIGTERM, then SIGKILL after the grace) or `kill`, and resolves `exited` only once the result is
 *   in the agent's worktree on this machine (fetched back from a remote engine as commits).
 * - `clean` removes what it created for a run (or a repository, or everything), by label.
 */
import type { ProcessRegistry, Supervised, SupervisorCallbacks } from '../process/index.js';
import type { AgentName } from '../agent-name.js';
import { removeContainers } from './clean.js';
import type { ContainerAgentLaunch } from './container-process.js';
import { startContainer } from './container-process.js';
import { placeContainers } from './placement.js';
import type { Placeable, Placed, PlacementSettings, ProbeInImage } from './placement.js';
import type { RunnerKind } from '../agent-plan.js';

export interface AgentRunner {
  readonly kind: RunnerKind;
  place<L extends Placeable>(
    launches: readonly L[],
    settings: PlacementSettings,
    stay?: Readonly<Record<AgentName, string | undefined>>,
    probe?: ProbeInImage,
  ): Promise<Placed<L>>;
  start(launch: ContainerAgentLaunch, callbacks: SupervisorCallbacks, processes: ProcessRegistry): Supervised;
  clean(
    where: string,
    scope: { runId?: string; repoRoot?: string },
  ): Promise<{ containers: number; volumes: number }>;
}

/** Containers on a Docker-compatible engine, local (bind mounts) or remote (bundles). */
export const containerRunner: AgentRunner = {
  kind: 'container',
  place: placeContainers,
  start: startContainer,
  clean: removeContainers,
};
