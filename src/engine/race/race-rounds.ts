/**
 * Another round for one settled agent of a race (or of a reopened run): a follow-up that continues
 * its session on its branch, or a rerun from the base on a new branch `hydra/<run>/<agent>-2`. The
 * race machine's `prepareRound` actor makes the worktree (again) and builds the launch; the race
 * machine runs it like any other agent. Reopening a recorded run is race-reopen.ts.
 */
import { existsSync } from 'node:fs';
import { fromPromise } from 'xstate';
import { emptyUsage, ev } from '../../core/events.js';
import { nothingYet } from './fresh-agent.js';
import type { AgentEvent, ProgressEvent } from '../../core/events.js';
import { isSessionId } from '../../adapters/types.js';
import type { AdapterId, Capabilities } from '../../adapters/types.js';
import { oneLine } from '../../core/text.js';
import type { AgentLaunch } from '../agent/index.js';
import { EngineError } from '../errors.js';
import { createWorktree, reopenWorktree, snapshotRefs } from '../git/index.js';
import { copyIncludedFiles } from '../setup/index.js';
import type { CopyRequest } from '../setup/index.js';
import type { RepoCheck } from '../git/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { PortLeases } from '../setup/index.js';
import { RUN_ID_ENV } from '../process/index.js';
import {
  agentWorktreeDir,
  branchName,
  defaultCacheDir,
  readRecordDir,
  runRecordDir,
  runWorktreesDir,
  writeMeta,
} from '../records/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentRound } from '../records/index.js';
import type { AgentSnapshot } from './race-handle.js';
import type { RoundRequest } from '../config/index.js';
import type { ResolvedRaceOptions } from './race-types.js';
import { prepareAgentGit } from './agent-launch.js';
import { setupPlanOf } from '../setup/index.js';
import type { SetupPlan } from '../setup/index.js';
import { launchFor, planNameOf } from './round-launch.js';
import { usable } from './prepared.js';
import { agentNameOf } from '../agent-name.js';
import { probeAgents } from '../probe/index.js';
import type { Prepared } from './prepared.js';

/** The stage of the `progress` event that divides one round of an agent's events from the next. */
export const ROUND_STAGE = 'round';

export interface RoundInput {
  request: RoundRequest;
  options: ResolvedRaceOptions;
  repo: RepoCheck;
  reports: AgentProbeReport[];
  /** The agent the round is for, and its current launch. */
  agent: AgentSnapshot;
  launch: AgentLaunch;
  /** Every agent id in the race (a rerun takes the next free `<agent>-N`). */
  taken: AdapterId[];
  processes: ProcessRegistry;
  /** The race's port blocks: a follow-up keeps its agent's block (while held), a rerun takes one. */
  ports: PortLeases;
}

export interface RoundStart {
  launch: AgentLaunch;
  /** The agent's snapshot as the round starts (a rerun's is new). */
  agent: AgentSnapshot;
  /** The line that divides this round's events from the last ones'. */
  divider: AgentEvent;
}

export const prepareRoundLogic = fromPromise<RoundStart, Prepared<RoundInput>>(async (args) => {
  const input = usable(args.input);
  return input.request.kind === 'follow_up'
    ? followUp(input, input.request.prompt, args.signal)
    : rerun(input, args.signal);
});

/**
 * The capabilities a round runs with: the race's probe report of the agent, or (a reopened review,
 * which probed nothing) one probe of that agent now, cached like any other.
 */
const readyCapabilities = async (input: RoundInput, planName: AgentName): Promise<Capabilities> => {
  const report = input.reports.find((item) => item.agent === planName) ?? (await probeOne(input, planName));
  if (report?.status === 'ready' && report.capabilities !== null) return report.capabilities;
  throw new EngineError({
    kind: 'Refused',
    message: `${input.agent.displayName} cannot run now: ${report?.error?.message ?? 'it was not probed as ready'}`,
    hint: report?.error?.hint ?? 'Run `hydra doctor` to see what is missing.',
  });
};

