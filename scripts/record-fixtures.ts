/**
 * `npm run fixtures:record`: installs the pinned real CLIs into .cache/vendor/, runs each one
 * headless against the fake model servers in a temp git repository, and writes
 * fixtures/adapters/<agent>/ (help texts of several versions, normalized stdout streams with their
 * meta.json). See fixtures/adapters/README.md for the layout.
 *
 * Options:
 *   --agent claude|codex   only this agent (repeatable)
 *   --only help|streams    only the help texts, or only the streams
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
import type { FakeModelServer } from '../test/support/fake-model-server.js';
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
  initFixtureRepo,
  writeCodexOfflineConfig,
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
  server: AnthropicScenario | OpenAiScenario;
  extraArgs?: readonly string[];
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

/** An older version's success and 401 runs, to test the parser against real schema drift. */
function legacyScenarios(agent: VendorAgent, version: string): StreamScenario[] {
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
      expectExit: 1,
      expectEdit: false,
      notes: `auth-failure (401) as recorded with ${agent} ${version} (older output schema).`,
    },
  ];
}

interface Options {
  agents: VendorAgent[];
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
    },
  });
  const agents = (values.agent ?? [...VENDOR_AGENTS]).map((agent) => {
    if (agent !== 'claude' && agent !== 'codex')
      throw new Error(`unknown --agent ${agent}: use claude or codex`);
    return agent;
  });
  if (values.only !== undefined && values.only !== 'help' && values.only !== 'streams') {
    throw new Error(`unknown --only ${values.only}: use help or streams`);
  }
  return {
    agents,
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
    for (const [file, args] of commands) {
      const result = await execa(install.binary, args, {
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
        env: { ...baseEnv(), HOME: home, CODEX_HOME: join(home, '.codex') },
        extendEnv: false,
      });
      if (result.exitCode !== 0) {
        throw new Error(
          `${agent}@${version} ${args.join(' ')} exited ${String(result.exitCode)}: ${result.stderr.slice(-500)}`,
        );
      }
      await writeFile(join(dir, file), ensureNewline(normalizeText(result.stdout, context)));
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
  }
  const started = Date.now();
  const result = await execa(binary, args, {
    cwd: repo,
    reject: false,
    stdin: 'ignore',
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
    const context: NormalizeContext = createContext([[root, FIXTURE_ROOT]], server.port);
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

const main = async (): Promise<void> => {
  const root = findProjectRoot();
  const options = parseOptions(root);
  for (const agent of options.agents) {
    if (options.help) {
      for (const version of HELP_VERSIONS[agent]) await recordHelp(root, options.out, agent, version);
    }
    if (options.streams) {
      for (const scenario of SCENARIOS.filter((candidate) => candidate.agent === agent)) {
        const version = scenario.version ?? RECORD_VERSIONS[agent];
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
