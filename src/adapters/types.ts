import type { AdapterError } from './errors.js';
import type { AgentEvent, CompletedEvent, FailedEvent } from './events.js';

/** Adapter ids. Adding a CLI adds one here and one registry line. */
export type AdapterId = 'claude' | 'codex' | 'cursor';

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
  maxTurns?: number;
  /** Appended to the built command (hydra.toml `extra_args`). */
  extraArgs: readonly string[];
  /** Added to the agent's environment (hydra.toml `env`). */
  env: Readonly<Record<string, string>>;
}

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
}

/** How the process ended, as the engine saw it. */
export interface ProcessEnd {
  exitCode: number | null;
  signal: string | null;
  /** Bounded tail of stderr. */
  stderrTail: string;
  /** Whether the parser produced a completed/failed event from the stream itself. */
  sawTerminalEvent: boolean;
  /** Why the engine stopped it, if it did. */
  stoppedBy?: 'idle_timeout' | 'timeout' | 'cancel';
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

export interface ParserOptions {
  /** The model requested, when known (for cost estimates before the CLI names one). */
  model?: string;
  /** Price overrides from config, merged over the adapter's defaults. */
  prices?: PriceTable;
  /** The agent's working directory (its worktree), so summaries can show paths relative to it. */
  cwd?: string;
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

export interface AgentAdapter {
  readonly id: AdapterId;
  readonly displayName: string;
  readonly tier: Tier;
  /** Binary names to try, in order, given an optional configured path. */
  binaryCandidates(configured?: string): string[];
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
