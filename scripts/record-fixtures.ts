/**
 * `npm run fixtures:record`: installs the pinned real CLIs into .cache/vendor/, runs each one
 * headless against the fake model servers in a temp git repository, and writes
 * fixtures/adapters/<agent>/ (help texts of several versions, normalized stdout streams with their
 * meta.json). See fixtures/adapters/README.md for the layout.
 *
 * Options:
 *   --agent <id>           only this agent (repeatable): claude, codex, gemini, qwen, opencode
 *   --only help|streams    only the help texts, or only the streams
 *   --scenario <name>      only this stream (repeatable), e.g. auth-failure or success-edit@0.5.2
 *   --out <dir>            write there instead of fixtures/adapters (to diff a re-recording)
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { startFakeAnthropicServer } from '../test/support/fake-anthropic-server.js';
import type { AnthropicScenario } from '../test/support/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../test/support/fake-openai-server.js';
import type { OpenAiScenario } from '../test/support/fake-openai-server.js';
import { startFakeGeminiServer } from '../test/support/fake-gemini-server.js';
import type { GeminiScenario } from '../test/support/fake-gemini-server.js';
import { startFakeOpenAiChatServer } from '../test/support/fake-openai-chat-server.js';
import type { ChatScenario } from '../test/support/fake-openai-chat-server.js';
import type { FakeModelServer } from '../test/support/fake-model-server.js';
import { compareVersions } from '../src/adapters/help-flags.js';
import { FIXTURE_ROOT, createContext, normalizeArgv, normalizeText } from './normalize-fixture.js';
import type { NormalizeContext } from './normalize-fixture.js';
import {
  HELP_VERSIONS,
  RECORD_VERSIONS,
  VENDOR_AGENTS,
  baseEnv,
  claudeOfflineEnv,
  codexOfflineEnv,
  ensureVendorCli,
  findProjectRoot,
  geminiOfflineEnv,
  initFixtureRepo,
  writeCodexOfflineConfig,
  writeGeminiOfflineSettings,
  opencodeOfflineEnv,
  qwenOfflineEnv,
  writeOpencodeOfflineConfig,
  writeQwenOfflineSettings,
} from './vendor-cli.js';
import type { VendorAgent } from './vendor-cli.js';

const PROMPT = 'Create hello.txt containing a short greeting.';
const EDIT_FILE = 'hello.txt';
const EDIT_CONTENT = 'hello from the fake model\n';
const RUN_TIMEOUT_MS = 120_000;

interface StreamScenario {
  agent: VendorAgent;
  /** File name under streams/ (an older version's recording gets `@<version>` appended). */
  name: string;
  /** The CLI version to run; RECORD_VERSIONS by default. */
  version?: string;
  /** Stop the run (SIGTERM) after this long: for versions known to hang. */
  stopAfterMs?: number;
  server: AnthropicScenario | OpenAiScenario | GeminiScenario | ChatScenario;
  extraArgs?: readonly string[];
  /** Variables set over the agent's offline environment. */
  env?: Readonly<Record<string, string>>;
  /**
   * Gemini: how the prompt reaches the CLI, as hydra's adapter sends it to that version: `flag`
   * (`--prompt=<prompt>`) or `stdin` (versions whose -p is deprecated). Default `flag`.
   */
  promptVia?: 'flag' | 'stdin';
  /** Gemini: the version has `--skip-trust` (0.40 and later refuse an untrusted folder without it). */
  skipTrust?: boolean;
  /** Run as a user who never signed in: no API key, no base URL, no auth method in the settings (Gemini, Qwen Code). */
  signedOut?: boolean;
  /** Codex: the model in config.toml (default: one codex knows). */
  model?: string;
  /** The exit code the run must end with; null when it is stopped by stopAfterMs. */
  expectExit: number | null;
  /** Whether the run must have created EDIT_FILE with EDIT_CONTENT. */
  expectEdit: boolean;
  notes: string;
}

