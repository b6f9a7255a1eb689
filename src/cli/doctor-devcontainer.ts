/**
 * `hydra doctor` with `[container] devcontainer = true` and no image: which devcontainer.json a race
 * would build, into which image, whether that image is built on the engine (then doctor probes the
 * CLIs in it), and what would stop a race from building it (not trusted, no dev container CLI).
 */
import type { DevcontainerStatus } from '../engine/index.js';

/** The dev container's lines, above the image's section. */
export function renderDevcontainer(status: DevcontainerStatus, host: string): string[] {
  const lines = ['', `dev container (engine: ${host}):`];
  if (status.file !== null && status.image !== null) {
    lines.push(`  ${status.file} builds ${status.image}`);
    lines.push(
      status.built
        ? '  built: yes (unchanged since it was built; the CLIs in it are probed below)'
        : '  built: not yet (the next race builds it)',
    );
    lines.push(`  trusted: ${status.trusted ? 'yes' : 'no (hydra trust)'}`);
    lines.push(`  devcontainer CLI: ${status.cli ?? 'not on PATH'}`);
  }
  if (status.problem !== null) {
    lines.push(`  ${status.problem.message}`);
    lines.push(`    hint: ${status.problem.hint}`);
  }
  return lines;
}
