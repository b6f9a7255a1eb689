/**
 * Probing the race's agents: each agent's binary found (binaries.ts; a configured binary is the only
 * candidate), its adapter's probe run with the agent's configured env over the allowlisted part of
 * the caller's, as the race will run the agent (runner.ts, agent-env.ts), and the answer cached per
 * binary (cache.ts). One report per agent.
 */
import os from 'node:os';
import { AdapterError } from '../../adapters/errors.js';
import { adapterOf, binaryCandidates } from '../../adapters/registry.js';
import type {
  AgentAdapter,
  Capabilities,
  ProbeResult,
  ProbeRunner,
  SpawnRequest,
} from '../../adapters/types.js';
import type { ErrorInfo } from '../../core/events.js';
import { agentEnvironment } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';
import { configuredVariables } from '../sandbox/index.js';
import { knownSecrets, redactValue } from '../records/index.js';
import type { AgentPlan } from '../agent-plan.js';
import type { AgentProbeReport } from '../probe-types.js';
import { agentNameOf } from '../agent-name.js';
import { discoverBinaries } from './binaries.js';
import {
  cacheable,
  cacheKey,
  envHash,
  fromCache,
  identify,
  lookup,
  readCapabilityCache,
  writeCapabilityCache,
} from './cache.js';
import type { BinaryIdentity, CacheFile } from './cache.js';
import { createProbeRunner } from './runner.js';

export interface ProbeAgentsOptions {
  cacheDir: string;
  allowExperimental: boolean;
  /**
   * Runs every probe command (tests); by default a real runner with what the agent would get of
   * the caller's env (probeEnvironment) plus the agent's configured env.
   */
  run?: ProbeRunner;
  env?: NodeJS.ProcessEnv;
  /** The race's process registry, so an interrupted race kills its probes too (doctor has none). */
  processes?: ProcessRegistry;
  /** Build the sample command in unsafe mode (what `hydra race --unsafe` would run). */
  unsafe?: boolean;
  /**
   * Whether a race here sandboxes its agents (doctor's sandbox check, which may still be running
   * while the probes do): a sandboxed agent runs its CLI's no-approval mode, and so does the sample
   * command. A container agent always does (its container is its jail: agent-launch.ts).
   */
  sandboxed?: boolean | Promise<boolean>;
}

/** The prompt and paths used for a report's sample command. */
const SAMPLE_PROMPT = 'Say hello';

const sampleRequest = (plan: AgentPlan, unsafe: boolean, sandboxed: boolean): SpawnRequest => ({
  prompt: SAMPLE_PROMPT,
  cwd: '<worktree>',
  scratchDir: '<scratch>',
  ...(plan.model === undefined ? {} : { model: plan.model }),
  unsafe,
  sandboxed: sandboxed || plan.runner === 'container',
  ...(plan.maxTurns === undefined ? {} : { maxTurns: plan.maxTurns }),
  extraArgs: plan.extraArgs,
  env: plan.env,
});

interface ProbeSession {
  cache: CacheFile;
  dirty: boolean;
  /**
   * Probes under way or done in this session, by cache key (adapter, binary, configured env): agents
   * that share a binary (`opus` and `sonnet` over one claude) probe it once.
   */
  probes: Map<string, Promise<{ result: ProbeResult; cached: boolean }>>;
  env: NodeJS.ProcessEnv;
}

const baseReport = (adapter: AgentAdapter, plan: AgentPlan): AgentProbeReport => ({
  agent: agentNameOf(plan),
  adapterId: adapter.id,
  displayName: adapter.displayName,
  tier: adapter.tier,
  status: 'missing',
  binary: null,
  version: null,
  capabilities: null,
  command: null,
  warnings: [],
  error: null,
  cached: false,
});

