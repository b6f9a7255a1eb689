/**
 * Runs a real, pinned vendor CLI the way hydra does: the adapter probes the installed binary,
 * builds the command, the CLI runs in a temp git repository against a fake model server, its
 * stdout goes line by line through the adapter's parser, and `finish` gives the normalized end.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { jailFor } from './sandbox.js';
import type { Jail } from './sandbox.js';
import { isTerminal } from '../../src/core/events.js';
import type { AgentEvent, CompletedEvent, FailedEvent } from '../../src/core/events.js';
import { tail } from '../../src/adapters/errors.js';
import { loadPriceDatabase } from '../../src/adapters/prices.js';
import { getAdapter } from '../../src/adapters/registry.js';
import type { BuiltCommand, Capabilities, SpawnRequest } from '../../src/adapters/types.js';
import { createProbeRunner } from '../../src/engine/probe/runner.js';
import { startFakeAnthropicServer } from '../support/fake-anthropic-server.js';
import type { AnthropicScenario } from '../support/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../support/fake-openai-server.js';
import type { OpenAiScenario } from '../support/fake-openai-server.js';
import { startFakeGeminiServer, userTexts as geminiUserTexts } from '../support/fake-gemini-server.js';
import type { GeminiScenario } from '../support/fake-gemini-server.js';
import { startFakeOpenAiChatServer } from '../support/fake-openai-chat-server.js';
import type { ChatScenario } from '../support/fake-openai-chat-server.js';
import type { FakeModelServer, RecordedRequest } from '../support/fake-model-server.js';
import {
  baseEnv,
  claudeOfflineEnv,
  codexOfflineEnv,
  findProjectRoot,
  geminiOfflineEnv,
  initFixtureRepo,
  opencodeOfflineEnv,
  qwenOfflineEnv,
  vendorBinary,
  writeCodexOfflineConfig,
  writeGeminiOfflineSettings,
  writeOpencodeOfflineConfig,
  writeQwenOfflineSettings,
} from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';

export const PROJECT_ROOT = findProjectRoot();

/** Where runVendor's runs live (each removed after its run): outside the temp directory. */
const RUNS_DIR = join(homedir(), '.cache', 'hydra-vendor-runs');

export const EDIT_FILE = 'hello.txt';
export const EDIT_CONTENT = 'hello from the fake model\n';
export const FINAL_TEXT = 'Created hello.txt with a greeting.';
// Gemini CLI takes 10-30 s to start on a loaded machine, and its 0.1x releases retry a failure;
// Qwen Code retries a 500 for about 80 s before it gives up.
const RUN_TIMEOUT_MS = 150_000;

export type VendorScenario = AnthropicScenario | OpenAiScenario | GeminiScenario | ChatScenario;

export interface VendorRunOptions {
  agent: VendorAgent;
  version: string;
  scenario: VendorScenario;
  prompt?: string;
  model?: string;
  unsafe?: boolean;
  extraArgs?: string[];
  /** hydra.toml `env` for the agent. */
  env?: Record<string, string>;
  /** Then a follow-up prompt in the same repository, resuming the session the first run reported. */
  followUpPrompt?: string;
  /**
   * Run the CLI in the OS sandbox (sandbox.ts), as hydra does with a sandboxed agent: the adapter
   * is told (SpawnRequest.sandboxed, ParserOptions.sandboxed) and the command runs inside `srt`.
   */
  sandboxed?: boolean;
  /** A shell command the fake model has the CLI run (its shell tool) instead of writing hello.txt. */
  shell?: string;
  /** Files to read after the run, relative to the run's temp root (`repo/ran.txt`, `outside.txt`). */
  read?: readonly string[];
}

/** One run of the CLI: the command, how it ended and what the adapter made of it. */
export interface VendorPass {
  built: BuiltCommand;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  events: AgentEvent[];
  terminal: CompletedEvent | FailedEvent;
}

export interface VendorRun {
  capabilities: Capabilities;
  built: BuiltCommand;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  events: AgentEvent[];
  terminal: CompletedEvent | FailedEvent;
  /** What the fake model server received, in order. */
  requests: readonly RecordedRequest[];
  /** Content of hello.txt after the run, or null when the run did not create it. */
  edited: string | null;
  /** The repository the agent ran in (already deleted when the run returns). */
  repo: string;
  /** The follow-up run, when `followUpPrompt` was given. */
  followUp?: VendorPass;
  /** The contents of the `read` files after the run (null: no such file). */
  files: Record<string, string | null>;
  /** The run's temp root (already deleted) and the fake server's port, for normalizing output. */
  root: string;
  serverPort: number;
}

