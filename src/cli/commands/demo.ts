/**
 * `hydra demo`: a real race, through the same adapters and engine, in a throwaway repository with
 * simulated agent CLIs that replay recorded streams and really edit files. No CLI or key needed.
 * `hydra demo --here` races them in the current repository instead.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDemoRepo } from '../../demo/demo-repo.js';
import { defaultScenarios, fakeBinaryName, installFakeAgents } from '../../demo/fake-bin.js';
import { CONFIG_DEFAULTS, newRunId } from '../../engine/index.js';
import type { AgentPlan, RaceOptions } from '../../engine/index.js';
import { getBoolean, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { hydraCommand, nextStepLine } from '../hydra-command.js';
import { shellQuote } from '../shell-quote.js';
import { chooseMode, runRaceSession } from '../race-session.js';
import { requireRepo } from '../run-ids.js';
import { withRunLock } from '../run-lock.js';

export const DEMO_PROMPT = 'Create hello.txt containing a short greeting.';

export async function demoCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('demo', args, {
    json: { type: 'boolean' },
    ascii: { type: 'boolean' },
    here: { type: 'boolean' },
  });
  noExtraArguments('demo', parsed.positionals);
  const json = getBoolean(parsed, 'json') ?? false;
  const ascii = getBoolean(parsed, 'ascii') ?? false;
  if (getBoolean(parsed, 'here') ?? false) return demoHere(ctx, json, ascii);

  const base = await mkdtemp(path.join(tmpdir(), 'hydra-demo-'));
  const repo = await createDemoRepo(path.join(base, 'greeter'));
  const binDir = path.join(base, 'bin');
  const ids = await installDemoAgents(binDir);
  ctx.note(`hydra demo: a throwaway repository at ${repo}, with simulated ${listInWords(ids)} agents`);

  const options: RaceOptions = {
    ...demoRaceOptions(repo, binDir, ids),
    cacheDir: path.join(base, 'cache'),
    worktreeRoot: path.join(base, 'worktrees'),
  };
  // Suggestions name a hydra that runs from anywhere: `hydra` once installed, else this one by path.
  const hydra = hydraCommand(ctx.env).command;
  const code = await runRaceSession(ctx, options, {
    mode: chooseMode(ctx, json),
    ascii,
    commandPrefix: `cd ${shellQuote(repo)} && ${hydra}`,
  });
  ctx.note(
    `hydra demo: the repository is at ${repo} (look around with git log --all; remove it with rm -rf ${shellQuote(base)})`,
  );
  ctx.note(nextStepLine(ctx.env, ctx.cwd));
  return code;
}

/** Each adapter paces its own replay, so a newcomer can watch the race unfold (a few seconds). */
async function installDemoAgents(binDir: string): Promise<string[]> {
  const scenarios = defaultScenarios();
  await installFakeAgents(binDir, scenarios);
  return Object.values(scenarios).map((scenario) => scenario.agent);
}

/** A race of the simulated agents in `binDir`, named by path (nothing on PATH). */
const demoRaceOptions = (repo: string, binDir: string, ids: readonly string[]): RaceOptions => ({
  repoPath: repo,
  prompt: DEMO_PROMPT,
  agents: ids.map((id): AgentPlan => ({
    adapterId: id,
    binary: path.join(binDir, fakeBinaryName(id)),
    extraArgs: [],
    env: {},
    idleTimeoutMs: 60_000,
  })),
  allowExperimental: true,
  timeoutMs: CONFIG_DEFAULTS.timeoutS * 1000,
  unsafe: false,
  keepWorktrees: false,
  prices: {},
  configSnapshot: { demo: true },
});

/**
 * `hydra demo --here`: the simulated agents race in the current repository, from its HEAD, as a
 * real race does (same worktrees, branches, records and rules for uncommitted work). Their CLIs
 * live in a temp directory and are named by path, so nothing is installed on PATH; the directory
 * stays, so a follow-up (`hydra continue`) finds them again.
 */
async function demoHere(ctx: CliContext, json: boolean, ascii: boolean): Promise<number> {
  const root = requireRepo(ctx.cwd);
  const binDir = await mkdtemp(path.join(tmpdir(), 'hydra-demo-agents-'));
  const ids = await installDemoAgents(binDir);
  ctx.note(
    `hydra demo --here: simulated ${listInWords(ids)} agents (recorded replays, no AI and no API key) race in ${root}; their CLIs are in ${binDir}, not on PATH`,
  );
  const options: RaceOptions = { ...demoRaceOptions(ctx.cwd, binDir, ids), runId: newRunId() };
  const runId = options.runId ?? '';
  const code = await withRunLock(
    ctx.cwd,
    runId,
    `hydra demo --here (run ${runId})`,
    'the race does not start',
    () =>
      runRaceSession(ctx, options, {
        mode: chooseMode(ctx, json),
        ascii,
        marker: 'simulated agents',
      }),
  );
  ctx.note(
    `hydra demo --here: those were simulated agents, not AI: their results are branches hydra/${runId}/<agent> (hydra clean ${runId} removes them)`,
  );
  return code;
}

/** "a", "a and b", "a, b and c". */
const listInWords = (items: readonly string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
