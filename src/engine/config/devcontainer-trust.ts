/**
 * The repository's dev container under the repository's trust (trust.ts): building it runs its
 * Dockerfile (and its `build.options` reach `docker build`), so hydra builds it only once
 * `hydra trust` trusted the definition as it is: the fingerprint of devcontainer.json, its
 * Dockerfile, what that copies in and its local features (devcontainer/definition.ts), so an edit to
 * any of them needs trust again. An image built already is used without it (nothing runs here).
 */
import { HydraError } from '../../core/hydra-error.js';
import {
  DEVCONTAINER_INSTALL,
  devcontainerImageName,
  findDevcontainer,
  imageBuilt,
  readDevcontainer,
} from '../devcontainer/index.js';
import { resolveCommandSync } from '../probe/index.js';
import type { DevcontainerDefinition } from '../devcontainer/index.js';
import { userConfigPath } from './locate.js';
import { trustFile, trustState, userConfigDirOf } from './trust.js';
import type { TrustEntry } from './trust.js';

/** Whether the definition, as it is now, is trusted. */
export const devcontainerTrusted = (
  definition: Pick<DevcontainerDefinition, 'file' | 'fingerprint'>,
  env: NodeJS.ProcessEnv = process.env,
): boolean =>
  trustState(userConfigDirOf(userConfigPath(env)), definition.file, definition.fingerprint) === 'trusted';

/**
 * Trusts the repository's dev container as it is now: what `hydra trust` with no argument does
 * besides hydra.toml. Null when the repository has none; `{ problem }` when it cannot be read.
 */
export const trustDevcontainer = (
  repoRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): { definition: DevcontainerDefinition; entry: TrustEntry } | { problem: string } | null => {
  let definition: DevcontainerDefinition;
  try {
    if (findDevcontainer(repoRoot) === null) return null;
    definition = readDevcontainer(repoRoot);
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  const entry = trustFile(userConfigDirOf(userConfigPath(env)), definition.file, definition.fingerprint);
  return { definition, entry };
};

export interface DevcontainerStatus {
  /** The devcontainer.json a race would build, relative to the repository; null when none was found. */
  file: string | null;
  /** The image it builds to; null when it cannot be read. */
  image: string | null;
  /** Whether that image is on the engine. */
  built: boolean;
  trusted: boolean;
  /** The dev container CLI's path; null when it is not on PATH. */
  cli: string | null;
  /** What stops a race from using it (no definition, an unreadable one, an untrusted one with no image, no CLI). */
  problem: { message: string; hint: string } | null;
}

/** What `hydra doctor` says of `[container] devcontainer = true`: which file, which image, whether it is built. */
export async function devcontainerStatus(
  repoRoot: string,
  host: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DevcontainerStatus> {
  const cli = resolveCommandSync('devcontainer', env);
  let definition: DevcontainerDefinition;
  try {
    definition = readDevcontainer(repoRoot);
  } catch (error) {
    const info = error instanceof HydraError ? error : null;
    return {
      file: null,
      image: null,
      built: false,
      trusted: false,
      cli,
      problem: {
        message: info?.message ?? String(error),
        hint: info?.hint ?? 'Fix the dev container, or set [container] image.',
      },
    };
  }
  const image = devcontainerImageName(repoRoot, definition);
  const built = await imageBuilt(host, image).catch(() => false);
  const trusted = devcontainerTrusted(definition, env);
  const problem = built
    ? null
    : !trusted
      ? {
          message: `${definition.shown} is not built yet and not trusted: a race will not build it`,
          hint: 'Review it, then run `hydra trust` in the repository.',
        }
      : cli === null
        ? {
            message: `${definition.shown} is not built yet, and the dev container CLI (devcontainer) is not on PATH`,
            hint: `Install it with: ${DEVCONTAINER_INSTALL}`,
          }
        : null;
  return { file: definition.shown, image, built, trusted, cli, problem };
}
