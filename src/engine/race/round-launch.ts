/**
 * The launch of an agent in a reopened run or a later round: built by agent-launch.ts for the
 * configured agent it runs as (a rerun's original), and for a container agent placed on its engine
 * with its CLI probed in the image there.
 */
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { loadPriceDatabase } from '../../adapters/prices.js';
import type { Capabilities } from '../../adapters/types.js';
import type { AgentLaunch } from '../agent/index.js';
import { agentNameOf } from '../agent-name.js';
import { EngineError } from '../errors.js';
import type { RepoCheck } from '../git/index.js';
import { agentScratchDir, defaultCacheDir, runRecordDir, runWorktreesDir } from '../records/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentSnapshot } from './race-handle.js';
import type { ResolvedRaceOptions } from './race-types.js';
import { buildLaunch } from './agent-launch.js';
import { sandboxVerdict } from '../sandbox/index.js';
import { containerRunner, DEFAULT_CONTAINER } from '../container/index.js';
import { devcontainerStep } from './race-image.js';

/** The configured agent whose settings (plan, probe) an agent runs with: a rerun's original's. */
export const planNameOf = (agent: Pick<AgentSnapshot, 'agent' | 'rerunOf'>): AgentName =>
  agent.rerunOf ?? agent.agent;

/**
 * A recorded agent's launch for a review (`hydra show --tui`): its branch, worktree and places,
 * built without probing its CLI or placing its container. Its command is never run: a round asked
 * for later builds its own with launchFor, after probing that one agent. Null when the config it
 * was reopened with has no such agent.
 */
export function reviewLaunchFor(
  options: ResolvedRaceOptions,
  repo: RepoCheck,
  agent: AgentName,
  planName: AgentName,
): AgentLaunch | null {
  const plan = options.agents.find((item) => agentNameOf(item) === planName);
  if (plan === undefined) return null;
  const capabilities: Capabilities = {
    adapterId: plan.adapterId,
    binary: plan.binary ?? plan.adapterId,
    version: null,
    flags: [],
    features: {},
    confidence: 'inferred',
    warnings: [],
  };
  return buildLaunch({ options, repo, plan, agent, capabilities, prompt: options.prompt });
}

/** One agent's launch: its command built for the prompt (and session), in its own worktree. */
export async function launchFor(
  options: ResolvedRaceOptions,
  repo: RepoCheck,
  agent: AgentName,
  planName: AgentName,
  capabilities: Capabilities,
  ask: { prompt: string; resumeSessionId?: string; port?: number; stayOn?: string },
): Promise<AgentLaunch> {
  const plan = options.agents.find((item) => agentNameOf(item) === planName);
  if (plan === undefined)
    throw new EngineError({
      kind: 'Refused',
      message: `${planName} is not among the agents of the config this race was opened with.`,
      hint: 'Give the config it raced with: --config <file>.',
    });
  const runDir = runWorktreesDir(options.worktreeRoot, repo.root, options.runId);
  await Promise.all([mkdir(agentScratchDir(runDir, agent), { recursive: true }), loadPriceDatabase()]);
  const request = {
    options,
    repo,
    plan,
    agent,
    capabilities,
    prompt: ask.prompt,
    sandbox: await sandboxVerdict(options.sandbox),
    ...(ask.resumeSessionId === undefined ? {} : { resumeSessionId: ask.resumeSessionId }),
    ...(ask.port === undefined ? {} : { port: ask.port }),
  };
  const launch = buildLaunch(request);
  if (!launch.container) return launch;
  // A recorded host is used only when the config still names it (the record is not trusted).
  const settings = options.container ?? DEFAULT_CONTAINER;
  const stay = ask.stayOn !== undefined && settings.hosts.includes(ask.stayOn) ? ask.stayOn : undefined;
  // Its CLI probed in the image there (cached by image id): the command is built for that one. A
  // dev container's image is built again only when its definition changed (race-image.ts).
  const binary = launch.container.binaryPath ?? path.basename(launch.command.file);
  const image = devcontainerStep([{ ...launch, cli: { adapterId: launch.adapter, binary } }], settings, {
    repoRoot: repo.root,
    recordDir: runRecordDir(repo.root, options.runId),
  });
  const placed = await containerRunner.place(
    image.launches,
    image.settings,
    stay === undefined ? {} : { [agent]: stay },
    { cacheDir: options.cacheDir ?? defaultCacheDir(repo.root) },
  );
  const inImage = placed.capabilities[agent];
  const built = inImage === undefined ? launch : buildLaunch({ ...request, capabilities: inImage });
  return { ...built, container: placed.launches[0]?.container ?? launch.container };
}
