/**
 * `hydra continue <run> <agent> "<prompt>"`: a follow-up round for one agent of a finished race,
 * continuing its session on its branch; `hydra rerun <run> <agent>`: a fresh attempt from the base
 * on a new branch. Both reopen the run and show the round like a race (dashboard or NDJSON).
 */
import { resolveRunName } from '../../engine/index.js';
import type { RaceSummary, RoundRequest } from '../../engine/index.js';
import { getBoolean, getString, noExtraArguments, parseCommandArgs, parseSandboxMode } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { reopenRun } from '../reopen.js';
import { chooseMode, runRaceSession } from '../race-session.js';
import { raceFlags } from './race.js';
import { requireRepo } from '../run-ids.js';
import { withRunLock } from '../run-lock.js';

/**
 * A round takes the race's flags that make sense for one more agent run: its limits, its budget,
 * what is kept, and the experimental opt-in (which reopening the run already gave: accepted, so the
 * command the race ran with can be repeated). The agents, models, checks and prompt are the race's.
 */
const OPTIONS = {
  config: { type: 'string' },
  unsafe: { type: 'boolean' },
  sandbox: { type: 'string' },
  runner: { type: 'string' },
  json: { type: 'boolean' },
  ascii: { type: 'boolean' },
  'allow-experimental-adapters': { type: 'boolean' },
  'idle-timeout': { type: 'string' },
  timeout: { type: 'string' },
  'max-cost-usd': { type: 'string' },
  'keep-worktrees': { type: 'boolean' },
  'no-cross-test': { type: 'boolean' },
  notify: { type: 'boolean' },
} as const;

export async function continueCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('continue', args, OPTIONS);
  const [run, agent, ...words] = parsed.positionals;
  const prompt = words.join(' ');
  if (run === undefined || agent === undefined || prompt.trim() === '') {
    throw new UsageError({
      message:
        'hydra continue needs a run, an agent and a prompt: hydra continue <run-id> <agent> "<prompt>"',
      hint: 'list runs with: hydra runs',
    });
  }
  return runRound(ctx, parsed, run, { kind: 'follow_up', agent, prompt });
}

export async function rerunCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('rerun', args, OPTIONS);
  const [run, agent, ...extra] = parsed.positionals;
  if (run === undefined || agent === undefined) {
    throw new UsageError({
      message: 'hydra rerun needs a run and an agent: hydra rerun <run-id> <agent>',
      hint: 'list runs with: hydra runs',
    });
  }
  noExtraArguments('rerun', extra);
  return runRound(ctx, parsed, run, { kind: 'rerun', agent });
}

/** `--sandbox`, given again for the round (a record's mode is not taken). */
const sandboxFlag = (
  parsed: ReturnType<typeof parseCommandArgs>,
  verb: string,
): { sandbox?: 'auto' | 'required' | 'off' } => {
  const sandbox = parseSandboxMode(getString(parsed, 'sandbox'), verb);
  return sandbox === undefined ? {} : { sandbox };
};

async function runRound(
  ctx: CliContext,
  parsed: ReturnType<typeof parseCommandArgs>,
  run: string,
  round: RoundRequest,
): Promise<number> {
  const configPath = getString(parsed, 'config');
  const { runId } = await resolveRunName(requireRepo(ctx.cwd), run);
  const verb = round.kind === 'follow_up' ? 'continue' : 'rerun';
  // One command at a time on a run: a second follow-up, a merge or a clean of it waits, then refuses.
  return withRunLock(
    ctx.cwd,
    runId,
    `hydra ${verb} ${runId} ${round.agent}`,
    `no ${round.kind === 'follow_up' ? 'follow-up' : 'rerun'} starts now`,
    async () => {
      const { options, record, notify } = await reopenRun(ctx, {
        run: runId,
        round,
        ...(configPath === undefined ? {} : { configPath }),
        unsafe: getBoolean(parsed, 'unsafe') ?? false,
        flags: raceFlags(parsed, verb),
        ...sandboxFlag(parsed, verb),
      });
      return runRaceSession(ctx, options, {
        mode: chooseMode(ctx, getBoolean(parsed, 'json') ?? false),
        ascii: getBoolean(parsed, 'ascii') ?? false,
        exitCode: (summary) =>
          roundExitCode(
            summary,
            round,
            record.meta.agents.map((agent) => agent.agent),
          ),
        reopened: true,
        notify: getBoolean(parsed, 'notify') ?? notify,
      });
    },
  );
}

/**
 * 0 when the round's agent completed (for a rerun: the new agent, one the run did not have before);
 * a round that started no agent failed.
 */
const roundExitCode = (summary: RaceSummary, round: RoundRequest, before: readonly string[]): number => {
  if (summary.error !== null) return EXIT.failed;
  const agent =
    round.kind === 'follow_up'
      ? summary.agents.find((item) => item.agent === round.agent)
      : summary.agents.findLast((item) => item.rerunOf !== undefined && !before.includes(item.agent));
  return agent?.status === 'completed' ? EXIT.ok : EXIT.failed;
};