const SCENARIOS: readonly StreamScenario[] = [
  {
    agent: 'claude',
    name: 'success-edit',
    server: 'success-edit',
    expectExit: 0,
    expectEdit: true,
    notes: 'Turn 1: the model calls Write (file_path, content) to create hello.txt; turn 2: final text.',
  },
  {
    agent: 'claude',
    name: 'partial-messages',
    server: 'success-edit',
    extraArgs: ['--include-partial-messages'],
    expectExit: 0,
    expectEdit: true,
    notes:
      'success-edit with --include-partial-messages: adds stream_event lines (the SSE events as the CLI saw them).',
  },
  {
    agent: 'claude',
    name: 'auth-failure',
    server: 'auth-failure',
    expectExit: 1,
    expectEdit: false,
    notes:
      'The server answers 401 authentication_error. Exit 1; result has subtype "success" but is_error true and api_error_status 401.',
  },
  {
    agent: 'claude',
    name: 'server-error',
    server: 'server-error',
    expectExit: 1,
    expectEdit: false,
    notes:
      'The server answers 500 api_error (CLAUDE_CODE_MAX_RETRIES=0). Exit 1; result has subtype "success" but is_error true and api_error_status 500.',
  },
  {
    agent: 'codex',
    name: 'success-edit',
    server: 'success-edit',
    expectExit: 0,
    expectEdit: true,
    notes:
      'Turn 1: the model calls the freeform apply_patch tool (*** Add File: hello.txt); turn 2: final text. Shows a file_change item.',
  },
  {
    agent: 'codex',
    name: 'success-shell',
    server: 'success-shell',
    expectExit: 0,
    expectEdit: true,
    notes:
      'Turn 1: the model calls exec_command {cmd} whose shell command writes hello.txt; turn 2: final text. Shows a command_execution item.',
  },
  {
    agent: 'codex',
    name: 'auth-failure',
    server: 'auth-failure',
    expectExit: 1,
    expectEdit: false,
    notes:
      'The server answers 401 invalid_api_key (request_max_retries=0). Exit 1; an error event then turn.failed, both quoting the 401.',
  },
  {
    agent: 'codex',
    name: 'server-error',
    server: 'server-error',
    expectExit: 1,
    expectEdit: false,
    notes:
      'The server answers 500 server_error (request_max_retries=0). Exit 1; error then turn.failed. Codex replaces the server message with its own "high demand" text: the status code is not in the stream.',
  },
  {
    agent: 'codex',
    name: 'unknown-model',
    server: 'reply-text',
    model: 'gpt-fake-unknown',
    expectExit: 0,
    expectEdit: false,
    notes:
      'config.toml names a model codex has no metadata for: an item of type "error" appears before turn.started, and the run still succeeds (exit 0, turn.completed).',
  },
  ...geminiScenarios(),
  ...qwenScenarios(),
  ...opencodeScenarios(),
  ...legacyScenarios('claude', '1.0.59'),
  ...legacyScenarios('claude', '2.0.70'),
  ...legacyScenarios('codex', '0.118.0'),
  ...legacyScenarios('codex', '0.44.0'),
  {
    agent: 'codex',
    name: 'success-edit',
    version: '0.20.0',
    server: 'success-edit',
    expectExit: 0,
    expectEdit: true,
    notes:
      'codex 0.2x speaks the legacy exec protocol: a config summary object, {"prompt"}, then {"id","msg":{"type":...}} events (task_started, agent_message, exec_command_begin/end, token_count); no thread/turn/item events and no task_complete: the stream just ends, exit 0. The config summary line is re-serialized with sorted keys (codex prints it in hash-map order). It only declares a `shell {command: [argv]}` tool, so the model writes the file through it.',
  },
  {
    agent: 'codex',
    name: 'auth-failure',
    version: '0.20.0',
    server: 'auth-failure',
    stopAfterMs: 5_000,
    expectExit: null,
    expectEdit: false,
    notes:
      'codex 0.2x on a 401 prints a legacy {"msg":{"type":"error"}} event and then HANGS (no task_complete, no exit): the recorder stopped it with SIGTERM after 5 s, and it then exited 0. Only an idle timeout ends such a run, and exit 0 without a terminal event must count as a failure.',
  },
];

/**
 * Gemini CLI runs: the latest release in every scenario; 0.11.3 (the first with stream-json, refused)
 * and 0.12.0, 0.20.2 and 0.30.1 for the drift of the prompt flag and of `stats`.
 */
