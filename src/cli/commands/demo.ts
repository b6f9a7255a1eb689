/**
 * `hydra demo`: a real race, through the same adapters and engine, in a throwaway repository with
 * simulated agent CLIs that replay recorded streams and really edit files. No CLI or key needed.
 * `hydra demo --here` races them in the current repository instead. Given a prompt or `--check`
 * inside a repository, it races them in a copy of it (`--here`: in it), with the race's flags that
 * make sense for simulated agents, so checks, cross-testing and the merge show on the user's project.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyUserRepo, createDemoRepo } from '../../demo/demo-repo.js';
import { defaultScenarios, fakeBinaryName, installFakeAgents } from '../../demo/fake-bin.js';
import { buildRaceOptions, copyIncludedFiles, findRepoRoot, newRunId } from '../../engine/index.js';
import type { RaceFlags, RaceOptions } from '../../engine/index.js';
import { getBoolean, parseCommandArgs } from '../args.js';
import { raceFlags } from './race.js';
import type { CliContext } from '../context.js';
import { hydraCommand, nextStepLine } from '../hydra-command.js';
import { shellQuote } from '../shell-quote.js';
import { chooseMode, runRaceSession } from '../race-session.js';
import { requireRepo } from '../run-ids.js';
import { withRunLock } from '../run-lock.js';

export const DEMO_PROMPT = 'Create hello.txt containing a short greeting.';

/** The race's flags a race of simulated agents takes (no CLI, model, sandbox or runner to choose). */
const OPTIONS = {
  json: { type: 'boolean' },
  ascii: { type: 'boolean' },
  here: { type: 'boolean' },
  agents: { type: 'string', multiple: true },
  check: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  'idle-timeout': { type: 'string' },
  'keep-worktrees': { type: 'boolean' },
  'max-cost-usd': { type: 'string' },
  'auto-merge': { type: 'string' },
  unverified: { type: 'boolean' },
  'allow-test-changes': { type: 'boolean' },
  'no-cross-test': { type: 'boolean' },
} as const;

/** What the user asked the demo race: the prompt (the demo's own when none) and the race flags. */
interface DemoAsk {
  prompt: string;
  flags: RaceFlags;
  json: boolean;
  ascii: boolean;
}

export async function demoCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('demo', args, OPTIONS);
  const prompt = parsed.positionals.join(' ').trim();
  const ask: DemoAsk = {
    prompt: prompt === '' ? DEMO_PROMPT : prompt,
    flags: raceFlags(parsed, 'demo'),
    json: getBoolean(parsed, 'json') ?? false,
    ascii: getBoolean(parsed, 'ascii') ?? false,
  };
  if (getBoolean(parsed, 'here') ?? false) return demoHere(ctx, ask);
  // A prompt or a check of the user's, inside a repository: the race is on (a copy of) their project.
  const root = prompt !== '' || ask.flags.checks !== undefined ? findRepoRoot(ctx.cwd) : null;

  const base = await mkdtemp(path.join(tmpdir(), 'hydra-demo-'));
  const repo =
    root === null
      ? await createDemoRepo(path.join(base, 'greeter'))
      : await copyUserRepo(root, path.join(base, path.basename(root)));
  if (root !== null) await copyIncludedFiles({ checkout: root, target: repo, patterns: [] });
  const binDir = path.join(base, 'bin');
  const ids = await installDemoAgents(binDir);
  ctx.note(
    root === null
      ? `hydra demo: a throwaway repository at ${repo}, with simulated ${listInWords(ids)} agents`
      : `hydra demo: a copy of ${root} at ${repo} (its committed HEAD, and the ignored files .worktreeinclude names; your checkout is not touched), with simulated ${listInWords(ask.flags.agents ?? ids)} agents: ${SIMULATED}`,
  );

  const options: RaceOptions = {
    ...demoRaceOptions(repo, binDir, ids, ask),
    cacheDir: path.join(base, 'cache'),
    worktreeRoot: path.join(base, 'worktrees'),
  };
  // Suggestions name a hydra that runs from anywhere: `hydra` once installed, else this one by path.
  const hydra = hydraCommand(ctx.env).command;
  const code = await runRaceSession(ctx, options, {
    mode: chooseMode(ctx, ask.json),
    ascii: ask.ascii,
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

/** What the simulated agents do with a prompt of the user's: they replay what they recorded. */
const SIMULATED =
  'they replay recorded work (hello.txt), whatever the prompt; your checks, cross-testing and the merge are real';

/**
 * A race of the simulated agents in `binDir`, named by path (nothing on PATH), with the race flags
 * given (`--agents` among the simulated ones, `--check`, timeouts, `--auto-merge best`...). No
 * hydra.toml is read: the race is the flags' alone, unsandboxed, as the simulated CLIs need nothing.
 */
const demoRaceOptions = (repo: string, binDir: string, ids: readonly string[], ask: DemoAsk): RaceOptions => {
  const built = buildRaceOptions(
    {},
    { ...ask.flags, agents: ask.flags.agents ?? [...ids], allowExperimental: true, sandbox: 'off' },
    { repoPath: repo, prompt: ask.prompt },
  );
  return {
    ...built,
    agents: built.agents.map((plan) => ({
      ...plan,
      binary: path.join(binDir, fakeBinaryName(plan.adapterId)),
      idleTimeoutMs: ask.flags.idleTimeoutS === undefined ? 60_000 : plan.idleTimeoutMs,
    })),
    unsafe: false,
    prices: {},
    configSnapshot: { demo: true },
  };
};

/**
 * `hydra demo --here`: the simulated agents race in the current repository, from its HEAD, as a
 * real race does (same worktrees, branches, records and rules for uncommitted work). Their CLIs
 * live in a temp directory and are named by path, so nothing is installed on PATH; the directory
 * stays, so a follow-up (`hydra continue`) finds them again.
 */
async function demoHere(ctx: CliContext, ask: DemoAsk): Promise<number> {
  const root = requireRepo(ctx.cwd);
  const binDir = await mkdtemp(path.join(tmpdir(), 'hydra-demo-agents-'));
  const ids = await installDemoAgents(binDir);
  ctx.note(
    `hydra demo --here: simulated ${listInWords(ids)} agents (recorded replays, no AI and no API key) race in ${root}; their CLIs are in ${binDir}, not on PATH${ask.prompt === DEMO_PROMPT ? '' : `; ${SIMULATED}`}`,
  );
  const options: RaceOptions = { ...demoRaceOptions(ctx.cwd, binDir, ids, ask), runId: newRunId() };
  const runId = options.runId ?? '';
  const code = await withRunLock(
    ctx.cwd,
    runId,
    `hydra demo --here (run ${runId})`,
    'the race does not start',
    () =>
      runRaceSession(ctx, options, {
        mode: chooseMode(ctx, ask.json),
        ascii: ask.ascii,
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
