/**
 * Claude Code (`claude`): headless `-p` runs with `--output-format stream-json --verbose`, read by
 * the Anthropic stream parser (anthropic-stream.ts) it shares with Qwen Code.
 *
 * Permissions: a race must edit files unattended, and hydra's promise is that the user's own
 * checkout is never touched. `--permission-mode acceptEdits` lets Claude edit files inside its
 * worktree without asking while shell commands stay subject to the user's own Claude settings
 * (allow rules), the same bargain as Codex's `workspace-write` sandbox. `--unsafe`, and a race in
 * hydra's OS sandbox (which holds the agent, so it may run the project's build and tests), switch to
 * `bypassPermissions` (every tool, no questions) and set IS_SANDBOX=1, without which Claude Code
 * refuses that mode when running as root.
 */
import { probeCli, MODEL_FLAG, resumeFlag } from './kit/index.js';
import { defineAdapter, commandOf, fullAutonomy, modelArgs, resumeArgs } from './kit/index.js';
import { AnthropicParser } from './kit/index.js';
import type { BuildCommand, CliFacts } from './kit/index.js';

const ROOT_WARNING =
  'running as root with --unsafe: Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1, which hydra ' +
  "sets for --unsafe races, so the agent runs with root's powers. Race --unsafe as root only in a disposable " +
  'container; otherwise run hydra as a normal user';

const CLI: CliFacts = {
  id: 'claude',
  displayName: 'Claude Code',
  installHint: 'npm install -g @anthropic-ai/claude-code',
  signInHint: 'Set ANTHROPIC_API_KEY in the environment, or run `claude /login` once.',
};

const probe = probeCli(CLI, {
  /** The flags hydra uses, as `claude --help` lists them. */
  flags: {
    print: { flags: ['-p', '--print'], means: 'a headless run that prints and exits' },
    outputFormat: { flags: ['--output-format'], means: 'its stream as JSON lines' },
    verbose: { flags: ['--verbose'], means: 'stream-json requires it' },
    permissionMode: {
      flags: ['--permission-mode'],
      means: 'acceptEdits, or bypassPermissions for --unsafe and sandboxed races',
    },
    skipPermissions: {
      flags: ['--dangerously-skip-permissions'],
      means: '--unsafe and sandboxed races without --permission-mode',
    },
    allowedTools: { flags: ['--allowedTools', '--allowed-tools'], means: 'edits without --permission-mode' },
    model: MODEL_FLAG,
    // Accepted by current versions but missing from their help: only trusted when listed.
    maxTurns: { flags: ['--max-turns'], means: 'a turn limit' },
    partialMessages: { flags: ['--include-partial-messages'], means: 'text as it streams' },
    // `-r, --resume [sessionId]`: a follow-up continues the session its init line named.
    resume: resumeFlag('-r', '--resume'),
  },
  requires: [['print'], ['outputFormat']],
  warnings: [
    {
      when: (has) => !has.permissionMode && has.allowedTools,
      text: 'has no --permission-mode: edits are allowed through --allowedTools instead.',
    },
    {
      when: (has) => !has.permissionMode && !has.allowedTools,
      text: `has neither --permission-mode nor --allowedTools: it may be unable to edit files unattended. Upgrade: ${CLI.installHint}`,
    },
    {
      when: (has) => !has.permissionMode && !has.skipPermissions,
      text: 'has neither --permission-mode nor --dangerously-skip-permissions: sandboxed and --unsafe races keep its edit-only permissions (no shell).',
    },
    { when: (has) => !has.verbose, text: 'has no --verbose flag; stream-json is requested without it.' },
  ],
});

/** Tools granted by --allowedTools on versions without --permission-mode (edits only). */
const EDIT_TOOLS = 'Edit,Write,MultiEdit,NotebookEdit';

/** Every tool without a question (--unsafe, or a sandboxed race), as this version spells it. */
const bypassArgs = (features: Record<string, boolean>): string[] | undefined => {
  if (features['permissionMode'] === true) return ['--permission-mode', 'bypassPermissions'];
  if (features['skipPermissions'] === true) return ['--dangerously-skip-permissions'];
  return undefined;
};