function geminiScenarios(): StreamScenario[] {
  return [
    {
      agent: 'gemini',
      name: 'success-edit',
      server: 'success-edit',
      skipTrust: true,
      expectExit: 0,
      expectEdit: true,
      notes:
        'Default model ("auto"): a routing side call (generateContent on the flash-lite model, answered with its JSON schema) picks the model, then turn 1 streams a thought (not printed), two text chunks (two `message` lines with `delta: true`) and a write_file call; turn 2 (it carries the functionResponse) streams the final text in two chunks. The result line has no session id and no final text; `stats.models` splits the tokens per model, side call included.',
    },
    {
      agent: 'gemini',
      name: 'success-model',
      server: 'success-edit',
      skipTrust: true,
      extraArgs: ['--model', 'gemini-2.5-pro'],
      expectExit: 0,
      expectEdit: true,
      notes:
        'success-edit with --model gemini-2.5-pro: no routing side call; init names the model and `stats.models` has that one model (priced in the adapter). Usage: 2100+2300 prompt tokens, 2048 of them cached, 40+14 output and 16 thinking tokens (the thinking ones only inside total_tokens).',
    },
    {
      agent: 'gemini',
      name: 'auth-failure',
      server: 'auth-failure',
      skipTrust: true,
      expectExit: 144,
      expectEdit: false,
      notes:
        'The server answers a wrong API key the way the real API does: HTTP 400 INVALID_ARGUMENT, reason API_KEY_INVALID (not 401). The result line has status "error" and error.type "unknown", the API error JSON inside error.message; the exit code is the HTTP status modulo 256 (400 → 144).',
    },
    {
      agent: 'gemini',
      name: 'auth-forbidden',
      server: 'auth-forbidden',
      skipTrust: true,
      expectExit: 147,
      expectEdit: false,
      notes: 'HTTP 403 PERMISSION_DENIED: result status "error"; exit 147 (403 modulo 256).',
    },
    {
      agent: 'gemini',
      name: 'server-error',
      server: 'server-error',
      skipTrust: true,
      expectExit: 244,
      expectEdit: false,
      notes:
        'HTTP 500 INTERNAL on the main model (the routing side call succeeds), with settings general.maxAttempts = 1 (by default the CLI retries with back-off for minutes): result status "error", exit 244 (500 modulo 256). stderr names a client-error report file written to the temp directory.',
    },
    {
      agent: 'gemini',
      name: 'empty-response',
      server: 'empty-response',
      skipTrust: true,
      expectExit: 0,
      expectEdit: false,
      notes:
        'The model answers with a candidate that has no parts: an `error` line of severity "error" ("The model returned an empty response ...") and a result of status "error" without an error object, yet the process exits 0.',
    },
    {
      agent: 'gemini',
      name: 'not-signed-in',
      server: 'success-edit',
      skipTrust: true,
      signedOut: true,
      expectExit: 41,
      expectEdit: false,
      notes:
        'No API key, no base URL and no auth method in settings.json (a user who never signed in): nothing on stdout, not even the init line; exit 41 and "Please set an Auth method ..." on stderr. No request is made.',
    },
    {
      agent: 'gemini',
      name: 'success-edit',
      version: '0.11.3',
      server: 'success-edit',
      promptVia: 'stdin',
      expectExit: 0,
      expectEdit: true,
      notes:
        'The first release with stream-json (hydra refuses it: see auth-failure@0.11.3). Its -p is deprecated, so the prompt goes through stdin (the CLI appends "\\n\\n" to it). write_file needs an absolute path. `stats` has only total_tokens, input_tokens, output_tokens, duration_ms and tool_calls.',
    },
    {
      agent: 'gemini',
      name: 'auth-failure',
      version: '0.11.3',
      server: 'auth-failure',
      promptVia: 'stdin',
      expectExit: 0,
      expectEdit: false,
      notes:
        'gemini 0.11.3 on a 400 API_KEY_INVALID: the stream ends with a result of status "success" (tokens of the routing side call only) and the process exits 0; stderr says only "Error when talking to Gemini API" and names a report file. The stream cannot tell this failure from a success, so hydra requires 0.12.0 or later (0.12.0 turns API errors into a result of status "error").',
    },
    {
      agent: 'gemini',
      name: 'success-edit',
      version: '0.12.0',
      server: 'success-edit',
      promptVia: 'stdin',
      expectExit: 0,
      expectEdit: true,
      notes:
        'The oldest release hydra accepts. -p is deprecated, so the prompt goes through stdin ("\\n\\n" appended). `stats` has no cached, input or per-model fields.',
    },
    {
      agent: 'gemini',
      name: 'auth-failure',
      version: '0.12.0',
      server: 'auth-failure',
      promptVia: 'stdin',
      expectExit: 144,
      expectEdit: false,
      notes:
        'auth-failure (400 API_KEY_INVALID) as recorded with gemini 0.12.0: result status "error" (error.type "Error"), exit 144.',
    },
    {
      agent: 'gemini',
      name: 'deprecated-prompt-flag',
      version: '0.20.2',
      server: 'success-edit',
      expectExit: 0,
      expectEdit: true,
      notes:
        'Why hydra sends the prompt through stdin to versions whose -p is deprecated: with --prompt=<prompt>, gemini 0.20.2 prints its deprecation notice ("The --prompt (-p) flag has been deprecated ...") as an assistant `message` delta inside the stream-json output.',
    },
    {
      agent: 'gemini',
      name: 'success-edit',
      version: '0.30.1',
      server: 'success-edit',
      expectExit: 0,
      expectEdit: true,
      notes:
        'gemini 0.30.1: -p is the headless flag again; no --skip-trust yet (and no folder-trust refusal). `stats` has cached and input but no per-model split; init names the model "auto-gemini-3".',
    },
    {
      agent: 'gemini',
      name: 'auth-failure',
      version: '0.30.1',
      server: 'auth-failure',
      expectExit: 144,
      expectEdit: false,
      notes: 'auth-failure (400 API_KEY_INVALID) as recorded with gemini 0.30.1.',
    },
  ];
}

