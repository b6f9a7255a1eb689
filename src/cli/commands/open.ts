/** `hydra open <run> <agent>`: prints the agent's worktree path, made again from its branch if removed. */
import { loadConfig, openWorktree, resolveRunName, setupOf } from '../../engine/index.js';
import { sanitize } from '../../ui/index.js';
import { getString, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
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
  noExtraArguments('open', extra);
  const root = requireRepo(ctx.cwd);
  const entry = await resolveRunName(root, run);
  // The path alone on stdout, so `cd "$(hydra open last claude)"` and editors can use it.
  const copy = copyPatterns(ctx, getString(parsed, 'config'));
  ctx.print(
    await openWorktree(root, entry.runId, agent, { lockAs: `hydra open ${entry.runId} ${agent}`, copy }),
  );
  return EXIT.ok;
}

/**
 * `[setup] copy` of the config that applies (or `--config`'s), for a worktree made again. A config
 * that cannot be read is a warning, not a refusal: the worktree still opens, with the files
 * `.worktreeinclude` names.
 */
function copyPatterns(ctx: CliContext, configPath: string | undefined): readonly string[] {
  try {
    const loaded = loadConfig({
      cwd: ctx.cwd,
      env: ctx.env,
      ...(configPath === undefined ? {} : { explicitPath: configPath }),
    });
    return setupOf(loaded.config).copy;
  } catch (error) {
    ctx.note(
      `hydra: ${sanitize((error as Error).message)}; [setup] copy is not applied, only .worktreeinclude`,
    );
    return [];
  }
}
