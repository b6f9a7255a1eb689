/** The parts of a command every CLI builds the same way: the model, the session, the prompt. */
import { isDefaultModel } from '../model-name.js';
import { deliverPrompt } from '../prompt-delivery.js';
import type { BuiltCommand, Capabilities, SpawnRequest } from '../types.js';

/**
 * Whether the CLI runs in its no-approval mode: the user asked for --unsafe, or hydra's OS sandbox
 * holds it (SpawnRequest.sandboxed), where approvals would only stop the agent running the tests.
 */
export const fullAutonomy = (request: SpawnRequest): boolean => request.unsafe || request.sandboxed === true;

/** `--model <name>`, unless the user left the choice to the CLI ("default" or nothing). */
export const modelArgs = (request: SpawnRequest): string[] =>
  request.model === undefined || isDefaultModel(request.model) ? [] : ['--model', request.model];

/** `<flag> <id>` to continue an earlier session, when the probe saw the CLI's resume flag. */
export const resumeArgs = (request: SpawnRequest, capabilities: Capabilities, flag: string): string[] =>
  request.resumeSessionId !== undefined && capabilities.features['resume'] === true
    ? [flag, request.resumeSessionId]
    : [];

export interface CommandParts {
  /** The options; the user's extra_args follow them, then `tail`, then the prompt's arguments. */
  args: readonly string[];
  /** Arguments after extra_args (codex's `resume <id>` subcommand, whose options go before it). */
  tail?: readonly string[];
  /** How the prompt travels (see deliverPrompt); `stdinArgs` default to none. */
  prompt?: { stdinArgs?: string[]; forceStdin?: boolean; argvFlag?: string };
  /** Variables the CLI needs; hydra.toml's `env` goes over them. */
  env?: Record<string, string>;
  lastMessageFile?: string;
  /** The options put the CLI in its read-only (plan) mode. */
  readOnly?: boolean;
}

/** The built command: the options, then the prompt as an argument or as a file on stdin. */
export const commandOf = (
  request: SpawnRequest,
  capabilities: Capabilities,
  parts: CommandParts,
): BuiltCommand => {
  const prompt = deliverPrompt(request.prompt, request.scratchDir, { stdinArgs: [], ...parts.prompt });
  return {
    file: capabilities.binary,
    args: [...parts.args, ...request.extraArgs, ...(parts.tail ?? []), ...prompt.args],
    env: { ...parts.env, ...request.env },
    cwd: request.cwd,
    files: prompt.via === 'stdin' ? prompt.files : [],
    ...(prompt.via === 'stdin' ? { stdinFile: prompt.stdinFile } : {}),
    ...(parts.lastMessageFile === undefined ? {} : { lastMessageFile: parts.lastMessageFile }),
    ...(parts.readOnly === true ? { readOnly: true as const } : {}),
  };
};
