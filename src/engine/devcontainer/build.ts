/**
 * `[container] devcontainer = true`: the repository's `.devcontainer/devcontainer.json` built into
 * the agents' image with the reference CLI, `devcontainer build --workspace-folder <repo>
 * --image-name <name>` (@devcontainers/cli). The CLI is looked up on PATH, not bundled: one 1.9 MB
 * package that only these users need (`npm i -g @devcontainers/cli`; doctor names it). It builds
 * offline when the file's `image` or its Dockerfile's `FROM` is an image the engine has. The image
 * name carries a hash of the `.devcontainer` folder, so an unchanged definition is built once
 * (the engine's cache makes a rebuild quick anyway).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { resolveCommandSync } from '../probe/index.js';
import { repoKey } from '../records/index.js';

/** How to get the CLI, for doctor and the error. */
export const DEVCONTAINER_INSTALL = 'npm i -g @devcontainers/cli';

/** A build pulls and runs Dockerfile steps: minutes, not seconds. */
const BUILD_TIMEOUT_MS = 20 * 60_000;

/** Every file under `.devcontainer`, hashed with its relative path. */
function definitionHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const file = path.join(at, name);
      if (statSync(file).isDirectory()) walk(file);
      else hash.update(`${path.relative(dir, file)}\0`).update(readFileSync(file));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 12);
}

/** The image a repository's dev container builds to: `hydra-devcontainer-<repo key>:<hash>`. */
export const devcontainerImageName = (repoRoot: string): string =>
  `hydra-devcontainer-${repoKey(repoRoot)
    .toLowerCase()
    .replace(/[^a-z0-9_.-]/g, '-')}:${definitionHash(path.join(repoRoot, '.devcontainer'))}`;

export interface DevcontainerBuild {
  image: string;
  /** The CLI's last output lines, for a log. */
  output: string;
}

/** Builds the repository's dev container image on `host` (absent or `default`: the environment's engine). */
export async function buildDevcontainer(
  repoRoot: string,
  options: { host?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<DevcontainerBuild> {
  const env = options.env ?? process.env;
  const definition = path.join(repoRoot, '.devcontainer', 'devcontainer.json');
  if (!existsSync(definition)) {
    throw new EngineError({
      kind: 'Refused',
      message: `[container] devcontainer = true, but ${definition} does not exist`,
      hint: 'Add .devcontainer/devcontainer.json to the repository, or name an image with [container] image = "<image>"',
    });
  }
  const cli = resolveCommandSync('devcontainer', env);
  if (cli === null) {
    throw new EngineError({
      kind: 'BinaryMissing',
      message:
        'the dev container CLI (devcontainer) is not on PATH; [container] devcontainer = true builds the image with it',
      hint: `Install it with: ${DEVCONTAINER_INSTALL}`,
    });
  }
  const image = devcontainerImageName(repoRoot);
  const buildEnv =
    options.host === undefined || options.host === 'default' ? env : { ...env, DOCKER_HOST: options.host };
  const args = ['build', '--workspace-folder', repoRoot, '--image-name', image];
  return new Promise((resolve, reject) => {
    execFile(
      cli,
      args,
      { env: buildEnv, timeout: BUILD_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`.trim().split('\n').slice(-20).join('\n');
        if (error === null) return resolve({ image, output });
        reject(
          new EngineError({
            kind: 'SpawnFailed',
            message: `building the dev container (${definition}) failed: ${output.split('\n').slice(-3).join(' ')}`,
            hint: `Run \`devcontainer ${args.join(' ')}\` to see the whole build; fix the definition or its Dockerfile`,
            cause: error,
          }),
        );
      },
    );
  });
}