const missingError = (
  adapter: AgentAdapter,
  table: string,
  configured: string | undefined,
  tried: string[],
): ErrorInfo => {
  const install = adapter.installHint;
  if (configured !== undefined && configured !== '') {
    return {
      kind: 'BinaryMissing',
      message: `${adapter.displayName} was not found: agents.${table}.binary = "${configured}" does not exist or is not executable (hydra does not fall back to another ${adapter.id} on PATH)`,
      hint: `Fix agents.${table}.binary in hydra.toml (relative paths start from the config file's directory), or remove it to use ${adapter.id} from PATH`,
    };
  }
  return {
    kind: 'BinaryMissing',
    message: `${adapter.displayName} was not found on PATH (tried ${tried.join(', ')})`,
    hint: `Install it with: ${install}`,
  };
};

/**
 * A container agent whose CLI is not on this machine: its image is what runs it, so it is ready here
 * and its CLI is decided by the probe in the image when the race places it (placement.ts), which
 * replaces these capabilities or names the image that lacks the CLI and how to add it.
 */
const inImageOnly = (
  adapter: AgentAdapter,
  report: AgentProbeReport,
  configured: string | undefined,
): AgentProbeReport => {
  const binary = configured ?? binaryCandidates(adapter, undefined)[0] ?? adapter.id;
  return {
    ...report,
    status: 'ready',
    capabilities: {
      adapterId: adapter.id,
      binary,
      version: null,
      flags: [],
      features: {},
      confidence: 'inferred',
      warnings: [],
    },
    warnings: [`${adapter.displayName} is not on this machine: its container's image is probed for it`],
  };
};

const probeOne = async (
  adapter: AgentAdapter,
  path: string,
  session: ProbeSession,
  probe: { run: ProbeRunner; envKey: string },
): Promise<{ result: ProbeResult; cached: boolean }> => {
  const identity = await identify(path);
  if (identity === null) return probeBinary(adapter, path, identity, session, probe);
  const key = cacheKey(adapter.id, identity, probe.envKey);
  const started = session.probes.get(key);
  if (started !== undefined) return started;
  const probing = probeBinary(adapter, path, identity, session, probe);
  session.probes.set(key, probing);
  return probing;
};

