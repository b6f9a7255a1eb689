/**
 * The race's step before placement when `[container] devcontainer = true` names no image: every
 * container launch gets the dev container's image name (definition.ts), and placement ensures the
 * image on each host that gets agents (`ensureImage`): one `docker image inspect` when an unchanged
 * definition was built already, else a build there (build.ts) with its whole output in the run's
 * `devcontainer-build.log` (a failed build's also as `.hydra/devcontainer-build.log`, since a race
 * that started no agent leaves no record). Building runs the repository's Dockerfile: only a trusted definition is
 * built (config/devcontainer-trust.ts). Builds on several hosts run one after another (one log).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import type { ContainerLaunch, ContainerSettings } from '../container/index.js';
import { docker, hostLabel } from '../container/index.js';
import { EngineError } from '../errors.js';
import { recordsRoot } from '../records/index.js';
import { buildDevcontainer, devcontainerCli } from './build.js';
import { devcontainerImageName, readDevcontainer } from './definition.js';
import type { DevcontainerDefinition } from './definition.js';

/** The build's log, in the run's record directory. */
export const DEVCONTAINER_LOG = 'devcontainer-build.log';

/** The stage of the `progress` events that say what became of the image. */
export const IMAGE_STAGE = 'image';

/** Ensures the image is on the engine at `host` (placement calls it per host that gets agents). */
export type EnsureImage = (host: string, image: string) => Promise<void>;

export interface DevcontainerStepContext {
  repoRoot: string;
  /** The run's record directory: the log goes there. */
  recordDir: string;
  signal?: AbortSignal;
  /** Whether the definition, as it is now, is trusted to be built (devcontainerTrusted). */
  trusted: (definition: DevcontainerDefinition) => boolean;
  /** A line for the agents waiting on the image (the race shows it as a `progress` event, stage `image`). */
  report?: (detail: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** Whether these settings have the race build its image from the dev container. */
const buildsDevcontainer = (settings: ContainerSettings): boolean =>
  settings.devcontainer && settings.image === null;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Whether `image` is on the engine at `host`. */
export const imageBuilt = async (host: string, image: string): Promise<boolean> =>
  (await docker(host, ['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 20_000 })).exitCode ===
  0;

/**
 * The launches with the dev container's image, and how placement ensures it on a host; the
 * launches as they are (and no `ensureImage`) when the settings name an image or build none.
 */
export function withDevcontainerImage<L extends { container?: ContainerLaunch | null }>(
  launches: readonly L[],
  settings: ContainerSettings,
  context: DevcontainerStepContext,
): { launches: L[]; ensureImage?: EnsureImage } {
  const inContainers = launches.some((launch) => launch.container !== undefined && launch.container !== null);
  if (!inContainers || !buildsDevcontainer(settings)) return { launches: [...launches] };
  const definition = readDevcontainer(context.repoRoot);
  const image = devcontainerImageName(context.repoRoot, definition);
  const log = path.join(context.recordDir, DEVCONTAINER_LOG);
  const shownLog = path.relative(context.repoRoot, log);
  // A race whose build failed started no agent, and its record is removed: the log is kept here.
  const failedLog = path.join(path.dirname(recordsRoot(context.repoRoot)), DEVCONTAINER_LOG);
  let queue: Promise<unknown> = Promise.resolve();
  const ensureImage: EnsureImage = async (host) => {
    if (await imageBuilt(host, image)) {
      context.report?.(`dev container image ${image} (${definition.shown} unchanged since it was built)`);
      return;
    }
    if (!context.trusted(definition))
      throw new EngineError({
        kind: 'Refused',
        message: `${definition.shown} is not trusted, and building it runs its Dockerfile${definition.dockerfile === null ? '' : ` (${path.relative(context.repoRoot, definition.dockerfile)})`} and what it names: hydra builds a repository's dev container only once it is trusted.`,
        hint: `Review it, then run \`hydra trust\` in the repository (an edit needs trust again); or build the image yourself and name it with [container] image = "<image>".`,
      });
    devcontainerCli(context.env);
    const build = queue.then(async () => {
      const started = Date.now();
      context.report?.(
        `building the dev container image ${image} from ${definition.shown} on ${hostLabel(host)}… (log: ${shownLog})`,
      );
      await buildDevcontainer(context.repoRoot, {
        host,
        definition,
        log: { file: log, shown: path.relative(context.repoRoot, failedLog) },
        ...(context.env === undefined ? {} : { env: context.env }),
        ...(context.signal === undefined ? {} : { signal: context.signal }),
      }).catch((error: unknown) => {
        try {
          copyFileSync(log, failedLog);
        } catch {
          // The error still says what failed.
        }
        throw error;
      });
      context.report?.(`built the dev container image ${image} in ${seconds(Date.now() - started)}`);
    });
    queue = build.catch(() => undefined);
    await build;
  };
  return {
    launches: launches.map((launch) =>
      launch.container ? { ...launch, container: { ...launch.container, image } } : launch,
    ),
    ensureImage,
  };
}
