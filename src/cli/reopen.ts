/**
 * A recorded race, opened again (`hydra continue`, `hydra rerun`, `hydra race --resume-dashboard`,
 * `hydra show --tui`): its record read and checked, the config it ran with (or --config) loaded
 * again under the same trust rules, and the RaceOptions that reopen it.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { adapterIds } from '../adapters/registry.js';
import {
  buildRaceOptions,
  checkConfiguredBinaries,
  configWarnings,
  displayPath,
  loadConfig,
  readRun,
  reopenFromRecord,
  resolveRunName,
} from '../engine/index.js';
import type { RaceFlags, RaceOptions, RoundRequest, RunRecord } from '../engine/index.js';
import type { CliContext } from './context.js';
import { requireRepo } from './run-ids.js';
import { CommandError, UsageError } from './errors.js';
import { chooseMode, runRaceSession } from './race-session.js';
import { withCursorSetup } from './cursor-setup.js';
import { withRunLock } from './run-lock.js';
import { refuseUntrustedContainer } from './trust-hints.js';

/**
 * The flags a race recorded (meta.json `config.flags`), as far as a later round may use them. A
 * record is data: `unsafe` is never taken from it (give --unsafe again), the rest is checked. Its
 * `--check` commands are the ones the user typed for this race (hydra writes the record in the
 * repository's `.hydra/`, outside every agent's worktree), run as the race ran them.
 */
const recordedFlagsSchema = z.object({
  agents: z.array(z.string()).optional(),
  repeat: z.number().int().positive().optional(),
  models: z.record(z.string(), z.string()).optional(),
  idleTimeoutS: z.number().finite().nonnegative().optional(),
  timeoutS: z.number().finite().nonnegative().optional(),
  allowExperimental: z.boolean().optional(),
  keepWorktrees: z.boolean().optional(),
  runner: z.enum(['local', 'container']).optional(),
  // How the race verified its results, so a round is verified the same way (issue 34): its
  // `--check`s (the commands the user typed, `auto` already resolved), cross-testing, test changes.
  checks: z.array(z.string()).optional(),
  crossTest: z.literal(false).optional(),
  allowTestChanges: z.boolean().optional(),
});

const recordedConfigSchema = z.object({
  file: z.string().nullable().optional(),
  flags: z.unknown().optional(),
});

export interface ReopenRequest {
  /** The run id (or a unique prefix) as the user gave it. */
  run: string;
  /** `--config <file>`, which replaces the config the race ran with. */
  configPath?: string;
  /** `--unsafe`, given again: never taken from a record. */
  unsafe?: boolean;
  /** Flags given to this round (`--timeout`, `--max-cost-usd`...), over the recorded ones. */
  flags?: RaceFlags;
  /** `--sandbox`, given again: never taken from a record. */
  sandbox?: 'auto' | 'required' | 'off';
  round?: RoundRequest;
}

export interface Reopened {
  options: RaceOptions;
  record: RunRecord;
  /** `[ui] notify` in the config the round runs with (`--notify` turns it on too). */
  notify: boolean;
}

/** The options that reopen a recorded run, with what the CLI tells the user about its config. */
export async function reopenRun(ctx: CliContext, request: ReopenRequest): Promise<Reopened> {
  const root = requireRepo(ctx.cwd);
  const entry = await resolveRunName(root, request.run);
  if (entry.state === 'running') {
    throw new CommandError({
      message: `run ${entry.runId} is still in use by another hydra`,
      hint: 'wait for it to end (or finish it there), then try again',
    });
  }
  const record = await readRun(root, entry.runId);
  if (request.round !== undefined) assertAgentOf(record, request.round.agent);
  const recorded = recordedConfigSchema.safeParse(record.meta.config);
  const recordedFile = recorded.success ? recorded.data.file : null;
  const loaded = loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(request.configPath !== undefined
      ? { explicitPath: request.configPath }
      : usableRecordedFile(recordedFile)
        ? { recordedPath: recordedFile }
        : {}),
  });
  const configName = loaded.path === null ? undefined : displayPath(loaded.path, ctx.cwd);
  const flags = {
    ...recordedFlags(recorded.success ? recorded.data.flags : undefined, record),
    ...request.flags,
  };
  if (request.unsafe === true) flags.unsafe = true;
  if (request.sandbox !== undefined) flags.sandbox = request.sandbox;
  const options = buildRaceOptions(loaded.config, flags, {
    repoPath: root,
    prompt: record.meta.prompt,
    configPath: loaded.path,
    ...(configName === undefined ? {} : { configName }),
  });
  checkConfiguredBinaries(options.agents, ctx.env, configName);
  refuseUntrustedContainer(loaded, flags.runner !== undefined, ctx.cwd);
  options.runId = record.runId;
  options.reopen = reopenFromRecord(record, request.round);
  const warnings = configWarnings(loaded, ctx.cwd);
  // A rerun's new worktree is set up as the race's were (`.cursor/worktrees.json` once trusted).
  const setup = withCursorSetup(options, ctx.env);
  if (setup !== null) warnings.push(setup);
  if (warnings.length > 0) options.warnings = warnings;
  return { options, record, notify: loaded.config.ui?.notify === true };
}