const permissionArgs = (full: boolean, unsafe: boolean, features: Record<string, boolean>): string[] => {
  const bypass = full ? bypassArgs(features) : undefined;
  if (bypass !== undefined) return bypass;
  // A version that cannot bypass: --unsafe leaves its permissions as they are (the probe warns).
  if (unsafe) return [];
  if (features['permissionMode'] === true) return ['--permission-mode', 'acceptEdits'];
  if (features['allowedTools'] === true) return ['--allowedTools', EDIT_TOOLS];
  return [];
};

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const args = ['-p', '--output-format', 'stream-json'];
  if (features['verbose'] !== false) args.push('--verbose');
  // Read-only (a judge): plan mode, in which Claude Code edits nothing and runs no command.
  const readOnly = request.readOnly === true && features['permissionMode'] === true;
  const full = !readOnly && fullAutonomy(request);
  args.push(
    ...(readOnly ? ['--permission-mode', 'plan'] : permissionArgs(full, request.unsafe, features)),
    ...modelArgs(request),
  );
  if (request.maxTurns !== undefined) args.push('--max-turns', String(request.maxTurns));
  args.push(...resumeArgs(request, capabilities, '--resume'));
  // `claude -p` reads the prompt from stdin when no prompt argument is given. CLAUDECODE is emptied
  // so it starts even when hydra itself runs inside a Claude Code session. IS_SANDBOX=1 lets
  // bypassPermissions run as root (srt's own sandbox sets IS_SANDBOX=yes, which Claude Code ignores).
  const env: Record<string, string> = { CLAUDECODE: '', ...(full ? { IS_SANDBOX: '1' } : {}) };
  return commandOf(request, capabilities, { args, env, readOnly });
};

/** What an agent's copy of ~/.claude leaves out: past sessions, logs, caches, a local install. */
const CLAUDE_SKIP = [
  'projects',
  'shell-snapshots',
  'todos',
  'statsig',
  'logs',
  'debug',
  'file-history',
  'session-env',
  'ide',
  'cache',
  'paste-cache',
  'telemetry',
  'local',
];

export const claudeAdapter = defineAdapter({
  ...CLI,
  tier: 'tier1',
  aliases: [],
  binaries: ['claude'],
  // Its settings, hooks, MCP servers and sessions run code at its next start: an agent gets a copy
  // (CLAUDE_CONFIG_DIR holds both; `.claude.json` sits in it when the variable is set).
  stateDirs: [
    {
      path: '.claude',
      env: 'CLAUDE_CONFIG_DIR',
      copy: { variable: 'CLAUDE_CONFIG_DIR', to: '', skip: CLAUDE_SKIP },
    },
    {
      path: '.claude.json',
      env: 'CLAUDE_CONFIG_DIR',
      under: '.claude.json',
      copy: { variable: 'CLAUDE_CONFIG_DIR', to: '.claude.json' },
    },
  ],
  api: {
    hosts: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai'],
    baseUrlEnv: ['ANTHROPIC_BASE_URL'],
  },
  // The `env` block of its settings (ANTHROPIC_BASE_URL there instead of the environment).
  endpointFiles: [
    { state: '.claude', file: 'settings.json' },
    { state: '.claude', file: 'settings.local.json' },
  ],
  // Its settings: ANTHROPIC_MODEL, CLAUDE_CODE_MAX_RETRIES, CLAUDE_CODE_USE_BEDROCK...
  environment: {
    keys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    prefixes: ['ANTHROPIC_', 'CLAUDE_'],
  },
  demo: { lineDelayMs: 1100 },
  // As root, Claude Code refuses bypassPermissions (used by --unsafe) unless IS_SANDBOX=1. hydra
  // sets it for --unsafe runs; doctor says so, because it also means the agent runs with root's powers.
  // A normal race (acceptEdits) is not affected.
  doctorWarnings: ({ isRoot, unsafe }) => (isRoot && unsafe ? [ROOT_WARNING] : []),
  probe,
  buildCommand,
  createParser: (options) =>
    new AnthropicParser(CLI, { inputIncludesCache: false, maxTurnsFlag: '--max-turns' }, options),
});
