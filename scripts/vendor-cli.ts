/**
 * The real vendor CLIs, pinned and installed on demand into the ignored cache
 * (`.cache/vendor/<package>@<version>/`), and the environment that runs them offline against the
 * fake model servers in test/support/. Shared by `npm run fixtures:record` and `npm run test:vendor`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

// prettier-ignore
export type VendorAgent =
  | 'claude'
  | 'codex'
  | 'gemini'
  | 'qwen'
  | 'opencode';

// prettier-ignore
export const VENDOR_AGENTS: readonly VendorAgent[] = [
  'claude',
  'codex',
  'gemini',
  'qwen',
  'opencode',
];

const VENDOR_PACKAGES: Record<VendorAgent, string> = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
  qwen: '@qwen-code/qwen-code',
  opencode: 'opencode-ai',
};

/** The versions whose streams are recorded and that the vendor suite runs (the latest at recording time). */
export const RECORD_VERSIONS: Record<VendorAgent, string> = {
  claude: '2.1.330',
  codex: '0.169.0',
  gemini: '0.61.0',
  qwen: '0.24.4',
  opencode: '1.18.33',
};

/**
 * Versions whose `--version`/`--help` texts are kept, oldest first, spanning more than a year of
 * releases so the capability probe is tested against real flag drift.
 */
export const HELP_VERSIONS: Record<VendorAgent, readonly string[]> = {
  claude: ['1.0.59', '2.0.70', '2.1.330'],
  codex: ['0.20.0', '0.44.0', '0.118.0', '0.169.0'],
  gemini: ['0.1.1', '0.10.0', '0.11.3', '0.12.0', '0.20.2', '0.30.1', '0.40.1', '0.61.0'],
  qwen: ['0.1.3', '0.5.2', '0.15.10', '0.24.4'],
  opencode: ['0.1.174', '1.0.0', '1.3.2', '1.14.41', '1.18.33'],
};

/** The model name codex knows metadata for (an unknown name adds an `error` item to the stream). */
export const CODEX_MODEL = 'gpt-5.5';

/** The project root (this file lives in scripts/, or in .cache/scripts/scripts/ once compiled). */
export const findProjectRoot = (from: string = dirname(fileURLToPath(import.meta.url))): string => {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'fixtures'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no project root (package.json + fixtures/) above ${from}`);
    dir = parent;
  }
};

/** Where `<package>@<version>` is installed in the cache (its npm prefix). */
export const vendorDir = (root: string, agent: VendorAgent, version: string): string =>
  join(root, '.cache', 'vendor', `${VENDOR_PACKAGES[agent]}@${version}`);

export const vendorBinary = (root: string, agent: VendorAgent, version: string): string =>
  join(vendorDir(root, agent, version), 'node_modules', '.bin', agent);

export interface VendorInstall {
  agent: VendorAgent;
  version: string;
  binary: string;
  /** False when the cache already held a working install. */
  installed: boolean;
  installMs: number;
}

/**
 * Makes sure `<package>@<version>` is installed in the cache and answers `--version` with that
 * version; installs it with `npm install --prefix <dir> --no-save` otherwise. A version check that
 * passed is remembered in the install (VERIFIED_MARK): on two busy cores some CLIs take over a
 * minute to answer `--version` (Gemini CLI 0.30: 65 s at load 15), so every run asking each of the
 * two dozen installs again would cost minutes, and a short limit failed installs that were fine.
 */
export const ensureVendorCli = async (
  root: string,
  agent: VendorAgent,
  version: string,
): Promise<VendorInstall> => {
  const binary = vendorBinary(root, agent, version);
  const mark = join(vendorDir(root, agent, version), VERIFIED_MARK);
  if (existsSync(binary) && existsSync(mark) && (await readFile(mark, 'utf8')) === version) {
    return { agent, version, binary, installed: false, installMs: 0 };
  }
  if (await reportsVersion(binary, version)) {
    await writeFile(mark, version);
    return { agent, version, binary, installed: false, installMs: 0 };
  }
  const dir = vendorDir(root, agent, version);
  await mkdir(dir, { recursive: true });
  const started = Date.now();
  const result = await execa(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${VENDOR_PACKAGES[agent]}@${version}`,
    ],
    { reject: false, stdin: 'ignore', timeout: 600_000 },
  );
  const installMs = Date.now() - started;
  if (result.exitCode !== 0) {
    throw new Error(
      `could not install ${VENDOR_PACKAGES[agent]}@${version} into ${dir} (npm exit ${String(result.exitCode)}): ` +
        `${result.stderr.slice(-1000)}\nCheck that the npm registry is reachable, or delete ${dir} and retry.`,
    );
  }
  if (!(await reportsVersion(binary, version))) {
    throw new Error(
      `${binary} was installed but \`--version\` did not print ${version} within ${VERSION_TIMEOUT_MS / 1000} s; ` +
        `delete ${dir} and retry.`,
    );
  }
  await writeFile(mark, version);
  return { agent, version, binary, installed: true, installMs };
};