/** Qwen Code, run the way hydra runs it (`--approval-mode auto-edit`, the prompt as `--prompt=`). */
function qwenScenarios(): StreamScenario[] {
  return [
    {
      agent: 'qwen',
      name: 'success-edit',
      server: 'success-edit',
      expectExit: 0,
      expectEdit: true,
      notes:
        'Turn 1: the model answers with text and a write_file call (absolute file_path, content); turn 2: final text. Qwen Code prints the text and the tool_use as two assistant lines with different ids (the text one with zero usage), then a user line with the tool_result and a result line without a cost. input_tokens include the cached ones.',
    },
    {
      agent: 'qwen',
      name: 'partial-messages',
      server: 'success-edit',
      extraArgs: ['--include-partial-messages'],
      expectExit: 0,
      expectEdit: true,
      notes:
        'success-edit with --include-partial-messages: adds stream_event lines carrying Anthropic SSE shapes (message_start, content_block_delta with text_delta or input_json_delta, message_stop), translated by Qwen Code from the OpenAI chunks.',
    },
    {
      agent: 'qwen',
      name: 'auth-failure',
      server: 'auth-failure',
      expectExit: 1,
      expectEdit: false,
      notes:
        'The server answers 401 invalid_api_key. Exit 1 at once (no retry); the error arrives as assistant text "[API Error: 401 ...]" and a result line with subtype "error_during_execution", is_error true and error.message. No status field.',
    },
    {
      agent: 'qwen',
      name: 'server-error',
      server: 'server-error',
      expectExit: 1,
      expectEdit: false,
      notes:
        "The server answers 500 server_error. Qwen Code retries 7 times with backoff (about 80 s, nothing on stdout meanwhile; a 500's retry-after header is not honoured, only a 429's or 503's), then exits 1 with \"[API Error: 500 ...]\" text and an error_during_execution result.",
    },
    {
      agent: 'qwen',
      name: 'not-signed-in',
      server: 'success-edit',
      signedOut: true,
      expectExit: 1,
      expectEdit: false,
      notes:
        'No OPENAI_* variables and no auth type in settings.json (a user who installed Qwen Code and never signed in): one result line, subtype "error_during_execution", error.message "No auth type is selected. Please configure an auth type (e.g. via settings or `--auth-type`) ...", exit 1 after start-up. No request is made (also checked in a network namespace without interfaces).',
    },
    {
      agent: 'qwen',
      name: 'not-signed-in',
      version: '0.5.2',
      server: 'success-edit',
      signedOut: true,
      expectExit: 1,
      expectEdit: false,
      notes:
        'not-signed-in as recorded with qwen 0.5.2: the same result line with another message, "Please set an Auth method in your <HOME>/.qwen/settings.json or specify one of the following environment variables before running: QWEN_OAUTH, OPENAI_API_KEY".',
    },
    ...legacyScenarios('qwen', '0.15.10', {
      exit: 0,
      notes:
        'auth-failure (401) as recorded with qwen 0.15.10: it EXITS 0 and its result line says subtype "success", is_error false, with result "[API Error: 401 ...]". Only that text tells the run failed.',
    }),
    ...legacyScenarios('qwen', '0.5.2', {
      exit: 0,
      notes:
        'auth-failure (401) as recorded with qwen 0.5.2: like 0.15.10 it EXITS 0 with a "success" result whose text is "[API Error: 401 ...]".',
    }),
  ];
}

