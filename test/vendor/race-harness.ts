/**
 * The whole of hydra end to end with the real vendor CLIs: a sandbox holding a git repository with
 * uncommitted user work, a PATH whose `claude` and `codex` are the pinned installs in
 * .cache/vendor/, a throwaway HOME (and CODEX_HOME with the offline provider config), both fake
 * model servers, and the real `hydra` entry point (node dist/cli/main.js) spawned as a process.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { assertNever } from '../../src/core/events.js';
import { startFakeAnthropicServer } from '../support/fake-anthropic-server.js';
import type { AnthropicScenario, FakeAnthropicOptions } from '../support/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../support/fake-openai-server.js';
import type { OpenAiScenario } from '../support/fake-openai-server.js';
import { startFakeGeminiServer } from '../support/fake-gemini-server.js';
import type { GeminiScenario } from '../support/fake-gemini-server.js';
import { startFakeOpenAiChatServer } from '../support/fake-openai-chat-server.js';
import type { ChatScenario } from '../support/fake-openai-chat-server.js';
import type { FakeModelServer, RecordedRequest } from '../support/fake-model-server.js';
import {
  CODEX_MODEL,
  CODEX_PROVIDER_KEY_VAR,
  RECORD_VERSIONS,
  claudeOfflineEnv,
  codexOfflineEnv,
  geminiOfflineEnv,
  opencodeOfflineEnv,
  qwenOfflineEnv,
  VENDOR_AGENTS,
  vendorBinary,
  writeCodexOfflineConfig,
  writeGeminiOfflineSettings,
  writeOpencodeOfflineConfig,
  writeQwenOfflineSettings,
} from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, EDIT_FILE, FINAL_TEXT, PROJECT_ROOT } from './harness.js';

const HYDRA_MAIN = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
const HYDRA_TIMEOUT_MS = 150_000;

/** Uncommitted work the user has in the repository when the race starts. */
export const USER_UNTRACKED = { path: 'notes.txt', content: 'my uncommitted notes\n' };
export const USER_MODIFIED = { path: 'README.md', content: '# fixture repo\n\nan uncommitted edit\n' };

/**
 * `hang`: a server that takes every request and never answers (an agent stuck on the network).
 * The experimental CLIs are on PATH too but race only when opted in; their servers answer
 * `success-edit` unless told otherwise.
 */
export interface RaceScenarios {
  claude: AnthropicScenario | 'hang';
  codex: OpenAiScenario | 'hang';
  gemini?: GeminiScenario | 'hang';
  qwen?: ChatScenario | 'hang';
  opencode?: ChatScenario | 'hang';
}

/**
 * How the agents find the CLIs and the fake servers:
 * - `environment`: `claude`/`codex` on PATH, the servers in the shell environment and in codex's
 *   config.toml in CODEX_HOME (a user who set things up in their shell);
 * - `hydra-toml`: nothing on PATH and nothing in the environment; a hydra config file (passed with
 *   `--config`) names each binary and model and gives each agent its `env`, and codex its provider
 *   through `extra_args` (`-c` overrides).
 */
export type RaceSetup = 'environment' | 'hydra-toml';

/** The models the hydra-toml setup configures, and the price it sets for codex's. */
export const CONFIGURED_MODELS = { claude: 'claude-sonnet-4-5', codex: CODEX_MODEL } as const;
export const CONFIGURED_CODEX_PRICE = {
  input_per_mtok: 2,
  output_per_mtok: 20,
  cache_read_per_mtok: 0.5,
} as const;