type Env = Record<string, string>;

const startServer = (options: VendorRunOptions, repo: string): Promise<FakeModelServer> => {
  const shell = options.shell === undefined ? {} : { shell: options.shell };
  switch (options.agent) {
    case 'claude':
      return startFakeAnthropicServer({
        scenario: options.scenario as AnthropicScenario,
        edit: { filePath: join(repo, EDIT_FILE), content: EDIT_CONTENT },
        finalText: FINAL_TEXT,
        ...shell,
      });
    case 'codex':
      return startFakeOpenAiServer({
        scenario: options.scenario as OpenAiScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
        finalText: FINAL_TEXT,
        ...shell,
      });
    case 'gemini':
      return startFakeGeminiServer({
        scenario: options.scenario as GeminiScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
        finalText: FINAL_TEXT,
        ...shell,
      });
    case 'qwen':
    case 'opencode':
      return startFakeOpenAiChatServer({
        scenario: options.scenario as ChatScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
        finalText: FINAL_TEXT,
        ...shell,
      });
  }
};

/** The environment that keeps the CLI offline and pointed at the fake server; hydra's own env wins. */
const offlineEnv = async (agent: VendorAgent, serverUrl: string, home: string): Promise<Env> => {
  switch (agent) {
    case 'claude': {
      // IS_SANDBOX is hydra's decision (only in unsafe mode), so it comes from the built command.
      const { IS_SANDBOX: _sandbox, ...env } = claudeOfflineEnv(serverUrl, home);
      return env;
    }
    case 'codex':
      await writeCodexOfflineConfig(join(home, '.codex'), serverUrl);
      return codexOfflineEnv(home);
    case 'gemini':
      await writeGeminiOfflineSettings(home);
      // Its error reports go to the temp directory: keep them in the run's HOME.
      return { ...geminiOfflineEnv(serverUrl, home), TMPDIR: home };
    case 'qwen':
      await writeQwenOfflineSettings(home);
      return qwenOfflineEnv(serverUrl, home);
    case 'opencode': {
      const env = opencodeOfflineEnv(serverUrl, home);
      await writeOpencodeOfflineConfig(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), serverUrl);
      return env;
    }
  }
};

/**
 * What the probe runs with: the run's throwaway HOME (and opencode's directories under it; nothing
 * listens on the discard port its plugin install would try).
 */
export const probeEnv = (home: string): Record<string, string> => ({
  ...baseEnv(),
  HOME: home,
  CODEX_HOME: join(home, '.codex'),
  ...opencodeOfflineEnv('http://127.0.0.1:9', home),
});

/** Probes the pinned binary through the adapter, with the same throwaway HOME as the run. */
export const probeVendor = async (
  agent: VendorAgent,
  version: string,
  home: string,
): Promise<Capabilities> => {
  const adapter = getAdapter(agent);
  if (adapter === undefined) throw new Error(`no adapter registered for ${agent}`);
  const run = createProbeRunner(probeEnv(home));
  const result = await adapter.probe(vendorBinary(PROJECT_ROOT, agent, version), run);
  if (!result.ok) throw new Error(`probe of ${agent}@${version} failed: ${result.error.message}`);
  return result.capabilities;
};

