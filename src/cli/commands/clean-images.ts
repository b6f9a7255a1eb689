/**
 * `hydra clean`'s dev container images: those hydra built for this repository
 * (`[container] devcontainer = true`, labelled at build time) that no container uses are removed
 * from the environment's engine, with the bytes they took; `--dry-run` lists them.
 */
import { removeDevcontainerImages } from '../../engine/index.js';

const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;

export async function cleanImages(repoRoot: string, dryRun: boolean): Promise<string[]> {
  // No engine here: nothing of hydra's can be on it, and clean has cleaned the rest.
  const removed = await removeDevcontainerImages('default', { repoRoot, dryRun }).catch(() => null);
  if (removed === null || removed.images.length === 0) return [];
  return [
    `${dryRun ? 'would remove' : 'removed'} ${removed.images.length} dev container image(s), ${megabytes(removed.bytes)}${dryRun ? '' : ' freed'}:`,
    ...removed.images.map((image) => `  ${image}`),
  ];
}
