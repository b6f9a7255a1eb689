/** `hydra race "<prompt>"`: config + flags → RaceOptions → a race, on the dashboard or headless. */
import { refuseUntrustedContainer, trustHints } from '../trust-hints.js';
import { withCursorSetup } from '../cursor-setup.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  buildRaceOptions,
  checkConfiguredBinaries,
  displayPath,
  loadConfig,
  MAX_REPEAT,
  newRunId,
  configWarnings,
  resolveAutoChecks,
} from '../../engine/index.js';
import { sanitize } from '../../ui/index.js';
import type { RaceFlags } from '../../engine/index.js';
import type { Parsed } from '../args.js';
import {
  getBoolean,
  getString,
  getStrings,
  parseAgentList,
  parseCommandArgs,
  parseModelFlags,
  parseRepeat,
  parseSandboxMode,
  parseRunner,
  parseSeconds,
  refuseBeside,
} from '../args.js';
import type { CliContext } from '../context.js';
import { UsageError, seeHelp } from '../errors.js';
import { chooseMode, runRaceSession } from '../race-session.js';
import { reviewInDashboard } from '../reopen.js';
import { withRunLock } from '../run-lock.js';
import { autoCount, withAutoAgents } from '../auto-agents.js';
import type { AttemptPlan } from '../attempts.js';
import { trace } from '../../trace.js';

const OPTIONS = {
  agents: { type: 'string', multiple: true },
  'allow-experimental-adapters': { type: 'boolean' },
  model: { type: 'string', multiple: true },
  repeat: { type: 'string' },
  'idle-timeout': { type: 'string' },
  timeout: { type: 'string' },
  unsafe: { type: 'boolean' },
  'keep-worktrees': { type: 'boolean' },
  'prompt-file': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  ascii: { type: 'boolean' },
  check: { type: 'string', multiple: true },
  'max-cost-usd': { type: 'string' },
  'auto-merge': { type: 'string' },
  'allow-test-changes': { type: 'boolean' },
  'no-cross-test': { type: 'boolean' },
  unverified: { type: 'boolean' },
  judge: { type: 'string' },
  'resume-dashboard': { type: 'string' },
  sandbox: { type: 'string' },
  runner: { type: 'string' },
  notify: { type: 'boolean' },
  stop: { type: 'string' },
  attempts: { type: 'string' },
} as const;