export const runVendor = async (options: VendorRunOptions): Promise<VendorRun> => {
  const adapter = getAdapter(options.agent);
  if (adapter === undefined) throw new Error(`no adapter registered for ${options.agent}`);
  // Not under the temp directory: there Codex refuses to make its sandbox helper's alias, and with
  // a system bubblewrap every command of its workspace-write sandbox fails (agent-clis.md).
  await mkdir(RUNS_DIR, { recursive: true });
  const root = await mkdtemp(join(RUNS_DIR, 'hydra-vendor-'));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  const scratchDir = join(root, 'scratch');
  await Promise.all([mkdir(home, { recursive: true }), mkdir(scratchDir, { recursive: true })]);
  await initFixtureRepo(repo);
  const server = await startServer(options, repo);
  try {
    const capabilities = await probeVendor(options.agent, options.version, home);
    const env = { ...baseEnv(), ...(await offlineEnv(options.agent, server.url, home)) };
    const jail = options.sandboxed === true ? await jailFor(root, [repo, home, scratchDir]) : undefined;
    const request: SpawnRequest = {
      prompt: options.prompt ?? 'Create hello.txt containing a short greeting.',
      cwd: repo,
      scratchDir,
      unsafe: options.unsafe ?? false,
      ...(jail === undefined ? {} : { sandboxed: true }),
      extraArgs: options.extraArgs ?? [],
      env: options.env ?? {},
      ...(options.model === undefined ? {} : { model: options.model }),
    };
    const first = await runPass(options, capabilities, request, env, jail);
    const sessionId = first.events.find((event) => event.kind === 'progress' && event.stage === 'init');
    const followUp =
      options.followUpPrompt === undefined
        ? undefined
        : await runPass(
            options,
            capabilities,
            {
              ...request,
              prompt: options.followUpPrompt,
              ...(sessionId?.kind === 'progress' && sessionId.sessionId !== undefined
                ? { resumeSessionId: sessionId.sessionId }
                : {}),
            },
            env,
            jail,
          );
    const editedPath = join(repo, EDIT_FILE);
    const edited = existsSync(editedPath) ? await readFile(editedPath, 'utf8') : null;
    const files: Record<string, string | null> = {};
    for (const file of options.read ?? [])
      files[file] = existsSync(join(root, file)) ? await readFile(join(root, file), 'utf8') : null;
    return {
      capabilities,
      ...first,
      requests: [...server.requests],
      edited,
      repo,
      files,
      root,
      serverPort: server.port,
      ...(followUp === undefined ? {} : { followUp }),
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
};

/** Builds the command the adapter would run, runs it, and reads its stdout through the parser. */
const runPass = async (
  options: VendorRunOptions,
  capabilities: Capabilities,
  request: SpawnRequest,
  offline: Env,
  jail: Jail | undefined,
): Promise<VendorPass> => {
  const adapter = getAdapter(options.agent)!;
  // As the engine does before an agent starts: without the database only `[prices]` is known.
  await loadPriceDatabase();
  const built = adapter.buildCommand(request, capabilities);
  for (const file of built.files) await writeFile(file.path, file.content);
  const run = jail === undefined ? { file: built.file, args: built.args, env: {} } : jail.wrap(built);
  const result = await execa(run.file, run.args, {
    cwd: built.cwd,
    env: { ...offline, ...built.env, ...run.env },
    extendEnv: false,
    reject: false,
    stdin: built.stdinFile === undefined ? 'ignore' : { file: built.stdinFile },
    timeout: RUN_TIMEOUT_MS,
    forceKillAfterDelay: 2_000,
    stripFinalNewline: false,
  });
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  // As the engine does: the model asked for and the working directory, for relative paths.
  const parser = adapter.createParser({
    cwd: request.cwd,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(jail === undefined ? {} : { sandboxed: true }),
  });
  const events = splitLines(stdout).flatMap((line) => parser.parseLine(line));
  const lastMessage =
    built.lastMessageFile !== undefined && existsSync(built.lastMessageFile)
      ? await readFile(built.lastMessageFile, 'utf8')
      : undefined;
  const terminal = parser.finish({
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stderrTail: tail(stderr),
    sawTerminalEvent: events.some(isTerminal),
    runId: 'vendor-harness',
    ...(lastMessage === undefined ? {} : { lastMessage }),
  });
  return { built, exitCode: result.exitCode ?? null, stdout, stderr, events, terminal };
};

const splitLines = (text: string): string[] => {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/** The user-turn texts of the main model request (the one that declares tools). */
export const userTexts = (agent: VendorAgent, requests: readonly RecordedRequest[]): string[] => {
  const main = requests.find((request) => hasTools(request.json));
  if (main === undefined) return [];
  const body = main.json as Record<string, unknown>;
  // Gemini sends `contents` of parts; Codex speaks the Responses API (`input`); the others send
  // chat `messages`.
  if (agent === 'gemini') return geminiUserTexts(main);
  const turns = (agent === 'codex' ? body.input : body.messages) as unknown[];
  return turns.flatMap((turn) => textsOfUserTurn(turn));
};

const hasTools = (json: unknown): boolean =>
  typeof json === 'object' &&
  json !== null &&
  Array.isArray((json as { tools?: unknown }).tools) &&
  (json as { tools: unknown[] }).tools.length > 0;

const textsOfUserTurn = (turn: unknown): string[] => {
  if (typeof turn !== 'object' || turn === null) return [];
  const { role, content } = turn as { role?: unknown; content?: unknown };
  if (role !== 'user') return [];
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) => {
    if (typeof block !== 'object' || block === null) return [];
    const { type, text } = block as { type?: unknown; text?: unknown };
    return (type === 'text' || type === 'input_text') && typeof text === 'string' ? [text] : [];
  });
};
