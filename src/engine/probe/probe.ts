/**
 * Finds each agent CLI, probes what it supports, and caches the answer per binary.
 *
 * Discovery follows the adapter's candidate order on PATH (the caller's env, not hydra's own); a
 * configured binary is the only candidate (never a silent fallback to another CLI on PATH). The
 * probe runs with the agent's configured env over the caller's, as the race will.
 * Capabilities are cached in `<cacheDir>/adapter-capabilities.json`, keyed by adapter id, the
 * binary's resolved real path and a hash of the configured env (never its values), and stamped
 * with its size and mtime, so an upgraded binary (new file, new symlink target, or rewritten in
 * place) is probed again. The cache is written
 * atomically (temp file + rename) and a corrupt or foreign cache file is ignored.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { AdapterError } from '../../adapters/errors.js';
import type { ErrorInfo } from '../../core/events.js';
import { adapterOf, binaryCandidates } from '../../adapters/registry.js';
import type {
  AdapterId,
  AgentAdapter,
  Capabilities,
  ProbeOutput,
  ProbeResult,
  ProbeRunner,
  SpawnRequest,
} from '../../adapters/types.js';
import { createProcessRegistry, PROBE_OWNER, signalGroup, startChild } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';
import { knownSecrets, redactValue } from '../records/index.js';
import type { AgentPlan, AgentProbeReport } from '../types.js';
import { agentNameOf } from '../agent-name.js';

export const CAPABILITY_CACHE_FILE = 'adapter-capabilities.json';
/** Bump when adapters derive capabilities differently, so old cache entries are ignored. */
const CAPABILITY_CACHE_VERSION = 1;

/** Probe output beyond this is cut (help texts are a few KiB). */
const PROBE_MAX_BUFFER = 1024 * 1024;
/** After the time limit's SIGTERM, SIGKILL follows this much later. */
const PROBE_FORCE_KILL_MS = 2000;

/**
 * A probe runner using the given environment (the CLI's own `#!/usr/bin/env node` needs PATH).
 * The probe runs as the leader of its own process group, like an agent: on its time limit the
 * whole group gets SIGTERM then SIGKILL, once its main process exits whatever it left behind is
 * killed (a child holding stdout open would otherwise keep the probe waiting), and if hydra exits
 * or is interrupted meanwhile the group is killed with the agents': `processes` is the race's
 * registry; without one (hydra doctor), each probe has a registry of its own while it runs.
 */
export const createProbeRunner =
  (env: NodeJS.ProcessEnv = process.env, processes?: ProcessRegistry): ProbeRunner =>
  async (file, args, { timeoutMs }) => {
    try {
      const child = startChild(file, args, { env, detached: true, maxBuffer: PROBE_MAX_BUFFER });
      const subprocess = child.process;
      const pgid = child.pid;
      const registry = processes ?? createProcessRegistry();
      if (pgid !== undefined) registry.registerGroup(pgid, { runId: PROBE_OWNER });
      let timedOut = false;
      let forceKill: NodeJS.Timeout | undefined;
      const limit = setTimeout(
        () => {
          timedOut = true;
          if (pgid === undefined) return;
          signalGroup(pgid, 'SIGTERM');
          forceKill = setTimeout(() => signalGroup(pgid, 'SIGKILL'), PROBE_FORCE_KILL_MS);
        },
        Math.min(timeoutMs, 2 ** 31 - 1),
      );
      subprocess.once('exit', () => {
        if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
      });
      const result = await child.result.finally(() => {
        clearTimeout(limit);
        clearTimeout(forceKill);
        if (pgid !== undefined) {
          signalGroup(pgid, 'SIGKILL');
          registry.unregisterGroup(pgid);
        }
        if (processes === undefined) registry.dispose();
      });
      const output: ProbeOutput = {
        exitCode: result.exitCode ?? null,
        stdout: result.stdout,
        stderr: result.stderr,
        timedOut,
      };
      if (result.spawnError !== undefined && !timedOut)
        output.spawnError = `${result.spawnError.code}: ${result.spawnError.message}`;
      return output;
    } catch (error) {
      return {
        exitCode: null,
        stdout: '',
        stderr: '',
        timedOut: false,
        spawnError: error instanceof Error ? error.message : String(error),
      };
    }
  };

