import type { AdapterError } from './errors.js';
import type { AgentEvent, CompletedEvent, FailedEvent } from '../core/events.js';

/**
 * An adapter's id: what users type (`--agents`, `[agents.<id>]`) and what names its branch and
 * worktree. The registry (registry.ts) holds the ids there are; a test may register one more, so
 * this is not a closed union.
 */
export type AdapterId = string;

export type Tier = 'tier1' | 'experimental';

/** How sure we are of a flag or capability (adapter spec, section 3). */
export type Confidence = 'verified' | 'observed' | 'inferred';

/**
 * Runs a short-lived probe command (`--version`, `--help`) with stdin ignored and a time limit.
 * Injected, so adapters stay pure and tests can feed recorded help texts.
 */
export type ProbeRunner = (
  file: string,
  args: readonly string[],
  options: { timeoutMs: number },
) => Promise<ProbeOutput>;

export interface ProbeOutput {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the process could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
}

/** What the probe learned about one installed CLI. */
export interface Capabilities {
  adapterId: AdapterId;
  /** The binary that was probed (as found on PATH or configured). */
  binary: string;
  /** Version string parsed from `--version`, or null when it could not be read. */
  version: string | null;
  /** Flags seen in the help text(s), e.g. ["--output-format", "--model", "--full-auto"]. */
  flags: string[];
  /** Named features the command builder relies on, derived from the flags. */
  features: Record<string, boolean>;
  /** How the flags were established: verified from help text, or inferred from documentation. */
  confidence: Confidence;
  /** Things the user should know (inferred flags, missing optional flags). */
  warnings: string[];
}

export type ProbeResult =
  { ok: true; capabilities: Capabilities } | { ok: false; error: AdapterError; capabilities?: Capabilities };

/** What the engine asks an adapter to run. */
export interface SpawnRequest {
  /** The user's prompt, verbatim. Data, never code or flags. */
  prompt: string;
  /** The agent's worktree; the process runs here. */
  cwd: string;
  /** A private, writable directory for files the command needs (prompt file, last message). */
  scratchDir: string;
  model?: string;
  /** The vendors' sandbox-bypass modes, only when the user asked for --unsafe. */
  unsafe: boolean;
  /**
   * The process runs inside hydra's OS sandbox (only its worktree, temp and state directories
   * writable, the network limited to its API hosts through the sandbox's proxy). The CLI then runs
   * in its no-approval mode, so the agent can run the project's build and tests, and starts no
   * sandbox of its own (nested ones fail): the jail holds it, so no warning. Also true in a
   * container runner's container (the container is its jail). Absent: false.
   */
  sandboxed?: boolean;
  maxTurns?: number;
  /** Appended to the built command (hydra.toml `extra_args`). */
  extraArgs: readonly string[];
  /** Added to the agent's environment (hydra.toml `env`). */
  env: Readonly<Record<string, string>>;
  /**
   * Continue this earlier session of the CLI (a follow-up prompt) instead of starting a new one:
   * the id its stream reported (the `sessionId` of its `init` progress event). Honoured only when
   * the probe saw the CLI's resume flag (capability feature `resume`); ignored otherwise. The
   * engine passes only ids of SESSION_ID_PATTERN's shape (it reads them from untrusted records).
   */
  resumeSessionId?: string;
  /**
   * Run without edit tools, read-only (the judge of ties): the CLI's plan or read-only mode. An
   * adapter that applied one says so with BuiltCommand.readOnly; hydra does not run a read-only
   * request whose command lacks it.
   */
  readOnly?: boolean;
}

/**
 * What a session or thread id may look like before it goes into argv: a UUID-like word, never
 * dash-led (it could read as a flag), no spaces or shell or path characters.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isSessionId = (value: unknown): value is string =>
  typeof value === 'string' && SESSION_ID_PATTERN.test(value);

/** A file the engine must write before spawning (the adapter itself writes nothing). */
export interface FileToWrite {
  path: string;
  content: string;
}

export interface BuiltCommand {
  file: string;
  args: string[];
  /** Variables to set (merged over the parent environment by the engine). */
  env: Record<string, string>;
  cwd: string;
  /** Write these before spawning. */
  files: FileToWrite[];
  /**
   * When set, the process's stdin is this file (used for prompts too long for one argument).
   * Otherwise stdin is ignored. Never a pipe left open.
   */
  stdinFile?: string;
  /** A file where the CLI writes its final message (codex `-o`), read after exit as a fallback. */
  lastMessageFile?: string;
  /** The command runs the CLI in its read-only (plan) mode, as SpawnRequest.readOnly asked. */
  readOnly?: true;
}

