/**
 * Qwen Code (`qwen`): headless runs with `--output-format stream-json`, a Gemini CLI fork whose
 * stream copies Claude Code's (read by anthropic-stream.ts for both). What is its own: usage
 * counts input tokens the OpenAI way (cached ones included), errors arrive as
 * `[API Error: <status> ...]` text and a `result` with `subtype: "error_during_execution"`, and no
 * cost is reported.
 *
 * Approval: `--approval-mode auto-edit` lets it edit files in its worktree unattended while its
 * shell tool stays out of reach (Qwen Code leaves `run_shell_command` out of the tools it offers
 * the model in that mode); `--unsafe` and a race in hydra's OS sandbox switch to `yolo`. In the
 * sandbox, QWEN_SANDBOX=false keeps its own whole-CLI sandbox off, and its warning that yolo runs
 * "with no sandbox" is silenced (QWEN_CODE_SUPPRESS_YOLO_WARNING): hydra's holds it.
 *
 * The prompt: the positional prompt is parsed by yargs, which turns "0x10" into 16 and reads a
 * leading dash as a flag, and `qwen -- "<prompt>"` ignores the prompt altogether. `--prompt=<text>`
 * (one argument, so yargs takes the rest verbatim) delivers it byte for byte; prompts too long for
 * an argument go through stdin, which Qwen Code reads as the prompt (it appends two newlines).
 */
import { probeCli, GEMINI_FAMILY_FLAGS } from './kit/index.js';
import { defineAdapter, commandOf, fullAutonomy, modelArgs, resumeArgs } from './kit/index.js';
import { AnthropicParser } from './kit/index.js';
import type { BuildCommand, CliFacts, ToolTable } from './kit/index.js';

/** Its tools' lines (what the dashboard shows for a call). */
const TOOLS: ToolTable = {
  shell: ['run_shell_command'],
  path: ['write_file', 'read_file', 'list_directory'],
  pattern: ['grep_search'],
  task: ['agent'],
};

const CLI: CliFacts = {
  id: 'qwen',
  displayName: 'Qwen Code',
  installHint: 'npm install -g @qwen-code/qwen-code',
  signInHint:
    'Run `qwen` once and choose how to sign in (/auth), or set OPENAI_API_KEY (with OPENAI_BASE_URL and OPENAI_MODEL for your provider) in the environment or in hydra.toml [agents.qwen.env].',
  // The price database lists Alibaba's Qwen models as OpenRouter does, `qwen/<model>`.
  priceListing: { provider: 'openrouter', prefix: 'qwen/' },
  failures: {
    // No provider set up at all (a user who never signed in): 0.5.x "Please set an Auth method in
    // your .../settings.json ...", 0.15 on "No auth type is selected".
    notSignedIn: /no auth type is selected|please set an auth method/i,
    retried: 'Qwen Code retried it for about a minute',
  },
  tools: TOOLS,
};

const probe = probeCli(CLI, {
  /** The flags hydra uses, as `qwen --help` lists them. */
  flags: {
    ...GEMINI_FAMILY_FLAGS,
    approvalMode: {
      flags: ['--approval-mode'],
      means: 'the approval mode: auto-edit, or yolo for --unsafe and sandboxed races',
    },
    autoEdit: { flags: ['--approval-mode'], says: /auto-edit/, means: 'to edit files unattended' },
    partialMessages: { flags: ['--include-partial-messages'], means: 'text as it streams' },
    maxTurns: { flags: ['--max-session-turns'], means: 'a turn limit' },
  },
  requires: [['streamJson'], ['autoEdit', 'yolo']],
  lacking: {
    autoEdit:
      'has no --approval-mode auto-edit: races run it with --yolo only when --unsafe is given, and otherwise it may be unable to edit files.',
    promptFlag: 'has no --prompt flag: hydra sends every prompt through stdin.',
  },
});

const approvalArgs = (full: boolean, features: Record<string, boolean>): string[] => {
  const mode = features['approvalMode'] === true;
  if (full) return mode ? ['--approval-mode', 'yolo'] : features['yolo'] === true ? ['--yolo'] : [];
  return mode && features['autoEdit'] === true ? ['--approval-mode', 'auto-edit'] : [];
};

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const args = [
    '--output-format',
    'stream-json',
    ...approvalArgs(fullAutonomy(request), features),
    ...modelArgs(request),
  ];
  if (request.maxTurns !== undefined && features['maxTurns'] === true)
    args.push('--max-session-turns', String(request.maxTurns));
  args.push(...resumeArgs(request, capabilities, '--resume'));
  // One `--prompt=<prompt>` argument (yargs takes everything after `=`, a leading dash included);
  // without it Qwen Code reads the prompt from stdin (a file, never a pipe).
  const prompt = { forceStdin: features['promptFlag'] === false, argvFlag: '--prompt' };
  const env: Record<string, string> =
    request.sandboxed === true ? { QWEN_SANDBOX: 'false', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' } : {};
  return commandOf(request, capabilities, { args, prompt, env });
};

export const qwenAdapter = defineAdapter({
  ...CLI,
  tier: 'tier1',
  inDefaultRace: false,
  aliases: ['qwen-code'],
  binaries: ['qwen'],
  // QWEN_HOME is the directory itself (0.24).
  stateDirs: [
    {
      path: '.qwen',
      env: 'QWEN_HOME',
      copy: { variable: 'QWEN_HOME', to: '', skip: ['tmp', 'debug', 'logs'] },
    },
  ],
  api: {
    hosts: ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com', 'chat.qwen.ai'],
    baseUrlEnv: ['OPENAI_BASE_URL'],
  },
  // ~/.qwen/.env, and its settings' providers (`baseUrl`).
  endpointFiles: [
    { state: '.qwen', file: '.env' },
    { state: '.qwen', file: 'settings.json' },
  ],
  // Its OpenAI-compatible provider (OPENAI_BASE_URL, OPENAI_MODEL), DashScope's variables, its own settings.
  environment: {
    keys: ['OPENAI_API_KEY'],
    prefixes: ['OPENAI_', 'DASHSCOPE_', 'QWEN_'],
  },
  demo: { lineDelayMs: 900 },
  probe,
  buildCommand,
  createParser: (options) =>
    new AnthropicParser(
      CLI,
      {
        inputIncludesCache: true,
        maxTurnsFlag: '--max-session-turns',
        // A failed model call, reported as assistant text: `[API Error: 401 Incorrect ...]`.
        apiErrorText: /^\s*\[API Error:\s*(?:(\d{3})\b)?/,
      },
      options,
    ),
});