/** opencode, run the way hydra runs it: `run --format json`, the prompt on stdin, edits allowed. */
function opencodeScenarios(): StreamScenario[] {
  return [
    {
      agent: 'opencode',
      name: 'success-edit',
      server: 'success-edit',
      expectExit: 0,
      expectEdit: true,
      notes:
        'Turn 1: text and a write call (filePath, content); turn 2: final text. Lines: step_start, text, tool_use (printed once the tool finished: input, output and status together), step_finish with reason "tool-calls" and tokens, then step_start, text, step_finish with reason "stop". No result line. tokens.input excludes the cached tokens (tokens.cache.read). cost is 0: opencode has no price for the custom model. A title request without tools goes to the server first.',
    },
    {
      agent: 'opencode',
      name: 'auth-failure',
      server: 'auth-failure',
      expectExit: 1,
      expectEdit: false,
      notes:
        'The server answers 401 invalid_api_key. One line: {"type":"error","error":{"name":"APIError","data":{"statusCode":401,"isRetryable":false,...}}}, exit 1, no step at all.',
    },
    {
      agent: 'opencode',
      name: 'server-error',
      server: 'server-error',
      expectExit: 1,
      expectEdit: false,
      notes:
        'The server answers 500 server_error with a retry-after-ms header, which opencode honours: it retries quickly (without the header its backoff takes about 80 s), then prints one error line with statusCode 500 and isRetryable true, exit 1.',
    },
    {
      agent: 'opencode',
      name: 'permission-rejected',
      server: 'success-edit',
      env: { OPENCODE_PERMISSION: JSON.stringify({ edit: 'ask' }) },
      expectExit: 0,
      expectEdit: false,
      notes:
        'OPENCODE_PERMISSION makes edits "ask": `opencode run` rejects the write on the spot (stderr: "permission requested: edit (hello.txt); auto-rejecting"), the tool_use line has status "error", and the run ends after that step (reason "tool-calls") with exit 0 and no answer.',
    },
    ...legacyScenarios('opencode', '1.14.41', {
      exit: 0,
      notes:
        'auth-failure (401) as recorded with opencode 1.14.41: the same single error line as the latest, but the process EXITS 0 (1.18 exits 1). The error line alone says the run failed.',
    }),
    ...legacyScenarios('opencode', '1.3.2', {
      exit: 0,
      notes: 'auth-failure (401) as recorded with opencode 1.3.2: one error line and exit 0, as in 1.14.41.',
    }),
  ];
}

/** An older version's success and 401 runs, to test the parser against real schema drift. */
function legacyScenarios(
  agent: VendorAgent,
  version: string,
  auth: { exit: number; notes?: string } = { exit: 1 },
): StreamScenario[] {
  return [
    {
      agent,
      name: 'success-edit',
      version,
      server: 'success-edit',
      expectExit: 0,
      expectEdit: true,
      notes: `success-edit as recorded with ${agent} ${version} (older output schema).`,
    },
    {
      agent,
      name: 'auth-failure',
      version,
      server: 'auth-failure',
      expectExit: auth.exit,
      expectEdit: false,
      notes: auth.notes ?? `auth-failure (401) as recorded with ${agent} ${version} (older output schema).`,
    },
  ];
}

