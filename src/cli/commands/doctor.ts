/** `hydra doctor [--json]`: git, the repository, and every adapter with a hint for each problem. */
import {
  CONFIG_AGENT_IDS,
  CONFIG_DEFAULTS,
  displayPath,
  loadConfig,
  planForDoctor,
} from '../../engine/index.js';
import { ensureExcluded, HYDRA_EXCLUDES, inspectRepo, probeAgents } from '../../engine/index.js';
import type { AgentProbeReport } from '../../engine/index.js';
import { getBoolean, getString, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { doctorJson, doctorPasses, renderDoctor } from '../doctor-view.js';
import { EXIT, UsageError } from '../errors.js';
import { probeCacheDir } from '../paths.js';

const OPTIONS = {
  json: { type: 'boolean' },
  config: { type: 'string' },
  'allow-experimental-adapters': { type: 'boolean' },
} as const;

export async function doctorCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('doctor', args, OPTIONS);
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument "${parsed.positionals[0]}"; see hydra doctor --help`);
  }
  const configPath = getString(parsed, 'config');
  const loaded = loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath !== undefined ? { explicitPath: configPath } : {}),
  });
  const allowExperimental =
    getBoolean(parsed, 'allow-experimental-adapters') ??
    loaded.config.race?.allow_experimental_adapters ??
    CONFIG_DEFAULTS.allowExperimentalAdapters;

  const repo = await inspectRepo(ctx.cwd);
  // The probe cache lives in <repo>/.cache/hydra: keep it out of the user's `git status`.
  if (repo.root !== null) await ensureExcluded(repo.root, HYDRA_EXCLUDES).catch(() => undefined);
  const plans = CONFIG_AGENT_IDS.map((id) => planForDoctor(loaded.config, id));
  const reports = (
    await probeAgents(plans, { cacheDir: probeCacheDir(repo.root, ctx.env), allowExperimental, env: ctx.env })
  ).map((report) => withRootWarning(report, typeof process.getuid === 'function' && process.getuid() === 0));

  if (getBoolean(parsed, 'json')) {
    ctx.print(JSON.stringify(doctorJson(repo, reports)));
  } else {
    const configLine = loaded.path
      ? displayPath(loaded.path, ctx.cwd)
      : 'none (defaults; see hydra.toml.example)';
    for (const line of renderDoctor(repo, reports, ctx.out, configLine)) ctx.print(line);
  }
  return doctorPasses(reports) ? EXIT.ok : EXIT.failed;
}

/**
 * As root, Claude Code refuses bypassPermissions (used by --unsafe) unless IS_SANDBOX=1. hydra sets
 * it for --unsafe runs; doctor says so, because it also means the agent runs with root's powers.
 */
export function withRootWarning(report: AgentProbeReport, isRoot: boolean): AgentProbeReport {
  if (!isRoot || report.adapterId !== 'claude' || report.status === 'missing') return report;
  const warning =
    'running as root: Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1; hydra sets it only for ' +
    '--unsafe races (normal races use acceptEdits). Prefer running hydra as a normal user outside a disposable container';
  return { ...report, warnings: [...report.warnings, warning] };
}