/** How the process ended, as the engine saw it. */
export interface ProcessEnd {
  exitCode: number | null;
  signal: string | null;
  /** Bounded tail of stderr. */
  stderrTail: string;
  /** Whether the parser produced a completed/failed event from the stream itself. */
  sawTerminalEvent: boolean;
  /** Why the engine stopped it, if it did (the engine reports the stop; see finishRun). */
  stoppedBy?:
    'idle_timeout' | 'timeout' | 'cancel' | 'after_result' | 'budget' | 'race_budget' | 'first_verified';
  /** The race's run id, so hints can name the command that shows this run (`hydra show <id>`). */
  runId: string;
  /** Contents of BuiltCommand.lastMessageFile, when it exists. */
  lastMessage?: string;
}

/** Per-model prices in USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok?: number;
  cacheWritePerMTok?: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Where the price database lists a CLI's models when not under their own names: Qwen Code's
 * `qwen3-coder-plus` is OpenRouter's `qwen/qwen3-coder-plus` (provider `openrouter`, prefix `qwen/`).
 */
export interface PriceListing {
  readonly provider: string;
  readonly prefix: string;
}

export interface ParserOptions {
  /** The model requested, when known (for cost estimates before the CLI names one). */
  model?: string;
  /** Prices from hydra.toml `[prices]`, over the price database's. */
  prices?: PriceTable;
  /** The agent's working directory (its worktree), so summaries can show paths relative to it. */
  cwd?: string;
  /**
   * It runs in hydra's OS sandbox (SpawnRequest.sandboxed): what its tools' output says the sandbox
   * refused becomes a warning event (adapters/kit/refusals.ts). Absent: false.
   */
  sandboxed?: boolean;
}

/**
 * Parses one run's stdout. Stateful (it de-duplicates and accumulates usage) so one per run.
 * Never throws.
 */
export interface LineParser {
  /** One line of stdout, without its line ending. */
  parseLine(line: string): AgentEvent[];
  /**
   * The final `completed` or `failed` event once the process has ended. Called exactly once.
   * Returns the terminal event already seen in the stream when it is consistent with the end,
   * otherwise the one the end implies (no terminal event → failed).
   */
  finish(end: ProcessEnd): CompletedEvent | FailedEvent;
}

/** What doctor knows about the machine it runs on, for adapter-specific warnings. */
export interface DoctorContext {
  /** hydra runs as root (uid 0). */
  isRoot: boolean;
  /** Whether the race doctor checks for would use the vendors' bypass modes (`--unsafe`). */
  unsafe: boolean;
}

/**
 * A directory (or file) where a CLI keeps its own state (settings, sessions, credentials): `path`
 * under the home directory, or `$env/<under>` when the variable `env` is set (`CODEX_HOME`,
 * `XDG_CONFIG_HOME` + `opencode`). Declared for the sandbox, which must let the agent reach them;
 * a race never writes there itself.
 */
export interface StateDir {
  path: string;
  env?: string;
  under?: string;
  /**
   * How a sandboxed agent gets a copy of its own (engine/sandbox/cli-state.ts): the CLI finds it at
   * `$variable/<to>`, the variable pointed at a directory of the run's (`HOME` for a CLI with no
   * variable of its own). `skip` names top-level entries not copied (sessions, logs, caches).
   * Absent: the agent uses the user's (declared writable).
   */
  copy?: StateCopy;
}

/** See StateDir.copy. */
export interface StateCopy {
  variable: string;
  to: string;
  skip?: readonly string[];
}

/**
 * A file of a CLI's own configuration that may name its endpoint (a base URL, a provider's
 * `base_url`, an `env` block's `ANTHROPIC_BASE_URL`): `file` under the state directory whose
 * StateDir.path is `state`. Read for the sandbox's network allowlist (engine/sandbox/endpoints.ts).
 */
export interface EndpointFile {
  state: string;
  file: string;
}

