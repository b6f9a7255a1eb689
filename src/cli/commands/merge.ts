/** `hydra merge <run> <agent> [--squash] [--keep-worktrees] [--discard-others] [--only <path>...] [--allow-secrets] [--allow-protected]`. */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { mergeRun, protectedFilesNote, resolveRunName } from '../../engine/index.js';
import type { MergeResult } from '../../engine/index.js';
import { getBoolean, getStrings, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { fileCount, mergeMethodLabel, sanitize, sanitizeName, shortRef } from '../../ui/index.js';
import { requireRepo } from '../run-ids.js';

const OPTIONS = {
  squash: { type: 'boolean' },
  'keep-worktrees': { type: 'boolean' },
  'discard-others': { type: 'boolean' },
  only: { type: 'string', multiple: true },
  'allow-secrets': { type: 'boolean' },
  'allow-protected': { type: 'boolean' },
} as const;

export async function mergeCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('merge', args, OPTIONS);
  const [runId, agent, ...extra] = parsed.positionals;
  if (runId === undefined || agent === undefined) {
    throw new UsageError({
      message: 'hydra merge needs a run id and an agent: hydra merge <run-id|last> <agent>',
      hint: 'list run ids with: hydra runs',
    });
  }
  // `--only a b c`: the words after the first path are paths too.
  const onlyGiven = getStrings(parsed, 'only');
  if (onlyGiven.length === 0) noExtraArguments('merge', extra);
  // Names are lowercase letters, digits and dashes; an adapter's alias in any case still names its agent.
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(agent))
    throw new UsageError({
      message: `"${sanitize(agent)}" is not an agent name (letters, digits and dashes)`,
      hint: `hydra show ${runId} lists the run's agents`,
    });
  const keepWorktrees = getBoolean(parsed, 'keep-worktrees') ?? false;
  const discardOthers = getBoolean(parsed, 'discard-others') ?? false;
  if (keepWorktrees && discardOthers)
    throw new UsageError({
      message: '--keep-worktrees and --discard-others contradict each other; pick one',
    });

  const root = requireRepo(ctx.cwd);
  const only = onlyGiven.length === 0 ? undefined : repoPaths(root, ctx.cwd, [...onlyGiven, ...extra]);
  const run = await resolveRunName(root, runId);
  // The agent's name in that run (`opus`, `claude-2`); the engine says which ones there are.
  const result = await mergeRun(root, run.runId, agent, {
    squash: getBoolean(parsed, 'squash') ?? false,
    keepWorktrees,
    discardOthers,
    ...(only === undefined ? {} : { only }),
    ...(getBoolean(parsed, 'allow-secrets') === true ? { allowSecrets: true } : {}),
    ...(getBoolean(parsed, 'allow-protected') === true ? { allowProtected: true } : {}),
  });
  for (const line of mergeLines(ctx, result)) ctx.print(line);
  if (!discardOthers && !keepWorktrees && run.agentIds.length > 1)
    ctx.print(
      ctx.out.dim(`the other results stay (branches hydra/${run.runId}/*) until: hydra clean ${run.runId}`),
    );
  return EXIT.ok;
}

/**
 * Paths given relative to where the user is, as paths relative to the repository root (the engine
 * refuses any that leave it). A path outside the repository is kept as `../...` for that refusal.
 */
const repoPaths = (root: string, cwd: string, given: readonly string[]): string[] => {
  let here = cwd;
  try {
    here = realpathSync(cwd);
  } catch {
    // The real path only matters when cwd is reached through a symbolic link.
  }
  return given.map((item) => {
    if (item.trim() === '') throw new UsageError({ message: '--only needs a path, not an empty string' });
    const relative = path.relative(root, path.resolve(here, item));
    return relative === '' ? '.' : relative;
  });
};

const mergeLines = (ctx: CliContext, result: MergeResult): string[] => {
  const { out } = ctx;
  const lines: string[] = [];
  if (result.method === 'nothing-to-merge') {
    lines.push(
      `${sanitize(result.agent)} ${result.only ? `made no change to ${result.only.map(sanitizeName).join(', ')} that is not` : 'made no changes that are not'} already in ${result.into} (run ${result.runId}): nothing to merge`,
    );
  } else {
    const files = fileCount(result.filesChanged);
    const what = result.only ? ` (only ${result.only.map(sanitizeName).join(', ')})` : '';
    lines.push(
      `${out.green('merged')} ${sanitize(result.agent)}${what} (run ${result.runId}) into ${out.bold(result.into)}: ${mergeMethodLabel(result.method)}, ${files}, now at ${shortRef(result.commit)}`,
    );
  }
  const note = protectedFilesNote(result);
  if (note !== null) lines.push(`${out.yellow('!')} ${sanitize(note)}`);
  // Paths from the run record, which anyone who can write the repository can forge.
  if (result.removed.length > 0)
    lines.push(out.dim(`removed: ${result.removed.map(sanitizeName).join(', ')}`));
  return lines;
};