interface Options {
  agents: VendorAgent[];
  /** Only the streams of these file names (`auth-failure`, `success-edit@0.5.2`); all when empty. */
  scenarios: string[];
  help: boolean;
  streams: boolean;
  out: string;
}

const parseOptions = (root: string): Options => {
  const { values } = parseArgs({
    options: {
      agent: { type: 'string', multiple: true },
      only: { type: 'string' },
      out: { type: 'string' },
      scenario: { type: 'string', multiple: true },
    },
  });
  const agents = (values.agent ?? [...VENDOR_AGENTS]).map((agent) => {
    const known = VENDOR_AGENTS.find((candidate) => candidate === agent);
    if (known === undefined) throw new Error(`unknown --agent ${agent}: use ${VENDOR_AGENTS.join(', ')}`);
    return known;
  });
  if (values.only !== undefined && values.only !== 'help' && values.only !== 'streams') {
    throw new Error(`unknown --only ${values.only}: use help or streams`);
  }
  return {
    agents,
    scenarios: values.scenario ?? [],
    help: values.only !== 'streams',
    streams: values.only !== 'help',
    out: values.out ?? join(root, 'fixtures', 'adapters'),
  };
};

const today = (): string => new Date().toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// Help texts

const recordHelp = async (root: string, out: string, agent: VendorAgent, version: string): Promise<void> => {
  const install = await ensureVendorCli(root, agent, version);
  logInstall(install.agent, version, install.installed, install.installMs);
  const home = await mkdtemp(join(tmpdir(), 'hydra-help-'));
  try {
    const context = createContext([[home, `${FIXTURE_ROOT}/home`]]);
    const dir = join(out, agent, 'help', version);
    await mkdir(dir, { recursive: true });
    const commands: Array<[string, string[]]> = [
      ['version.txt', ['--version']],
      ['help.txt', ['--help']],
    ];
    if (agent === 'codex') commands.push(['exec-help.txt', ['exec', '--help']]);
    if (agent === 'opencode') commands.push(['run-help.txt', ['run', '--help']]);
    if (agent === 'qwen') await writeQwenOfflineSettings(home);
    const env = {
      ...baseEnv(),
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
      // Nothing listens on the discard port: a registry lookup fails at once, on loopback.
      ...(agent === 'opencode' ? opencodeOfflineEnv('http://127.0.0.1:9', home) : {}),
    };
    for (const [file, args] of commands) {
      const result = await execa(install.binary, args, {
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
        env,
        extendEnv: false,
      });
      if (result.exitCode !== 0) {
        throw new Error(
          `${agent}@${version} ${args.join(' ')} exited ${String(result.exitCode)}: ${result.stderr.slice(-500)}`,
        );
      }
      await writeFile(join(dir, file), ensureNewline(normalizeText(result.stdout, context)));
      // opencode 1.14 and later print their help on stderr: kept beside it when there is any.
      const stderrFile = join(dir, file.replace(/\.txt$/, '.stderr.txt'));
      if ((agent === 'qwen' || agent === 'opencode') && result.stderr.trim() !== '')
        await writeFile(stderrFile, ensureNewline(normalizeText(result.stderr, context)));
    }
    console.log(`help   ${agent}@${version} → ${dir}`);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
};

const ensureNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

// ---------------------------------------------------------------------------------------------
// Streams

interface RunOutcome {
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Whether the recorder had to stop it (stopAfterMs). */
  timedOut: boolean;
  ms: number;
}

const startServer = (scenario: StreamScenario, repo: string): Promise<FakeModelServer> => {
  switch (scenario.agent) {
    case 'claude':
      return startFakeAnthropicServer({
        scenario: scenario.server as AnthropicScenario,
        edit: { filePath: join(repo, EDIT_FILE), content: EDIT_CONTENT },
      });
    case 'codex':
      return startFakeOpenAiServer({
        scenario: scenario.server as OpenAiScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
      });
    case 'gemini':
      return startFakeGeminiServer({
        scenario: scenario.server as GeminiScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
      });
    case 'qwen':
    case 'opencode':
      return startFakeOpenAiChatServer({
        scenario: scenario.server as ChatScenario,
        edit: { path: EDIT_FILE, content: EDIT_CONTENT },
      });
  }
};

const runScenario = async (
  binary: string,
  scenario: StreamScenario,
  repo: string,
  home: string,
  server: FakeModelServer,
): Promise<RunOutcome> => {
  const extra = scenario.extraArgs ?? [];
  let args: string[];
  let env: Record<string, string>;
  let stdinFile: string | undefined;
  switch (scenario.agent) {
    case 'claude':
      args = [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'bypassPermissions',
        ...extra,
        '--',
        PROMPT,
      ];
      env = claudeOfflineEnv(server.url, home);
      break;
    case 'codex':
      await writeCodexOfflineConfig(join(home, '.codex'), server.url, scenario.model);
      args = ['exec', '--json', '-C', repo, '--sandbox', 'workspace-write', ...extra, '--', PROMPT];
      env = codexOfflineEnv(home);
      break;
    case 'gemini': {
      await writeGeminiOfflineSettings(home);
      args = [
        '--output-format',
        'stream-json',
        '--approval-mode',
        'auto_edit',
        ...(scenario.skipTrust === true ? ['--skip-trust'] : []),
        ...extra,
      ];
      if (scenario.promptVia === 'stdin') {
        stdinFile = join(home, '..', 'prompt.txt');
        await writeFile(stdinFile, PROMPT);
      } else {
        args.push(`--prompt=${PROMPT}`);
      }
      env = { ...geminiOfflineEnv(server.url, home), TMPDIR: join(home, '..', 'tmp') };
      await mkdir(env.TMPDIR!, { recursive: true });
      if (scenario.signedOut === true) {
        env = { HOME: home, TMPDIR: env.TMPDIR! };
        await writeGeminiOfflineSettings(home, { signedOut: true });
      }
      break;
    }
    case 'qwen':
      await writeQwenOfflineSettings(home);
      args = [
        '--output-format',
        'stream-json',
        '--approval-mode',
        'auto-edit',
        ...extra,
        `--prompt=${PROMPT}`,
      ];
      env = scenario.signedOut === true ? { HOME: home } : qwenOfflineEnv(server.url, home);
      break;
    case 'opencode':
      env = opencodeOfflineEnv(server.url, home);
      await writeOpencodeOfflineConfig(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), server.url);
      args = ['run', '--format', 'json', ...extra];
      // opencode reads the prompt from stdin (see src/adapters/opencode.ts), as hydra sends it.
      stdinFile = join(home, 'prompt.txt');
      await writeFile(stdinFile, PROMPT);
      env['OPENCODE_PERMISSION'] = JSON.stringify({ edit: 'allow' });
      break;
  }
  Object.assign(env, scenario.env ?? {});
  const started = Date.now();
  const result = await execa(binary, args, {
    cwd: repo,
    reject: false,
    stdin: stdinFile === undefined ? 'ignore' : { file: stdinFile },
    timeout: scenario.stopAfterMs ?? RUN_TIMEOUT_MS,
    forceKillAfterDelay: 5_000,
    env: { ...baseEnv(), ...env },
    extendEnv: false,
    stripFinalNewline: false,
  });
  return {
    argv: [scenario.agent, ...args],
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    timedOut: result.timedOut,
    ms: Date.now() - started,
  };
};