/** In an install's directory once its binary printed its version. */
const VERIFIED_MARK = '.hydra-verified';

/** How long `--version` may take (Gemini CLI 0.30 took 65 s on two cores at load 15). */
const VERSION_TIMEOUT_MS = 300_000;

const reportsVersion = async (binary: string, version: string): Promise<boolean> => {
  if (!existsSync(binary)) return false;
  const result = await execa(binary, ['--version'], {
    reject: false,
    stdin: 'ignore',
    timeout: VERSION_TIMEOUT_MS,
    env: { HOME: process.env.HOME ?? '/tmp' },
  });
  return result.exitCode === 0 && result.stdout.includes(version);
};

/**
 * Variables that point Claude Code at the fake Anthropic server and keep it offline and quiet.
 * IS_SANDBOX=1 lets bypassPermissions run as root; CLAUDE_CODE_MAX_RETRIES=0 makes 401/5xx fail
 * at once instead of retrying for minutes.
 */
export const claudeOfflineEnv = (serverUrl: string, home: string): Record<string, string> => ({
  HOME: home,
  ANTHROPIC_BASE_URL: serverUrl,
  ANTHROPIC_API_KEY: 'sk-test',
  IS_SANDBOX: '1',
  CLAUDE_CODE_MAX_RETRIES: '0',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDECODE: '',
});

export const CODEX_PROVIDER_KEY_VAR = 'FAKE_OPENAI_API_KEY';

/**
 * Writes `<codexHome>/config.toml` that points codex at the fake Responses server as a custom
 * provider, with retries off (a 401/500 fails at once) and the features that reach out to the
 * internet disabled. A config file rather than `-c` flags keeps the recorded argv what hydra runs.
 */