export interface HydraResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface RaceSandbox {
  /** Everything lives under this temp directory (removed by `cleanup`). */
  dir: string;
  repo: string;
  home: string;
  /** HYDRA_WORKTREE_ROOT: where hydra puts the race's worktrees. */
  worktreeRoot: string;
  /** The hydra config file of the `hydra-toml` setup (pass it with `--config`), else null. */
  configPath: string | null;
  env: Record<string, string>;
  servers: Record<VendorAgent, FakeModelServer>;
  hydra(args: readonly string[]): Promise<HydraResult>;
  /** Starts hydra without waiting for it (to signal it while the agents run). */
  spawnHydra(args: readonly string[]): ResultPromise;
  git(args: readonly string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * The Write tool needs an absolute path, and the claude agent runs in a worktree whose path hydra
 * picks at race time (it contains the run id). Claude Code names its working directory in the
 * system prompt of every model request, so the path is read from the request being answered (the
 * server logs a request before answering it).
 */
const WORKING_DIRECTORY = /(?:Primary working directory|Working directory): ([^\s"\\]+)/;

export const claudeWorkingDirectory = (request: RecordedRequest | undefined): string | undefined =>
  request === undefined ? undefined : WORKING_DIRECTORY.exec(request.text)?.[1];

const startClaudeServer = async (scenario: AnthropicScenario, shell?: string): Promise<FakeModelServer> => {
  const started: { server?: FakeModelServer } = {};
  const options: FakeAnthropicOptions = {
    scenario,
    finalText: FINAL_TEXT,
    ...(shell === undefined ? {} : { shell }),
    get edit() {
      const cwd = claudeWorkingDirectory(started.server?.requests.at(-1));
      if (cwd === undefined) {
        throw new Error('the claude request names no working directory: cannot place the Write tool call');
      }
      return { filePath: join(cwd, EDIT_FILE), content: EDIT_CONTENT };
    },
  };
  started.server = await startFakeAnthropicServer(options);
  return started.server;
};

/** Logs every request and never answers it; `close` drops the open connections. */
const startHangingServer = async (): Promise<FakeModelServer> => {
  const requests: RecordedRequest[] = [];
  const server = createServer((request) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      requests.push({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        headers,
        text,
        json: parseJsonOrUndefined(text),
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const parseJsonOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const startServers = async (
  scenarios: RaceScenarios,
  shell?: string,
): Promise<Record<VendorAgent, FakeModelServer>> => {
  const claude =
    scenarios.claude === 'hang'
      ? await startHangingServer()
      : await startClaudeServer(scenarios.claude, shell);
  const codex =
    scenarios.codex === 'hang'
      ? await startHangingServer()
      : await startFakeOpenAiServer({
          scenario: scenarios.codex,
          edit: { path: EDIT_FILE, content: EDIT_CONTENT },
          finalText: FINAL_TEXT,
          ...(shell === undefined ? {} : { shell }),
        });
  // Gemini CLI names its working directory in every request: the server writes into that worktree.
  const gemini =
    scenarios.gemini === 'hang'
      ? await startHangingServer()
      : await startFakeGeminiServer({
          scenario: scenarios.gemini ?? 'success-edit',
          edit: { path: EDIT_FILE, content: EDIT_CONTENT },
          finalText: FINAL_TEXT,
        });
  // Qwen Code and opencode name theirs too, and speak the same Chat Completions API.
  const chat = (scenario: ChatScenario | 'hang' | undefined): Promise<FakeModelServer> =>
    scenario === 'hang'
      ? startHangingServer()
      : startFakeOpenAiChatServer({
          scenario: scenario ?? 'success-edit',
          edit: { path: EDIT_FILE, content: EDIT_CONTENT },
          finalText: FINAL_TEXT,
        });
  return {
    claude,
    codex,
    gemini,
    qwen: await chat(scenarios.qwen),
    opencode: await chat(scenarios.opencode),
  };
};

const closeServers = (servers: Record<VendorAgent, FakeModelServer>): Promise<unknown> =>
  Promise.all(Object.values(servers).map((server) => server.close()));

const gitIn = async (cwd: string, env: Record<string, string>, args: readonly string[]): Promise<string> => {
  const result = await execa('git', args, { cwd, env, extendEnv: false, stdin: 'ignore' });
  return result.stdout;
};

/** The user's repository: one commit, plus an untracked file and a modified tracked file. */
const createUserRepo = async (repo: string, env: Record<string, string>): Promise<void> => {
  await mkdir(repo, { recursive: true });
  await gitIn(repo, env, ['init', '-q', '-b', 'main']);
  await writeFile(join(repo, 'README.md'), '# fixture repo\n');
  await gitIn(repo, env, ['add', 'README.md']);
  await gitIn(repo, env, ['commit', '-q', '-m', 'initial commit']);
  await writeFile(join(repo, USER_UNTRACKED.path), USER_UNTRACKED.content);
  await writeFile(join(repo, USER_MODIFIED.path), USER_MODIFIED.content);
};

/** Every vendor CLI on PATH is a symlink to its pinned install, as a global npm install makes it. */
const linkVendorBinaries = async (bin: string): Promise<void> => {
  await mkdir(bin, { recursive: true });
  for (const agent of VENDOR_AGENTS) {
    await symlink(vendorBinary(PROJECT_ROOT, agent, RECORD_VERSIONS[agent]), join(bin, agent));
  }
};

export const tomlString = (value: string): string => JSON.stringify(value);

/** An inline TOML table of string values (an agent's `env`). */
export const tomlTable = (env: Record<string, string>): string =>
  `{ ${Object.entries(env)
    .map(([name, value]) => `${name} = ${tomlString(value)}`)
    .join(', ')} }`;

/** Codex's `-c` overrides that point it at the fake Responses server, offline (codex.extra_args). */
export const codexProviderArgs = (codexServerUrl: string): string[] => {
  const provider =
    `model_providers.fake={name="fake",base_url="${codexServerUrl}/v1",env_key="${CODEX_PROVIDER_KEY_VAR}",` +
    'wire_api="responses",request_max_retries=0,stream_max_retries=0}';
  return [
    '-c',
    'model_provider="fake"',
    '-c',
    provider,
    '-c',
    'analytics.enabled=false',
    '-c',
    'features.plugins=false',
    '-c',
    'features.unbounded_connection_retries=false',
  ];
};

/** A hydra config that names the pinned binaries and carries everything the agents need to go offline. */
const hydraToml = (claudeEnv: Record<string, string>, codexServerUrl: string): string => {
  const table = tomlTable;
  const codexArgs = codexProviderArgs(codexServerUrl);
  return [
    '[agents.claude]',
    `binary = ${tomlString(vendorBinary(PROJECT_ROOT, 'claude', RECORD_VERSIONS.claude))}`,
    `model = ${tomlString(CONFIGURED_MODELS.claude)}`,
    `env = ${table(claudeEnv)}`,
    '',
    '[agents.codex]',
    `binary = ${tomlString(vendorBinary(PROJECT_ROOT, 'codex', RECORD_VERSIONS.codex))}`,
    `model = ${tomlString(CONFIGURED_MODELS.codex)}`,
    `extra_args = [${codexArgs.map(tomlString).join(', ')}]`,
    `env = ${table({ [CODEX_PROVIDER_KEY_VAR]: 'sk-test' })}`,
    '',
    `[prices.${tomlString(CODEX_MODEL)}]`,
    ...Object.entries(CONFIGURED_CODEX_PRICE).map(([key, value]) => `${key} = ${String(value)}`),
    '',
    // Codex's server is named in its `-c` extra_args, not in a base-URL variable: a sandboxed agent
    // reaches it through that (docs/sandbox.md); allow_hosts as a user may also configure it.
    '[sandbox]',
    `allow_hosts = [${tomlString(new URL(codexServerUrl).hostname)}]`,
    '',
  ].join('\n');
};

/** `shell`: the command the claude and codex fake models have their CLI's shell tool run on turn 1. */
export const createRaceSandbox = async (
  scenarios: RaceScenarios,
  setup: RaceSetup = 'environment',
  options: { shell?: string } = {},
): Promise<RaceSandbox> => {
  const dir = await mkdtemp(join(tmpdir(), 'hydra-vendor-race-'));
  const repo = join(dir, 'repo');
  const home = join(dir, 'home');
  const bin = join(dir, 'bin');
  const worktreeRoot = join(dir, 'worktrees');
  const servers = await startServers(scenarios, options.shell);
  try {
    for (const sub of [
      home,
      worktreeRoot,
      join(dir, 'tmp'),
      join(dir, 'xdg-config'),
      join(dir, 'xdg-cache'),
    ]) {
      await mkdir(sub, { recursive: true });
    }
    await mkdir(bin, { recursive: true });
    // A user's git identity, as on any machine where people commit.
    await writeFile(
      join(home, '.gitconfig'),
      '[user]\n\tname = Vendor Tester\n\temail = vendor@hydra.invalid\n',
    );
    // IS_SANDBOX is hydra's decision (only for --unsafe races), so the user's environment lacks it.
    const { IS_SANDBOX: _sandbox, HOME: _home, ...claudeEnv } = claudeOfflineEnv(servers.claude.url, home);
    const env: Record<string, string> = {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      TMPDIR: join(dir, 'tmp'),
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
      XDG_CACHE_HOME: join(dir, 'xdg-cache'),
      HYDRA_WORKTREE_ROOT: worktreeRoot,
    };
    let configPath: string | null = null;
    switch (setup) {
      case 'environment':
        await linkVendorBinaries(bin);
        await writeCodexOfflineConfig(join(home, '.codex'), servers.codex.url);
        Object.assign(env, claudeEnv, codexOfflineEnv(home));
        await writeGeminiOfflineSettings(home);
        Object.assign(env, geminiOfflineEnv(servers.gemini.url, home), { HOME: home });
        await writeQwenOfflineSettings(home);
        Object.assign(env, qwenOfflineEnv(servers.qwen.url, home));
        Object.assign(env, opencodeOfflineEnv(servers.opencode.url, home));
        await writeOpencodeOfflineConfig(
          env['XDG_CONFIG_HOME'] ?? join(home, '.config'),
          servers.opencode.url,
        );
        break;
      case 'hydra-toml':
        configPath = join(dir, 'hydra-config.toml');
        await writeFile(configPath, hydraToml(claudeEnv, servers.codex.url));
        break;
      default:
        assertNever(setup);
    }
    await createUserRepo(repo, env);
    return {
      dir,
      repo,
      home,
      worktreeRoot,
      configPath,
      env,
      servers,
      hydra: (args) => runHydra(args, repo, env),
      spawnHydra: (args) => spawnHydra(args, repo, env),
      git: (args) => gitIn(repo, env, args),
      cleanup: async () => {
        await closeServers(servers);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await closeServers(servers);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
};

const spawnHydra = (args: readonly string[], cwd: string, env: Record<string, string>): ResultPromise =>
  execa(process.execPath, [HYDRA_MAIN, ...args], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: HYDRA_TIMEOUT_MS,
    forceKillAfterDelay: 5_000,
    stripFinalNewline: false,
  });

export const hydraResult = async (running: ResultPromise): Promise<HydraResult> => {
  const result = await running;
  return {
    exitCode: result.exitCode ?? null,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
  };
};

const runHydra = (args: readonly string[], cwd: string, env: Record<string, string>): Promise<HydraResult> =>
  hydraResult(spawnHydra(args, cwd, env));

/** Polls `condition` every 100 ms until it holds; throws `what` after `timeoutMs`. */
export const waitFor = async (condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

// ---------------------------------------------------------------------------------------------
// Headless output

export type NdjsonLine = Record<string, unknown>;

/** Every line of stdout must be one JSON object; throws naming the first line that is not. */
export const parseNdjson = (stdout: string): NdjsonLine[] => {
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      throw new Error(`stdout line ${index + 1} is not JSON: ${line.slice(0, 300)}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`stdout line ${index + 1} is not a JSON object: ${line.slice(0, 300)}`);
    }
    return value as NdjsonLine;
  });
};

export interface SummaryAgent {
  agent: string;
  status: string;
  exitCode: number | null;
  durationMs: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    turns: number;
    costUsd: number | null;
    costSource: string;
  };
  diff: { filesChanged: number; insertions: number; deletions: number } | null;
  branch: string;
  worktree: string | null;
  /** Where it ran (`local` or `container`) and, in a container, the engine's host. */
  runner?: string;
  host?: string;
  /** What sandboxed it (`bubblewrap`), or null. */
  sandbox?: string | null;
  error?: { kind: string; message: string; hint: string };
}

export interface SummaryLine {
  type: 'summary';
  runId: string;
  agents: SummaryAgent[];
}

export const summaryAgent = (summary: SummaryLine, agent: VendorAgent): SummaryAgent => {
  const found = summary.agents.find((entry) => entry.agent === agent);
  if (found === undefined)
    throw new Error(`the summary has no entry for ${agent}: ${JSON.stringify(summary)}`);
  return found;
};

// ---------------------------------------------------------------------------------------------
// Processes

/**
 * Live processes that belong to the sandbox: their environment carries one of the race's run ids
 * (hydra sets HYDRA_RUN_ID on every agent; children inherit it) or their working directory is
 * inside the sandbox. Read from /proc, so a vendor CLI's own children count too.
 */
export const sandboxProcesses = (sandboxDir: string, runIds: readonly string[]): string[] => {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = readProc(join('/proc', entry, 'environ'));
    const cwd = readLink(join('/proc', entry, 'cwd'));
    const ours =
      runIds.some((runId) => environ.includes(`HYDRA_RUN_ID=${runId}\0`)) ||
      (cwd !== '' && cwd.startsWith(sandboxDir));
    if (ours)
      found.push(
        `${entry} ${readProc(join('/proc', entry, 'cmdline'))
          .replaceAll('\0', ' ')
          .trim()} (cwd ${cwd})`,
      );
  }
  return found;
};

const readProc = (path: string): string => {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
};

const readLink = (path: string): string => {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
};

/** Worktrees `git worktree list --porcelain` reports, as paths. */
export const worktreePaths = (porcelain: string): string[] =>
  porcelain
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));

export const readIfExists = (path: string): string | null =>
  existsSync(path) ? readFileSync(path, 'utf8') : null;
