/** Removing what hydra created on an engine, by label: a run's (or a repository's, or every) containers and volumes. */
import { docker } from './docker.js';
import { repoKey } from '../records/index.js';
import { labelFilters } from './labels.js';

/**
 * Removes the containers (running ones too) and then the volumes carrying hydra's labels on `host`,
 * for one run, one repository, or all. Returns how many of each went.
 */
export async function removeContainers(
  host: string,
  scope: { runId?: string; repoRoot?: string },
): Promise<{ containers: number; volumes: number }> {
  const filters = labelFilters(scope);
  const listed = await docker(host, ['ps', '-aq', ...filters]);
  const containers = listed.stdout.split('\n').filter((id) => id.trim() !== '');
  if (containers.length > 0) await docker(host, ['rm', '-f', '-v', ...containers]);
  const volumeList = await docker(host, ['volume', 'ls', '-q', ...filters]);
  const volumes = volumeList.stdout.split('\n').filter((id) => id.trim() !== '');
  if (volumes.length > 0) await docker(host, ['volume', 'rm', '-f', ...volumes]);
  return { containers: containers.length, volumes: volumes.length };
}

/** The label hydra puts on the images it builds from a dev container (devcontainer/build.ts). */
const DEVCONTAINER_IMAGE_LABEL = 'io.hydra.devcontainer';

/**
 * The dev container images hydra built on `host` (for one repository, or all) that no
 * container uses, removed unless `dryRun`: their tags and the bytes they took.
 */
export async function removeDevcontainerImages(
  host: string,
  scope: { repoRoot?: string; dryRun: boolean },
): Promise<{ images: string[]; bytes: number }> {
  const label =
    scope.repoRoot === undefined
      ? DEVCONTAINER_IMAGE_LABEL
      : `${DEVCONTAINER_IMAGE_LABEL}=${repoKey(scope.repoRoot)}`;
  const listed = await docker(host, [
    'images',
    '--filter',
    `label=${label}`,
    '--format',
    '{{.ID}} {{.Repository}}:{{.Tag}}',
  ]);
  const inUse = new Set(
    (await docker(host, ['ps', '-a', '--format', '{{.Image}}'])).stdout
      .split('\n')
      .filter((name) => name !== ''),
  );
  const images = listed.stdout
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(
      ([id, tag]) => id !== undefined && id !== '' && tag !== undefined && !inUse.has(tag) && !inUse.has(id),
    );
  if (images.length === 0) return { images: [], bytes: 0 };
  const sizes = await docker(host, [
    'image',
    'inspect',
    '--format',
    '{{.Size}}',
    ...images.map(([id]) => id!),
  ]);
  const bytes = sizes.stdout.split('\n').reduce((sum, size) => sum + (Number(size) || 0), 0);
  if (!scope.dryRun) await docker(host, ['rmi', ...images.map(([, tag]) => tag!)]);
  return { images: images.map(([, tag]) => tag!), bytes };
}