/** The hosts a CLI talks to out of the box (its model API, its sign-in), for a network allowlist. */
export interface ApiHosts {
  hosts: readonly string[];
  /** Variables that point it at another endpoint (`ANTHROPIC_BASE_URL`). */
  baseUrlEnv: readonly string[];
}

/**
 * The user's environment variables a CLI reads: its credentials by name, and the families of
 * variables it reads settings from. With its base URLs (ApiHosts.baseUrlEnv) and the variables
 * that move its state (StateDir.env), what a container agent gets from the user's environment
 * (engine/container/env.ts). Declared, not read: the adapter never looks at the environment.
 */
export interface CliEnvironment {
  /** Variables it reads its credentials from (`ANTHROPIC_API_KEY`, `CURSOR_API_KEY`). */
  readonly keys: readonly string[];
  /** Families it reads: each prefix (`CLAUDE_`) stands for every `<prefix>[A-Z0-9_]+` (`CLAUDE_CODE_MAX_RETRIES`). */
  readonly prefixes: readonly string[];
}

/** How `hydra demo` simulates a CLI: the fake agent (src/demo) replays fixtures/adapters/<id>/. */
export interface DemoProfile {
  /** Pause between replayed lines, paced so a newcomer can watch the agents finish in turn. */
  lineDelayMs: number;
}

/**
 * Everything hydra knows about one agent CLI. Adding a CLI is one file declaring one of these and
 * one line in registry.ts. Pure: nothing here spawns, touches git or reads the clock (the probe
 * gets its runner injected).
 */
export interface AgentAdapter {
  /** Lowercase letters, digits and dashes (it names branches, directories and config tables). */
  readonly id: AdapterId;
  readonly displayName: string;
  readonly tier: Tier;
  /**
   * Whether a race that names no agents includes it (default true). A tier-1 CLI fewer users have
   * (Gemini CLI, Qwen Code) races when named (`--agents`, `race.agents`) or enabled in its table,
   * so a default race does not show a skipped pane for every CLI the user never installed.
   */
  readonly inDefaultRace?: boolean;
  /** Other names users type for it (`cursor-agent` for cursor), case-insensitively. */
  readonly aliases: readonly string[];
  /** Binary names looked up on PATH, in order, after a configured binary. */
  readonly binaries: readonly string[];
  /** How to install or upgrade the CLI, as one command. */
  readonly installHint: string;
  /** How to sign the CLI in, when it says it is not authenticated. */
  readonly signInHint: string;
  /** Where the price database lists its models, when not under their own names (see PriceListing). */
  readonly priceListing?: PriceListing;
  /**
   * Where the CLI keeps its own choice of model, for pricing a run hydra.toml names no model for:
   * `<$homeEnv, else ~/homeDir>/file`, a TOML file with a top-level `key` (Codex: CODEX_HOME,
   * ~/.codex/config.toml, `model`). The engine reads it; the adapter only says where.
   */
  readonly modelConfig?: { homeEnv: string; homeDir: string; file: string; key: string };
  /** The model the CLI runs when neither hydra.toml nor the CLI's own config names one. */
  readonly defaultModel?: string;
  /** Where it keeps its state (declared for the sandbox; see StateDir). */
  readonly stateDirs?: readonly StateDir[];
  /** The hosts it talks to (declared for the sandbox; see ApiHosts). */
  readonly api?: ApiHosts;
  /** Its configuration files that may name another endpoint (see EndpointFile). */
  readonly endpointFiles?: readonly EndpointFile[];
  /** The user's variables it reads (see CliEnvironment); absent: none but its base URLs. */
  readonly environment?: CliEnvironment;
  /** Set when `hydra demo` can simulate it (it needs recorded fixtures). */
  readonly demo?: DemoProfile;
  /** Warnings `hydra doctor` adds for this CLI on this machine (e.g. running as root). */
  doctorWarnings?(context: DoctorContext): string[];
  /**
   * Probes an installed binary: runs `--version` and `--help` (and subcommand help) through the
   * runner, parses flags into capabilities, fails with a typed error when a required flag is missing.
   */
  probe(binary: string, run: ProbeRunner): Promise<ProbeResult>;
  /** Rejects placeholder or empty model names, before anything is launched. */
  validateModel(model: string | undefined): AdapterError | null;
  buildCommand(request: SpawnRequest, capabilities: Capabilities): BuiltCommand;
  createParser(options?: ParserOptions): LineParser;
}