const checkOutcome = async (scenario: StreamScenario, outcome: RunOutcome, repo: string): Promise<void> => {
  const label = `${scenario.agent}/${fileNameOf(scenario)}`;
  if (scenario.stopAfterMs !== undefined) {
    if (!outcome.timedOut)
      throw new Error(`${label}: expected the run to hang until stopped, it ended by itself`);
  } else if (outcome.exitCode !== scenario.expectExit) {
    throw new Error(
      `${label}: expected exit ${scenario.expectExit}, got ${String(outcome.exitCode)} (signal ${String(outcome.signal)})\n` +
        `stdout tail: ${outcome.stdout.slice(-1500)}\nstderr tail: ${outcome.stderr.slice(-1500)}`,
    );
  }
  const edited = join(repo, EDIT_FILE);
  if (scenario.expectEdit) {
    const content = existsSync(edited) ? await readFile(edited, 'utf8') : null;
    if (content !== EDIT_CONTENT) {
      throw new Error(
        `${label}: expected the run to create ${EDIT_FILE} with ${JSON.stringify(EDIT_CONTENT)}, found ${JSON.stringify(content)}`,
      );
    }
  } else if (existsSync(edited)) {
    throw new Error(`${label}: the run should not have created ${EDIT_FILE}`);
  }
};

