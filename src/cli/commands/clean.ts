/**
 * `hydra clean [<run>...] [--merged] [--older-than <age>] [--keep-results] [--forget-merged]
 * [--dry-run]`: worktrees, branches and records of finished or dead races, in the scope asked for,
 * and their containers and volumes on the engines the config names and the environment's.
 */
import { cleanRuns, loadConfig, resolveRunName } from '../../engine/index.js';
import { sanitizeStrings } from '../../ui/index.js';
import type { CleanReport } from '../../engine/index.js';
import { getBoolean, getString, parseCommandArgs, parseDuration } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { requireRepo } from '../run-ids.js';
import { cleanImages } from './clean-images.js';

const OPTIONS = {
  'dry-run': { type: 'boolean' },
  merged: { type: 'boolean' },
  'older-than': { type: 'string' },
  'keep-results': { type: 'boolean' },
  'forget-merged': { type: 'boolean' },
} as const;

export async function cleanCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('clean', args, OPTIONS);
  const olderThan = getString(parsed, 'older-than');
  const olderThanMs = olderThan === undefined ? undefined : parseDuration('--older-than', olderThan, 'clean');
  const keepResults = getBoolean(parsed, 'keep-results') ?? false;
  const forgetMerged = getBoolean(parsed, 'forget-merged') ?? false;
  if (keepResults && forgetMerged)
    throw new UsageError({
      message: '--keep-results keeps every record, so --forget-merged has nothing to do with it; pick one',
    });
  const root = requireRepo(ctx.cwd);
  // Named runs (ids, unique prefixes, `last`) are all resolved before anything is removed.
  const named = await Promise.all(parsed.positionals.map((given) => resolveRunName(root, given)));
  const report = await cleanRuns(root, {
    dryRun: getBoolean(parsed, 'dry-run') ?? false,
    ...(named.length > 0 ? { runIds: named.map((run) => run.runId) } : {}),
    merged: getBoolean(parsed, 'merged') ?? false,
    ...(olderThanMs === undefined ? {} : { olderThanMs }),
    keepResults,
    forgetMerged,
    containers: containerEngines(ctx),
  });
  // Paths and reasons come from run records, which anyone who can write the repository can forge.
  for (const line of renderClean(sanitizeStrings(report))) ctx.print(line);
  if (named.length === 0)
    for (const line of await cleanImages(root, getBoolean(parsed, 'dry-run') ?? false)) ctx.print(line);
  return EXIT.ok;
}

/**
 * The engines whose left-over containers clean removes: `[container] hosts` of the config that
 * applies, beside the environment's engine, whose silence is worth a warning only where the config
 * runs agents in containers. A config that cannot be read names no engine: clean still cleans.
 */
function containerEngines(ctx: CliContext): { hosts: string[]; warnDefault: boolean } {
  let config: unknown;
  try {
    config = loadConfig({ cwd: ctx.cwd, env: ctx.env }).config;
  } catch {
    return { hosts: [], warnDefault: false };
  }
  // Read as data: the [container] keys are the container runner's (config/schema.ts).
  const table = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  const container = table(table(config)?.['container']);
  const hosts = Array.isArray(container?.['hosts'])
    ? container['hosts'].filter((host): host is string => typeof host === 'string')
    : [];
  const agents = Object.values(table(table(config)?.['agents']) ?? {});
  const runsContainers =
    container !== undefined ||
    table(table(config)?.['race'])?.['runner'] === 'container' ||
    agents.some((agent) => table(agent)?.['runner'] === 'container');
  return { hosts, warnDefault: runsContainers };
}

export function renderClean(report: CleanReport): string[] {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const lines: string[] = [];
  const section = (label: string, items: readonly (string | number)[]): void => {
    if (items.length === 0) return;
    lines.push(`${label} (${items.length}):`);
    for (const item of items) lines.push(`  ${item}`);
  };
  section(`${verb} worktrees`, report.removedWorktrees);
  section(`${verb} branches`, report.removedBranches);
  section(`${verb} run records`, report.removedRecords);
  section(
    report.dryRun ? 'would stop left-over agent processes' : 'stopped left-over agent processes',
    report.killedProcesses,
  );
  section(`${verb} containers`, report.removedContainers ?? []);
  section(`${verb} volumes`, report.removedVolumes ?? []);
  for (const warning of report.warnings ?? []) lines.push(`warning: ${warning}`);
  if (report.refused.length > 0) {
    // What a record named that is not hydra's to touch: never part of the removal lists above.
    lines.push(
      `${report.dryRun ? 'would refuse' : 'refused'}, not hydra's to touch (${report.refused.length}):`,
    );
    for (const item of report.refused) lines.push(`  ${item.target} (run ${item.runId}): ${item.reason}`);
  }
  for (const skipped of report.skipped) lines.push(`kept ${skipped.runId}: ${skipped.reason}`);
  const history = report.keptHistory ?? [];
  if (history.length > 0)
    lines.push(
      `kept the record of merged run${history.length === 1 ? '' : 's'} ${history.join(', ')} for hydra runs (hydra clean --forget-merged removes it)`,
    );
  const nothing =
    report.removedWorktrees.length +
      report.removedBranches.length +
      report.removedRecords.length +
      report.killedProcesses.length +
      (report.removedContainers?.length ?? 0) +
      (report.removedVolumes?.length ?? 0) ===
    0;
  if (nothing) lines.unshift('nothing to clean');
  else if (report.dryRun) lines.push('dry run: nothing was changed; run hydra clean to do it');
  return lines;
}