const probeBinary = async (
  adapter: AgentAdapter,
  path: string,
  identity: BinaryIdentity | null,
  session: ProbeSession,
  probe: { run: ProbeRunner; envKey: string },
): Promise<{ result: ProbeResult; cached: boolean }> => {
  if (identity !== null) {
    const hit = lookup(session.cache, adapter.id, identity, probe.envKey);
    if (hit !== undefined) return { result: fromCache(adapter.id, hit, path), cached: true };
  }
  let result: ProbeResult;
  try {
    result = await adapter.probe(path, probe.run);
  } catch (cause) {
    result = {
      ok: false,
      error: new AdapterError({
        kind: 'SpawnFailed',
        adapterId: adapter.id,
        message: `probing ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        hint: 'Run hydra doctor again; if it persists, reinstall the CLI.',
        command: [path],
        cause,
      }),
    };
  }
  const entry = cacheable(result);
  if (identity !== null && entry !== undefined) {
    session.cache.entries[cacheKey(adapter.id, identity, probe.envKey)] = {
      adapterId: adapter.id,
      ...identity,
      result: entry,
    };
    session.dirty = true;
  }
  return { result, cached: false };
};

/**
 * What the CLI's probe runs with: what its agent would get (agent-env.ts: the general variables,
 * its own adapter's, those its configuration takes a key from) and the agent's configured `env`,
 * never the whole of hydra's environment (another CLI's key, a forge or cloud token).
 */
const probeEnvironment = (
  adapter: AgentAdapter,
  plan: AgentPlan,
  env: NodeJS.ProcessEnv,
): Record<string, string> => {
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : os.homedir();
  const configured = configuredVariables(adapter, env, home, plan.extraArgs);
  return { ...agentEnvironment(adapter, env, configured), ...plan.env };
};

const probePlan = async (
  plan: AgentPlan,
  options: ProbeAgentsOptions,
  session: ProbeSession,
): Promise<AgentProbeReport> => {
  const adapter = adapterOf(plan.adapterId);
  const report = baseReport(adapter, plan);
  // The agent's configured env applies to discovery and the probe, as it will to the race.
  const configuredEnv = plan.env ?? {};
  const env = Object.keys(configuredEnv).length === 0 ? session.env : { ...session.env, ...configuredEnv };
  const probe = {
    run: options.run ?? createProbeRunner(probeEnvironment(adapter, plan, session.env), options.processes),
    envKey: envHash(configuredEnv),
  };
  const configured = plan.binary !== undefined && plan.binary !== '' ? plan.binary : undefined;
  // A configured binary is the only candidate: racing whatever else is on PATH would race another CLI.
  const found =
    configured === undefined
      ? await discoverBinaries(adapter, undefined, env)
      : (await discoverBinaries(adapter, configured, env)).filter((item) => item.candidate === configured);
  report.binary = found[0]?.path ?? null;

  if (plan.enabled === false) return { ...report, status: 'disabled' };
  if (adapter.tier === 'experimental' && !options.allowExperimental)
    return { ...report, status: 'needs-opt-in' };

  const modelError = adapter.validateModel(plan.model);
  if (modelError !== null) return { ...report, status: 'unsupported', error: modelError.toInfo() };

  if (found.length === 0 && plan.runner === 'container') return inImageOnly(adapter, report, configured);
  if (found.length === 0) {
    return {
      ...report,
      status: 'missing',
      error: missingError(
        adapter,
        plan.table ?? agentNameOf(plan),
        configured,
        binaryCandidates(adapter, configured),
      ),
    };
  }

  // The first candidate that probes well wins; otherwise the first candidate's failure is reported.
  let firstFailure: { path: string; result: ProbeResult & { ok: false }; cached: boolean } | undefined;
  for (const { path } of found) {
    const { result, cached } = await probeOne(adapter, path, session, probe);
    if (result.ok) {
      const capabilities = result.capabilities;
      const sandboxed = (await options.sandboxed) ?? false;
      return {
        ...report,
        status: 'ready',
        binary: path,
        version: capabilities.version,
        capabilities,
        // Shown by doctor: a key in extra_args (or an echoed env value) is redacted there too.
        command: redactValue(
          [
            capabilities.binary,
            ...adapter.buildCommand(sampleRequest(plan, options.unsafe ?? false, sandboxed), capabilities)
              .args,
          ],
          knownSecrets(configuredEnv),
        ),
        warnings: [...capabilities.warnings],
        cached,
      };
    }
    firstFailure ??= { path, result, cached };
  }
  const failure = firstFailure!;
  const capabilities = failure.result.capabilities ?? null;
  return {
    ...report,
    status: failure.result.error.kind === 'BinaryMissing' ? 'missing' : 'unsupported',
    binary: failure.path,
    version: capabilities?.version ?? null,
    capabilities,
    warnings: [...(capabilities?.warnings ?? [])],
    error: failure.result.error.toInfo(),
    cached: failure.cached,
  };
};

/**
 * Probes every planned agent (in parallel) and reports, per agent: ready, missing, unsupported,
 * disabled or needs-opt-in, with its binary, version, capabilities, the exact command a race would
 * run for a sample prompt, warnings and a typed error with a recovery hint.
 */
export async function probeAgents(
  plans: AgentPlan[],
  options: ProbeAgentsOptions,
): Promise<AgentProbeReport[]> {
  const env = options.env ?? process.env;
  const session: ProbeSession = {
    cache: await readCapabilityCache(options.cacheDir),
    dirty: false,
    probes: new Map(),
    env,
  };
  const reports = await Promise.all(plans.map((plan) => probePlan(plan, options, session)));
  if (session.dirty) {
    // A cache that cannot be written only costs a probe next time.
    await writeCapabilityCache(options.cacheDir, session.cache).catch(() => undefined);
  }
  return reports;
}

/** A container agent's report with its CLI as probed in its image (placement.ts), when it was. */
export const withImageCli = (
  report: AgentProbeReport,
  capabilities: Capabilities | undefined,
): AgentProbeReport =>
  capabilities === undefined ? report : { ...report, version: capabilities.version, capabilities };