/** A recorded config path is used only when it is an absolute path to a file that is still there. */
const usableRecordedFile = (file: string | null | undefined): file is string =>
  typeof file === 'string' && isAbsolute(file) && existsSync(file);

/**
 * The race's recorded flags that still apply. Its `--agents` as typed make the same named agents
 * again; without them, the run's own agents (the ones a rerun did not add) are the list.
 */
function recordedFlags(raw: unknown, record: RunRecord): RaceFlags {
  const parsed = recordedFlagsSchema.safeParse(raw ?? {});
  const flags: RaceFlags = parsed.success ? { ...parsed.data } : {};
  if (flags.agents === undefined) {
    const reruns = new Set(
      (record.summary?.agents ?? [])
        .filter((agent) => agent.rerunOf !== undefined)
        .map((agent) => agent.agent),
    );
    flags.agents = record.meta.agents.map((agent) => agent.agent).filter((agent) => !reruns.has(agent));
  }
  // Reopening the run of an experimental agent is the opt-in it already gave.
  flags.allowExperimental = true;
  return flags;
}

/**
 * The agent a round is for must be one of the run's, with an entry that read back whole and a CLI
 * this hydra has: otherwise the round would start nothing (and say nothing).
 */
function assertAgentOf(record: RunRecord, agent: string): void {
  const planned = record.meta.agents.find((item) => item.agent === agent);
  if (planned === undefined) {
    const names = record.meta.agents.map((item) => item.agent).join(', ');
    throw new UsageError({
      message: `run ${record.runId} has no agent "${agent}"; its agents: ${names}`,
      hint: `see the run with: hydra show ${record.runId}`,
    });
  }
  const damaged = record.damagedAgents?.find((item) => item.agent === agent);
  if (damaged !== undefined) {
    throw new CommandError({
      message: `the record of ${agent} in run ${record.runId} is damaged (${damaged.problem}), so hydra will not run it again`,
      hint: `its other agents still work; \`hydra clean ${record.runId}\` removes the run`,
    });
  }
  if (!adapterIds().includes(planned.adapter)) {
    throw new CommandError({
      message: `run ${record.runId} records agent ${agent} as running "${planned.adapter}", a CLI this hydra does not have (meta.json was edited, or written by another hydra)`,
      hint: `start a new race instead: hydra race --agents <agent> "<prompt>"; \`hydra clean ${record.runId}\` removes the run`,
    });
  }
}

/**
 * `hydra race --resume-dashboard <run>` and `hydra show <run> --tui`: the dashboard on a finished
 * race, for review, follow-ups and merging. It needs a terminal.
 */
export async function reviewInDashboard(
  ctx: CliContext,
  run: string,
  flags: { configPath?: string; ascii: boolean },
): Promise<number> {
  if (chooseMode(ctx, false) !== 'dashboard') {
    throw new UsageError({
      message: 'the dashboard needs a terminal (stdout is not one, or this is CI)',
      hint: `see the run as text with: hydra show ${run}`,
    });
  }
  // The dashboard can start rounds and merge: it holds the run's lock while it is open.
  const { runId } = await resolveRunName(requireRepo(ctx.cwd), run);
  return withRunLock(
    ctx.cwd,
    runId,
    `hydra dashboard (run ${runId})`,
    'the dashboard does not open',
    async () => {
      const { options } = await reopenRun(ctx, {
        run: runId,
        ...(flags.configPath === undefined ? {} : { configPath: flags.configPath }),
      });
      return runRaceSession(ctx, options, { mode: 'dashboard', ascii: flags.ascii });
    },
  );
}