/** Runs probe commands with hydra's environment, stdin ignored, a time limit and a kill on timeout. */
export const realProbeRunner: ProbeRunner = createProbeRunner(process.env);

// ---------------------------------------------------------------------------------------------
// Discovery

const isExecutableFile = async (path: string): Promise<boolean> => {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    if (process.platform === 'win32') return true;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The absolute path of a command: a name is looked up on the env's PATH (with PATHEXT on
 * Windows), a path (anything with a separator) is resolved against `cwd`. Null when not found.
 */
export const resolveCommand = async (
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Promise<string | null> => {
  if (command === '') return null;
  if (isAbsolute(command) || command.includes('/') || command.includes('\\')) {
    const path = resolve(cwd, command);
    return (await isExecutableFile(path)) ? path : null;
  }
  const pathVariable = env['PATH'] ?? env['Path'] ?? '';
  const extensions =
    process.platform === 'win32' ? ['', ...(env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  for (const directory of pathVariable.split(delimiter)) {
    if (directory === '') continue;
    for (const extension of extensions) {
      const candidate = join(directory, command + extension);
      if (await isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
};

export interface DiscoveredBinary {
  /** The name or path tried (from the adapter's candidate list). */
  candidate: string;
  path: string;
}

/** Every candidate of an adapter that exists, in the adapter's order, without duplicates. */
const discoverBinaries = async (
  adapter: AgentAdapter,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<DiscoveredBinary[]> => {
  const found: DiscoveredBinary[] = [];
  const seen = new Set<string>();
  for (const candidate of binaryCandidates(adapter, configured)) {
    const path = await resolveCommand(candidate, env);
    if (path === null || seen.has(path)) continue;
    seen.add(path);
    found.push({ candidate, path });
  }
  return found;
};

// ---------------------------------------------------------------------------------------------
// Cache

interface BinaryIdentity {
  realPath: string;
  size: number;
  mtimeMs: number;
}

type CachedResult =
  | { ok: true; capabilities: Capabilities }
  | { ok: false; error: SerializedError; capabilities?: Capabilities };

interface SerializedError extends ErrorInfo {
  command: string[];
  stderrExcerpt: string;
}

interface CacheEntry extends BinaryIdentity {
  adapterId: AdapterId;
  result: CachedResult;
}

interface CacheFile {
  version: number;
  entries: Record<string, CacheEntry>;
}

const identify = async (path: string): Promise<BinaryIdentity | null> => {
  try {
    const realPath = await realpath(path);
    const info = await stat(realPath);
    return { realPath, size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
};

/** The configured env changes what a probe sees: a hash of its keys and values (never the values). */
const envHash = (env: Readonly<Record<string, string>>): string => {
  const entries = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0
    ? ''
    : createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
};

const cacheKey = (adapterId: AdapterId, identity: BinaryIdentity, envKey: string): string =>
  `${adapterId}:${identity.realPath}${envKey === '' ? '' : `:env-${envKey}`}`;

const isCacheFile = (value: unknown): value is CacheFile =>
  typeof value === 'object' &&
  value !== null &&
  (value as { version?: unknown }).version === CAPABILITY_CACHE_VERSION &&
  typeof (value as { entries?: unknown }).entries === 'object' &&
  (value as { entries?: unknown }).entries !== null;

/** Reads the cache; a missing, corrupt or older-version file reads as empty. */
const readCapabilityCache = async (cacheDir: string): Promise<CacheFile> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8'));
    if (isCacheFile(parsed)) return parsed;
  } catch {
    // Missing or corrupt: probe again and rewrite it.
  }
  return { version: CAPABILITY_CACHE_VERSION, entries: {} };
};

/** Writes the cache atomically: a temp file in the same directory, then a rename over the old one. */
const writeCapabilityCache = async (cacheDir: string, cache: CacheFile): Promise<void> => {
  // Owner-only, like the run records: it names the user's binaries and their versions.
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const target = join(cacheDir, CAPABILITY_CACHE_FILE);
  const temp = `${target}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(cache, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
};

const lookup = (
  cache: CacheFile,
  adapterId: AdapterId,
  identity: BinaryIdentity,
  envKey: string,
): CachedResult | undefined => {
  const entry = cache.entries[cacheKey(adapterId, identity, envKey)];
  if (entry === undefined || entry.adapterId !== adapterId) return undefined;
  if (entry.size !== identity.size || entry.mtimeMs !== identity.mtimeMs) return undefined;
  const result = entry.result;
  if (typeof result !== 'object' || result === null) return undefined;
  if (result.ok === true && typeof result.capabilities === 'object' && result.capabilities !== null)
    return result;
  if (result.ok === false && typeof result.error === 'object' && result.error !== null) return result;
  return undefined;
};

/** Only outcomes that depend on the binary alone are cached (not time-outs or spawn failures). */
const cacheable = (result: ProbeResult): CachedResult | undefined => {
  if (result.ok) return { ok: true, capabilities: result.capabilities };
  if (result.error.kind !== 'UnsupportedFlag') return undefined;
  const { kind, message, hint, command, stderrExcerpt } = result.error;
  return {
    ok: false,
    error: { kind, message, hint, command: [...command], stderrExcerpt },
    ...(result.capabilities === undefined ? {} : { capabilities: result.capabilities }),
  };
};

const fromCache = (adapterId: AdapterId, result: CachedResult, binary: string): ProbeResult => {
  if (result.ok) return { ok: true, capabilities: { ...result.capabilities, binary } };
  const { kind, message, hint, command, stderrExcerpt } = result.error;
  return {
    ok: false,
    error: new AdapterError({ kind, adapterId, message, hint, command, stderrExcerpt }),
    ...(result.capabilities === undefined ? {} : { capabilities: { ...result.capabilities, binary } }),
  };
};

// ---------------------------------------------------------------------------------------------
// probeAgents

export interface ProbeAgentsOptions {
  cacheDir: string;
  allowExperimental: boolean;
  /** Runs every probe command (tests); by default a real runner with the caller's env plus the agent's. */
  run?: ProbeRunner;
  env?: NodeJS.ProcessEnv;
  /** The race's process registry, so an interrupted race kills its probes too (doctor has none). */
  processes?: ProcessRegistry;
  /** Build the sample command in unsafe mode (what `hydra race --unsafe` would run). */
  unsafe?: boolean;
}

/** The prompt and paths used for a report's sample command. */
const SAMPLE_PROMPT = 'Say hello';

const sampleRequest = (plan: AgentPlan, unsafe: boolean): SpawnRequest => ({
  prompt: SAMPLE_PROMPT,
  cwd: '<worktree>',
  scratchDir: '<scratch>',
  ...(plan.model === undefined ? {} : { model: plan.model }),
  unsafe,
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
  run: ProbeRunner;
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
    run: options.run ?? (env === session.env ? session.run : createProbeRunner(env, options.processes)),
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
            ...adapter.buildCommand(sampleRequest(plan, options.unsafe ?? false), capabilities).args,
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
    run:
      options.run ??
      (options.env === undefined && options.processes === undefined
        ? realProbeRunner
        : createProbeRunner(env, options.processes)),
    env,
  };
  const reports = await Promise.all(plans.map((plan) => probePlan(plan, options, session)));
  if (session.dirty) {
    // A cache that cannot be written only costs a probe next time.
    await writeCapabilityCache(options.cacheDir, session.cache).catch(() => undefined);
  }
  return reports;
}
