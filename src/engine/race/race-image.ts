/**
 * The agents' image before placement (a race's workspace, a later round's launch): with
 * `[container] devcontainer = true` and no image, the dev container's (src/engine/devcontainer),
 * built on each host that gets agents where it is missing; its progress is each container agent's
 * `progress` event of stage `image`.
 */
import { ev } from '../../core/events.js';
import type { AgentEvent } from '../../core/events.js';
import { devcontainerTrusted } from '../config/index.js';
import type { ContainerLaunch, ContainerSettings, PlacementSettings } from '../container/index.js';
import { IMAGE_STAGE, withDevcontainerImage } from '../devcontainer/index.js';
import type { AgentName } from '../agent-name.js';

export function devcontainerStep<L extends { agent: AgentName; container?: ContainerLaunch | null }>(
  launches: readonly L[],
  settings: ContainerSettings,
  context: {
    repoRoot: string;
    recordDir: string;
    signal?: AbortSignal;
    report?: ((agent: AgentName, events: AgentEvent[]) => void) | undefined;
  },
): { launches: L[]; settings: PlacementSettings } {
  const waiting = launches.filter((launch) => launch.container).map((launch) => launch.agent);
  const { report } = context;
  const step = withDevcontainerImage(launches, settings, {
    repoRoot: context.repoRoot,
    recordDir: context.recordDir,
    trusted: (definition) => devcontainerTrusted(definition),
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(report === undefined
      ? {}
      : {
          report: (detail: string) => {
            for (const agent of waiting)
              report(agent, [ev({ kind: 'progress', stage: IMAGE_STAGE, detail })]);
          },
        }),
  });
  return {
    launches: step.launches,
    settings: step.ensureImage === undefined ? settings : { ...settings, ensureImage: step.ensureImage },
  };
}
