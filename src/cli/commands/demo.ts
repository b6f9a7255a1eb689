/**
 * `hydra demo`: a real race, through the same adapters and engine, in a throwaway repository with
 * simulated agent CLIs that replay recorded streams and really edit files. No CLI or key needed.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDemoRepo } from '../../demo/demo-repo.js';
import { defaultScenarios, fakeBinaryName, installFakeAgents } from '../../demo/fake-bin.js';
import { CONFIG_DEFAULTS } from '../../engine/index.js';
import type { AgentPlan, RaceOptions } from '../../engine/index.js';
import { getBoolean, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { UsageError, seeHelp } from '../errors.js';
import { hydraCommand, nextStepLine } from '../hydra-command.js';
import { shellQuote } from '../shell-quote.js';
import { chooseMode, runRaceSession } from '../race-session.js';

export const DEMO_PROMPT = 'Create hello.txt containing a short greeting.';

export async function demoCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('demo', args, { json: { type: 'boolean' }, ascii: { type: 'boolean' } });
  if (parsed.positionals.length > 0)
    throw new UsageError({
      message: `unexpected argument "${parsed.positionals[0]}"`,
      hint: seeHelp('demo'),
    });

  const base = await mkdtemp(path.join(tmpdir(), 'hydra-demo-'));
  const repo = await createDemoRepo(path.join(base, 'greeter'));
  const binDir = path.join(base, 'bin');
  // Each adapter paces its own replay so a newcomer can watch the race unfold (a few seconds,
  // finishing in a different order).
  const scenarios = defaultScenarios();
  await installFakeAgents(binDir, scenarios);
  const ids = Object.values(scenarios).map((scenario) => scenario.agent);
  ctx.note(`hydra demo: a throwaway repository at ${repo}, with simulated ${listInWords(ids)} agents`);

  const agents = ids.map((id): AgentPlan => ({
    adapterId: id,
    binary: path.join(binDir, fakeBinaryName(id)),
    extraArgs: [],
    env: {},
    idleTimeoutMs: 60_000,
  }));
  const options: RaceOptions = {
    repoPath: repo,
    prompt: DEMO_PROMPT,
    agents,
    allowExperimental: true,
    timeoutMs: CONFIG_DEFAULTS.timeoutS * 1000,
    unsafe: false,
    keepWorktrees: false,
    prices: {},
    configSnapshot: { demo: true },
    cacheDir: path.join(base, 'cache'),
    worktreeRoot: path.join(base, 'worktrees'),
  };
  const json = getBoolean(parsed, 'json') ?? false;
  // Suggestions name a hydra that runs from anywhere: `hydra` once installed, else this one by path.
  const hydra = hydraCommand(ctx.env).command;
  const code = await runRaceSession(ctx, options, {
    mode: chooseMode(ctx, json),
    ascii: getBoolean(parsed, 'ascii') ?? false,
    commandPrefix: `cd ${shellQuote(repo)} && ${hydra}`,
  });
  ctx.note(
    `hydra demo: the repository is at ${repo} (look around with git log --all; remove it with rm -rf ${shellQuote(base)})`,
  );
  ctx.note(nextStepLine(ctx.env, ctx.cwd));
  return code;
}

/** "a", "a and b", "a, b and c". */
const listInWords = (items: readonly string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