const recordStream = async (
  out: string,
  scenario: StreamScenario,
  binary: string,
  version: string,
): Promise<number> => {
  const root = await mkdtemp(join(tmpdir(), 'hydra-rec-'));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  await initFixtureRepo(repo);
  const server = await startServer(scenario, repo);
  try {
    const outcome = await runScenario(binary, scenario, repo, home, server);
    await checkOutcome(scenario, outcome, repo);
    // Stack traces on stderr name the vendor CLI's files in this checkout's cache.
    const vendor = join(findProjectRoot(), '.cache', 'vendor');
    const context: NormalizeContext = createContext(
      [
        [root, FIXTURE_ROOT],
        [vendor, `${FIXTURE_ROOT}/vendor`],
      ],
      server.port,
    );
    const dir = join(out, scenario.agent, 'streams');
    await mkdir(dir, { recursive: true });
    const stdout = normalizeText(outcome.stdout, context);
    const meta = {
      source: 'recorded',
      cliVersion: version,
      argv: normalizeArgv(outcome.argv, context),
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      stderr: normalizeText(outcome.stderr, context),
      recordedAt: today(),
      notes: scenario.notes,
    };
    await writeFile(join(dir, `${fileNameOf(scenario)}.jsonl`), stdout);
    await writeFile(join(dir, `${fileNameOf(scenario)}.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
    console.log(
      `stream ${scenario.agent}/${fileNameOf(scenario)}: exit ${String(outcome.exitCode)}, ${stdout.split('\n').filter(Boolean).length} lines, ` +
        `${server.requests.length} requests, ${outcome.ms} ms`,
    );
    return outcome.ms;
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
};

const fileNameOf = (scenario: StreamScenario): string =>
  scenario.version === undefined ? scenario.name : `${scenario.name}@${scenario.version}`;

const logInstall = (agent: VendorAgent, version: string, installed: boolean, ms: number): void => {
  if (installed) console.log(`install ${agent}@${version}: ${ms} ms`);
};

/** opencode before 1.18 downloads ripgrep from GitHub when `rg` is not on PATH: refuse instead. */
const requireRipgrep = async (version: string): Promise<void> => {
  const found = await execa('rg', ['--version'], { reject: false, stdin: 'ignore' }).catch(() => undefined);
  if (found?.exitCode !== 0)
    throw new Error(
      `opencode ${version} downloads ripgrep from the internet when \`rg\` is not on PATH; install it first (apt-get install ripgrep)`,
    );
};

const main = async (): Promise<void> => {
  const root = findProjectRoot();
  const options = parseOptions(root);
  for (const agent of options.agents) {
    if (options.help) {
      for (const version of HELP_VERSIONS[agent]) await recordHelp(root, options.out, agent, version);
    }
    if (options.streams) {
      const wanted = (candidate: StreamScenario): boolean =>
        candidate.agent === agent &&
        (options.scenarios.length === 0 || options.scenarios.includes(fileNameOf(candidate)));
      for (const scenario of SCENARIOS.filter(wanted)) {
        const version = scenario.version ?? RECORD_VERSIONS[agent];
        if (agent === 'opencode' && compareVersions(version, '1.18.0') < 0) await requireRipgrep(version);
        const install = await ensureVendorCli(root, agent, version);
        logInstall(agent, version, install.installed, install.installMs);
        await recordStream(options.out, scenario, install.binary, version);
      }
    }
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
