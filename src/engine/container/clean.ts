/** Removing what hydra created on an engine, by label: a run's (or a repository's, or every) containers and volumes. */
import { docker } from './docker.js';
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