export async function raceCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('race', args, OPTIONS);
  const resume = getString(parsed, 'resume-dashboard');
  if (resume !== undefined) {
    if (parsed.positionals.length > 0)
      throw new UsageError({ message: '--resume-dashboard opens a finished race: give no prompt with it' });
    refuseBeside(
      parsed,
      'resume-dashboard',
      ['config', 'ascii'],
      'race',
      'it opens a finished race as it was, in the dashboard (a follow-up is hydra continue)',
    );
    const config = getString(parsed, 'config');
    return reviewInDashboard(ctx, resume, {
      ascii: getBoolean(parsed, 'ascii') ?? false,
      ...(config === undefined ? {} : { configPath: config }),
    });
  }
  const auto = autoCount(getStrings(parsed, 'agents'));
  const chosen = auto === null ? null : await withAutoAgents(ctx, raceFlags(parsed), auto);
  const given = chosen?.flags ?? raceFlags(parsed);
  const prompt = await readPrompt(ctx, parsed);
  const configPath = getString(parsed, 'config');
  const loaded = loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath !== undefined ? { explicitPath: configPath } : {}),
  });
  // `--check auto`: the project's test command, once its file is trusted (else a ConfigError saying so).
  const autoChecks = resolveAutoChecks(loaded, given, { cwd: ctx.cwd, env: ctx.env });
  const flags = autoChecks.flags;
  for (const note of autoChecks.notes) ctx.note(`hydra: ${sanitize(note)}`);
  const configName = loaded.path === null ? undefined : displayPath(loaded.path, ctx.cwd);
  const options = buildRaceOptions(loaded.config, flags, {
    repoPath: ctx.cwd,
    prompt,
    configPath: loaded.path,
    ...(configName === undefined ? {} : { configName }),
  });
  checkConfiguredBinaries(options.agents, ctx.env, configName);
  refuseUntrustedContainer(loaded, flags.runner !== undefined, ctx.cwd);
  trace('cli: config and flags read');
  // An untrusted repository config, a user's check kept: the race says so (pane, stderr and NDJSON).
  const warnings = configWarnings(loaded, ctx.cwd);
  // No `[setup] run`: the repository's `.cursor/worktrees.json`, once trusted (else a warning).
  const setup = withCursorSetup(options, ctx.env);
  if (setup !== null) warnings.push(setup);
  // `--agents auto`: why each agent was chosen, in the header (the pane, stderr and NDJSON).
  warnings.push(...(chosen?.notes ?? []));
  if (warnings.length > 0) options.warnings = warnings;
  const hints = trustHints(loaded, ctx.cwd);
  if (Object.keys(hints).length > 0) options.missingHints = hints;
  const json = getBoolean(parsed, 'json') ?? false;
  const attempts = attemptsOf(getString(parsed, 'attempts'), options.maxCostUsd);
  // --auto-merge best decides after the last attempt, not at the first attempt's review.
  if ((attempts.attempts?.attempts ?? 1) > 1 && options.autoMerge === 'best') options.holdAutoMerge = true;
  // The race holds its run's lock: a `hydra merge last` or `hydra clean` of it waits, then refuses.
  const runId = (options.runId ??= newRunId());
  return withRunLock(ctx.cwd, runId, `hydra race (run ${runId})`, 'the race does not start', () =>
    runRaceSession(ctx, options, {
      mode: chooseMode(ctx, json),
      ascii: getBoolean(parsed, 'ascii') ?? false,
      // The prompt came through a pipe: the dashboard reads its keys from the terminal instead.
      keysFromTerminal: getString(parsed, 'prompt-file') === '-' && ctx.stdin.isTTY !== true,
      notify: getBoolean(parsed, 'notify') ?? loaded.config.ui?.notify === true,
      ...attempts,
    }),
  );
}