async function probeOne(input: RoundInput, planName: AgentName): Promise<AgentProbeReport | undefined> {
  const plan = input.options.agents.find((item) => agentNameOf(item) === planName);
  if (plan === undefined) return undefined;
  const [report] = await probeAgents([plan], {
    cacheDir: input.options.cacheDir ?? defaultCacheDir(input.repo.root),
    allowExperimental: input.options.allowExperimental,
    unsafe: input.options.unsafe,
    processes: input.processes,
  });
  return report;
}

/** A follow-up: the same branch and worktree (made again if it was removed), the session continued. */
async function followUp(input: RoundInput, prompt: string, signal: AbortSignal): Promise<RoundStart> {
  const { agent, launch, options, repo } = input;
  const planName = planNameOf(agent);
  const capabilities = await readyCapabilities(input, planName);
  // A worktree made again is a fresh checkout: it is set up again (src/engine/setup).
  const remade = !existsSync(launch.worktree);
  if (remade) {
    await reopenWorktree(repo.root, launch.worktree, launch.branch, gitOptions(input, signal, 'reopen'));
    await copyIncludedFiles(copyRequest(input, launch.worktree));
  }
  const resume =
    capabilities.features['resume'] === true && isSessionId(agent.sessionId) ? agent.sessionId : undefined;
  const round = (agent.rounds?.length ?? 1) + 1;
  const next = await launchFor(options, repo, agent.agent, planName, capabilities, {
    prompt,
    port: await input.ports.lease(agent.agent),
    ...(resume === undefined ? {} : { resumeSessionId: resume }),
    // In a container, where it ran: its session store's volume is there.
    ...(agent.host === undefined ? {} : { stayOn: agent.host }),
  });
  const warnings =
    resume !== undefined
      ? []
      : [
          `${agent.displayName} ${capabilities.features['resume'] === true ? 'reported no session id' : `${capabilities.version ?? ''} cannot resume a session`.replace('  ', ' ')}: round ${round} starts a new session on the same branch.`,
        ];
  const rounds: AgentRound[] = [
    ...(agent.rounds ?? [
      { prompt: options.prompt, usage: agent.usage, startedAt: agent.startedAt, endedAt: agent.endedAt },
    ]),
    { prompt, usage: emptyUsage(), startedAt: null, endedAt: null },
  ];
  return {
    launch: await prepareAgentGit({
      ...next,
      ...setupOf(options, repo, agent.agent, remade),
      round,
      refsAtStart: await snapshotRefs(repo.root, options.runId),
    }),
    agent: {
      ...agent,
      // Where this round runs (`continue --runner local` after a container race runs here).
      ...roundRunner(agent, next),
      status: 'spawning',
      startedAt: null,
      endedAt: null,
      exitCode: null,
      error: null,
      worktree: launch.worktree,
      capabilities,
      port: next.port ?? null,
      sandbox: next.sandbox?.mechanism ?? null,
      // Checked and scored again once the round's work is in.
      checks: null,
      checking: false,
      score: null,
      rounds,
      warnings: [...agent.warnings, ...warnings.filter((warning) => !agent.warnings.includes(warning))],
    },
    divider: divider(round, prompt, resume),
  };
}

/** A round's runner and host: its launch's; `local` (no host) for one that ran in a container before. */
export const roundRunner = (
  agent: Pick<AgentSnapshot, 'runner' | 'host'>,
  launch: Pick<AgentLaunch, 'container'>,
): Pick<AgentSnapshot, 'runner' | 'host'> =>
  launch.container
    ? { runner: 'container', host: launch.container.host }
    : { ...(agent.runner === undefined ? {} : { runner: 'local' }), host: undefined };

/** The setup of a round's worktree when it is new (`fresh`): the race's commands, logged in its record. */
const setupOf = (
  options: ResolvedRaceOptions,
  repo: RepoCheck,
  agent: AgentName,
  fresh: boolean,
): { setup?: SetupPlan } => {
  const setup = fresh ? setupPlanOf(options.setup, runRecordDir(repo.root, options.runId), agent) : null;
  return setup === null ? {} : { setup };
};

