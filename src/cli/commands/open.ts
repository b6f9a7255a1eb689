/** `hydra open <run> <agent>`: prints the agent's worktree path, made again from its branch if removed. */
import { openWorktree, resolveRunName } from '../../engine/index.js';
import { parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, seeHelp, UsageError } from '../errors.js';
import { requireRepo } from '../run-ids.js';

export async function openCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('open', args, { config: { type: 'string' } });
  const [run, agent, ...extra] = parsed.positionals;
  if (run === undefined || agent === undefined) {
    throw new UsageError({
      message: 'hydra open needs a run and an agent: hydra open <run-id> <agent>',
      hint: 'list runs with: hydra runs',
    });
  }
  if (extra.length > 0)
    throw new UsageError({ message: `unexpected argument "${extra[0]}"`, hint: seeHelp('open') });
  const root = requireRepo(ctx.cwd);
  const entry = await resolveRunName(root, run);
  // The path alone on stdout, so `cd "$(hydra open last claude)"` and editors can use it.
  ctx.print(await openWorktree(root, entry.runId, agent, undefined, `hydra open ${entry.runId} ${agent}`));
  return EXIT.ok;
}
