/** `hydra merge <run> <agent> [--squash] [--keep-worktrees]`: the engine's safe merge. */
import { mergeRun, resolveRunName } from '../../engine/index.js';
import { getBoolean, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { fileCount, mergeMethodLabel, sanitize, shortRef } from '../../ui/index.js';
import { requireRepo } from '../run-ids.js';

const OPTIONS = {
  squash: { type: 'boolean' },
  'keep-worktrees': { type: 'boolean' },
} as const;

export async function mergeCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('merge', args, OPTIONS);
  const [runId, agent, ...extra] = parsed.positionals;
  if (runId === undefined || agent === undefined) {
    throw new UsageError(
      'hydra merge needs a run id and an agent: hydra merge <run-id|last> <agent>',
      'list run ids with: hydra runs',
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"; see hydra merge --help`);
  // Names are lowercase letters, digits and dashes; an adapter's alias in any case still names its agent.
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(agent))
    throw new UsageError(
      `"${sanitize(agent)}" is not an agent name (letters, digits and dashes)`,
      "hydra show <run> lists the run's agents",
    );

  const root = requireRepo(ctx.cwd);
  const run = await resolveRunName(root, runId);
  // The agent's name in that run (`opus`, `claude-2`); the engine says which ones there are.
  const result = await mergeRun(root, run.runId, agent, {
    squash: getBoolean(parsed, 'squash') ?? false,
    keepWorktrees: getBoolean(parsed, 'keep-worktrees') ?? false,
  });
  const { out } = ctx;
  if (result.method === 'nothing-to-merge') {
    ctx.print(
      `${sanitize(result.agent)} made no changes in run ${run.runId}: nothing to merge into ${result.into}`,
    );
  } else {
    const files = fileCount(result.filesChanged);
    ctx.print(
      `${out.green('merged')} ${sanitize(result.agent)} (run ${run.runId}) into ${out.bold(result.into)}: ${mergeMethodLabel(result.method)}, ${files}, now at ${shortRef(result.commit)}`,
    );
  }
  // Paths from the run record, which anyone who can write the repository can forge.
  if (result.removed.length > 0) ctx.print(out.dim(`removed: ${sanitize(result.removed.join(', '))}`));
  return EXIT.ok;
}