/** The flags that override hydra.toml; only the ones given are set. */
export function raceFlags(parsed: Parsed, command = 'race'): RaceFlags {
  const flags: RaceFlags = {};
  // Repeatable: `--agents claude --agents codex` races both, like `--agents claude,codex`.
  const agents = getStrings(parsed, 'agents');
  if (agents.length > 0) flags.agents = parseAgentList(agents.join(','), command);
  const repeat = parseRepeat(getString(parsed, 'repeat'), MAX_REPEAT, command);
  if (repeat !== undefined) flags.repeat = repeat;
  if (getBoolean(parsed, 'allow-experimental-adapters')) flags.allowExperimental = true;
  const models = getStrings(parsed, 'model');
  if (models.length > 0) flags.models = parseModelFlags(models, command);
  const idle = parseSeconds('--idle-timeout', getString(parsed, 'idle-timeout'), false, command);
  if (idle !== undefined) flags.idleTimeoutS = idle;
  const timeout = parseSeconds('--timeout', getString(parsed, 'timeout'), true, command);
  if (timeout !== undefined) flags.timeoutS = timeout;
  if (getBoolean(parsed, 'unsafe')) flags.unsafe = true;
  if (getBoolean(parsed, 'keep-worktrees')) flags.keepWorktrees = true;
  if (getBoolean(parsed, 'allow-test-changes')) flags.allowTestChanges = true;
  if (getBoolean(parsed, 'no-cross-test')) flags.crossTest = false;
  const sandbox = parseSandboxMode(getString(parsed, 'sandbox'));
  if (sandbox !== undefined) flags.sandbox = sandbox;
  const runner = parseRunner(getString(parsed, 'runner'), command);
  if (runner !== undefined) flags.runner = runner;
  const checks = getStrings(parsed, 'check');
  for (const check of checks)
    if (check.trim() === '')
      throw new UsageError({
        message: '--check needs a command, e.g. --check "npm test"',
        hint: seeHelp(command),
      });
  if (checks.length > 0) flags.checks = checks;
  const budget = parseUsd('--max-cost-usd', getString(parsed, 'max-cost-usd'), command);
  if (budget !== undefined) flags.maxCostUsd = budget;
  const autoMerge = getString(parsed, 'auto-merge');
  if (autoMerge !== undefined) {
    if (autoMerge !== 'best')
      throw new UsageError({
        message: `--auto-merge must be "best" (got "${autoMerge}"): it merges the best result (time and cost never decide) when it passed every gate and nobody equals it`,
        hint: seeHelp(command),
      });
    flags.autoMerge = 'best';
  }
  if (getBoolean(parsed, 'unverified')) {
    if (flags.autoMerge === undefined)
      throw new UsageError({
        message: '--unverified goes with --auto-merge best: it lets it merge a result no check ran for',
        hint: seeHelp('race'),
      });
    flags.unverified = true;
  }
  const stop = getString(parsed, 'stop');
  if (stop !== undefined) {
    if (stop !== 'first-verified' && stop !== 'never')
      throw new UsageError({
        message: `--stop must be "first-verified" or "never" (got "${stop}"): first-verified stops the other agents once one result passes every check`,
        hint: seeHelp(command),
      });
    flags.stop = stop;
  }
  const judge = getString(parsed, 'judge');
  if (judge !== undefined) {
    if (judge.trim() === '')
      throw new UsageError({ message: '--judge needs an agent, e.g. --judge claude', hint: seeHelp('race') });
    flags.judge = judge.trim();
  }
  return flags;
}

/** A positive amount of USD from a flag. */
function parseUsd(flag: string, text: string | undefined, command: string): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim().replace(/^\$/, '');
  const value = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value > 0))
    throw new UsageError({
      message: `${flag} must be a positive number of USD, e.g. 2.50 (got "${text}")`,
      hint: seeHelp(command),
    });
  return value;
}

/** The prompt: the positional words (joined by spaces), or --prompt-file (`-` = stdin). */
async function readPrompt(ctx: CliContext, parsed: Parsed): Promise<string> {
  const file = getString(parsed, 'prompt-file');
  if (file !== undefined && parsed.positionals.length > 0) {
    throw new UsageError({
      message: 'give the prompt either as an argument or with --prompt-file, not both',
      hint: seeHelp('race'),
    });
  }
  const prompt = file !== undefined ? await readPromptFile(ctx, file) : parsed.positionals.join(' ');
  if (prompt.trim() === '') {
    const where = file !== undefined ? `--prompt-file ${file} is empty` : 'missing prompt';
    throw new UsageError({
      message: `${where}: say what the agents should do, e.g. hydra race "add a --verbose flag"`,
      hint: seeHelp('race', 'a prompt that starts with "-" goes after "--": hydra race -- "-v fix it"'),
    });
  }
  return prompt;
}

async function readPromptFile(ctx: CliContext, file: string): Promise<string> {
  if (file === '-') return readStream(ctx.stdin);
  try {
    return readFileSync(resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new UsageError({ message: `cannot read --prompt-file ${file}: ${reason}` });
  }
}

async function readStream(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** `--attempts N` (1-9, the first attempt included): the session's plan, with the race's budget. */
function attemptsOf(text: string | undefined, maxCostUsd: number | undefined): { attempts?: AttemptPlan } {
  if (text === undefined) return {};
  const attempts = /^[1-9]$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (Number.isNaN(attempts))
    throw new UsageError({
      message: `--attempts must be a whole number of attempts from 1 to 9, the first included (got "${text}")`,
      hint: seeHelp('race'),
    });
  return { attempts: { attempts, ...(maxCostUsd === undefined ? {} : { maxCostUsd }) } };
}