/** A rerun: a new agent `<agent>-N` on a new branch from the base, with the race's prompt. */
async function rerun(input: RoundInput, signal: AbortSignal): Promise<RoundStart> {
  const { options, repo } = input;
  // The new agent keeps nothing of the old one's session or rounds.
  const { sessionId: _session, rounds: _rounds, runner: _runner, host: _host, ...agent } = input.agent;
  const planName = planNameOf(agent);
  const capabilities = await readyCapabilities(input, planName);
  const name = nextName(planName, input.taken);
  const runDir = runWorktreesDir(options.worktreeRoot, repo.root, options.runId);
  const worktree = agentWorktreeDir(runDir, name);
  const branch = branchName(options.runId, name);
  const launch = await launchFor(options, repo, name, planName, capabilities, {
    prompt: (input.request.kind === 'rerun' ? input.request.prompt : undefined) ?? options.prompt,
    port: await input.ports.lease(name),
  });
  // Named in meta.json before git runs, so `hydra clean` finds it whatever happens next.
  recordAgent(repo.root, options.runId, launch, capabilities);
  await createWorktree(repo.root, worktree, branch, repo.baseRef, gitOptions(input, signal, 'add'));
  await copyIncludedFiles(copyRequest(input, worktree));
  return {
    launch: await prepareAgentGit({
      ...launch,
      ...setupOf(options, repo, name, true),
      refsAtStart: await snapshotRefs(repo.root, options.runId),
    }),
    agent: {
      ...agent,
      agent: name,
      rerunOf: planName,
      displayName: name,
      status: 'spawning',
      ...nothingYet(),
      branch,
      worktree,
      capabilities,
      port: launch.port ?? null,
      // What sandboxes this round (the summary's `sandbox`, as the first round's).
      sandbox: launch.sandbox?.mechanism ?? null,
      ...(launch.container ? { runner: 'container' as const, host: launch.container.host } : {}),
    },
    divider: ev({ kind: 'progress', stage: ROUND_STAGE, detail: `rerun of ${agent.agent} from the base` }),
  };
}

/** `claude` → `claude-2`, then `claude-3` (a rerun of `claude-2` reruns `claude`: `claude-3`). */
export const nextName = (base: AgentName, taken: readonly AgentName[]): AgentName => {
  for (let n = 2; ; n += 1) {
    const name = `${base}-${n}`;
    if (!taken.includes(name)) return name;
  }
};

const divider = (round: number, prompt: string, resumed: string | undefined): ProgressEvent =>
  ev({
    kind: 'progress',
    stage: ROUND_STAGE,
    detail: `round ${round}${resumed === undefined ? ' (new session)' : ''}: ${oneLine(prompt)}`,
  });

const gitOptions = (input: RoundInput, signal: AbortSignal, what: string) => ({
  signal,
  step: `git worktree ${what} for ${input.agent.agent}`,
  graceMs: input.options.killGraceMs,
  env: { [RUN_ID_ENV]: input.options.runId },
  processes: input.processes,
  owner: input.options.runId,
});

/** The user's ignored files a worktree made again gets (setup/copy.ts), recorded in the run. */
const copyRequest = (input: RoundInput, target: string): CopyRequest => ({
  checkout: input.repo.root,
  target,
  patterns: input.options.setup?.copy ?? [],
  recordDir: runRecordDir(input.repo.root, input.options.runId),
});

/** Adds a rerun's agent to meta.json (its branch and worktree), so clean and merge know it. */
function recordAgent(root: string, runId: string, launch: AgentLaunch, capabilities: Capabilities): void {
  const dir = runRecordDir(root, runId);
  const loaded = readRecordDir(dir, runId, false);
  if (loaded.kind !== 'ok') {
    throw new EngineError({
      kind: 'Refused',
      message: `The record of run ${runId} cannot be updated: ${loaded.problem}.`,
      hint: '`hydra clean` removes the run; start a new race.',
    });
  }
  const { meta } = loaded.record;
  writeMeta(dir, {
    ...meta,
    agents: [
      ...meta.agents.filter((item) => item.agent !== launch.agent),
      {
        agent: launch.agent,
        adapter: launch.adapter,
        branch: launch.branch,
        worktree: launch.worktree,
        version: capabilities.version,
        capabilities,
        command: [launch.command.file, ...launch.command.args],
      },
    ],
  });
}