export const writeCodexOfflineConfig = async (
  codexHome: string,
  serverUrl: string,
  model = CODEX_MODEL,
): Promise<void> => {
  await mkdir(codexHome, { recursive: true });
  const toml = [
    `model = "${model}"`,
    'model_provider = "fake"',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    'unbounded_connection_retries = false',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${serverUrl}/v1"`,
    `env_key = "${CODEX_PROVIDER_KEY_VAR}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
  await writeFile(join(codexHome, 'config.toml'), toml);
};

export const codexOfflineEnv = (home: string): Record<string, string> => ({
  HOME: home,
  CODEX_HOME: join(home, '.codex'),
  [CODEX_PROVIDER_KEY_VAR]: 'sk-test',
});

/**
 * `<home>/.gemini/settings.json` that keeps Gemini CLI on loopback, quiet and quick to fail:
 * - `security.auth.selectedType = "gemini-api-key"`: with only GOOGLE_GEMINI_BASE_URL set, the
 *   CLI picks its "gateway" auth type, which headless mode rejects ("Invalid auth method selected.");
 * - no usage statistics, telemetry or update check (both the 0.1x-0.2x `disableAutoUpdate` /
 *   `disableUpdateNag` keys and the later `enableAutoUpdate*` ones; each version ignores the others);
 * - `tools.useRipgrep = false`: 0.1x-0.3x download ripgrep from GitHub at start-up when `rg` is missing;
 * - `general.maxAttempts = 1`: one attempt at the main model (a 500 fails at once instead of after
 *   about ten retries with back-off; 0.1x-0.2x have no such setting and retry).
 * `signedOut` leaves the auth method out: a user who never signed in.
 */
export const writeGeminiOfflineSettings = async (
  home: string,
  options: { signedOut?: boolean } = {},
): Promise<void> => {
  const dir = join(home, '.gemini');
  await mkdir(dir, { recursive: true });
  const settings = {
    ...(options.signedOut === true ? {} : { security: { auth: { selectedType: 'gemini-api-key' } } }),
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    tools: { useRipgrep: false },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      disableAutoUpdate: true,
      disableUpdateNag: true,
      maxAttempts: 1,
    },
  };
  await writeFile(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
};

/** Gemini CLI's API endpoint and key, from its environment (the settings file picks the key auth). */
export const geminiOfflineEnv = (serverUrl: string, home: string): Record<string, string> => ({
  HOME: home,
  GOOGLE_GEMINI_BASE_URL: serverUrl,
  GEMINI_API_KEY: 'test-gemini-key',
});

/** The model name the OpenAI-compatible fake server answers as (Qwen Code and opencode). */
const CHAT_MODEL = 'fake-chat-model';

/**
 * `<home>/.qwen/settings.json` that keeps Qwen Code on loopback and quiet: no usage statistics (by
 * default it reports to Alibaba Cloud's RUM service), no telemetry, no update check, no managed
 * memory (a background sub-agent that adds a model call with tools after the run), and no retries
 * inside the OpenAI SDK (Qwen Code's own retry loop still retries a 5xx for about 80 s).
 */
export const writeQwenOfflineSettings = async (home: string): Promise<void> => {
  const dir = join(home, '.qwen');
  await mkdir(dir, { recursive: true });
  const settings = {
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNudge: true },
    memory: { enableManagedAutoMemory: false },
    model: { generationConfig: { maxRetries: 0 } },
  };
  await writeFile(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
};

/** Qwen Code's OpenAI-compatible provider, from its environment. */
export const qwenOfflineEnv = (serverUrl: string, home: string): Record<string, string> => ({
  HOME: home,
  OPENAI_BASE_URL: `${serverUrl}/v1`,
  OPENAI_API_KEY: 'sk-test',
  OPENAI_MODEL: CHAT_MODEL,
});

/** The provider/model opencode is told to use (its config names the fake provider `fake`). */
const OPENCODE_MODEL = `fake/${CHAT_MODEL}`;

/**
 * `<configHome>/opencode/opencode.json` with a custom OpenAI-compatible provider `fake` pointing at
 * the fake server, its model as the default, no auto-update and no sharing. A config file rather
 * than flags keeps the recorded argv what hydra runs.
 */
export const writeOpencodeOfflineConfig = async (configHome: string, serverUrl: string): Promise<void> => {
  const dir = join(configHome, 'opencode');
  await mkdir(dir, { recursive: true });
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: OPENCODE_MODEL,
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${serverUrl}/v1`, apiKey: 'sk-test' },
        models: { [CHAT_MODEL]: { name: 'Fake chat model' } },
      },
    },
  };
  await writeFile(join(dir, 'opencode.json'), `${JSON.stringify(config, null, 2)}\n`);
};

/**
 * opencode's directories under `home` and the switches that keep it on loopback: no model
 * catalogue fetch (models.dev), no auto-update, no default plugins or LSP downloads, no sharing.
 * It also installs its plugin package into every config directory in the background with its own
 * npm client: the registry is pointed at the fake server, which answers 404, so that fails at once.
 * Releases before 1.18 download ripgrep from GitHub when `rg` is not on PATH.
 */
export const opencodeOfflineEnv = (serverUrl: string, home: string): Record<string, string> => ({
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
  npm_config_registry: `${serverUrl}/npm/`,
});

/** A minimal environment for a vendor CLI: PATH and locale from the parent, nothing else. */
export const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
};

/** Creates a git repository with one commit (README.md), as hydra's worktrees look. */
export const initFixtureRepo = async (repo: string): Promise<void> => {
  await mkdir(repo, { recursive: true });
  const git = (args: string[]): Promise<unknown> =>
    execa('git', ['-c', 'user.name=Hydra Fixture', '-c', 'user.email=fixture@hydra.invalid', ...args], {
      cwd: repo,
      stdin: 'ignore',
    });
  await git(['init', '-q', '-b', 'main']);
  await writeFile(join(repo, 'README.md'), '# fixture repo\n');
  await git(['add', 'README.md']);
  await git(['commit', '-q', '-m', 'initial commit']);
};
