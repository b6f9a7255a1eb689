/**
 * Shared probing steps: run `--version` / `--help` through the injected runner and turn every way
 * it can go wrong into a typed AdapterError naming the command, the CLI's words and the fix.
 */
import { AdapterError, tail } from './errors.js';
import type { ErrorKind } from '../core/events.js';
import { parseVersion } from './help-flags.js';
import type { ProbeOutput, ProbeRunner } from './types.js';

/**
 * Time limit for one probe command. Most CLIs print their version at once, but a real one can be
 * slow to start: Gemini CLI loads a ~20 MB bundle and starts itself again before answering
 * `--version` (12-17 s on 2 busy cores, 65 s for 0.30 at load 20), and a user's slow machine is
 * no different. A probe's answer is cached, so the wait is paid once per binary.
 */
const PROBE_TIMEOUT_MS = 90_000;

export interface ProbeContext {
  adapterId: string;
  displayName: string;
  binary: string;
  /** How to install or upgrade the CLI, as a command. */
  installHint: string;
}

export type StepResult = { ok: true; output: ProbeOutput; text: string } | { ok: false; error: AdapterError };

const excerpt = (output: ProbeOutput): string =>
  tail((output.stderr.trim() !== '' ? output.stderr : output.stdout).trim(), 800);

export const probeError = (
  context: ProbeContext,
  kind: ErrorKind,
  message: string,
  hint: string,
  args: readonly string[],
  output?: ProbeOutput,
): AdapterError =>
  new AdapterError({
    kind,
    adapterId: context.adapterId,
    message,
    hint,
    command: [context.binary, ...args],
    stderrExcerpt: output === undefined ? '' : excerpt(output),
  });

/** Runs one probe command; a non-zero exit, a time-out or a spawn failure is an error. */
export const runStep = async (
  context: ProbeContext,
  run: ProbeRunner,
  args: readonly string[],
): Promise<StepResult> => {
  const shown = [context.binary, ...args].join(' ');
  let output: ProbeOutput;
  try {
    output = await run(context.binary, args, { timeoutMs: PROBE_TIMEOUT_MS });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return {
      ok: false,
      error: new AdapterError({
        kind: 'SpawnFailed',
        adapterId: context.adapterId,
        message: `\`${shown}\` could not be run: ${message}`,
        hint: `Check that ${context.binary} is an executable ${context.displayName} binary.`,
        command: [context.binary, ...args],
        cause,
      }),
    };
  }
  if (output.spawnError !== undefined) {
    const missing = /ENOENT|not found/i.test(output.spawnError);
    return {
      ok: false,
      error: probeError(
        context,
        missing ? 'BinaryMissing' : 'SpawnFailed',
        missing
          ? `${context.displayName} was not found at ${context.binary}`
          : `\`${shown}\` could not be started: ${output.spawnError}`,
        missing
          ? `Install it with: ${context.installHint}`
          : `Check that ${context.binary} is executable (chmod +x) and is the ${context.displayName} CLI.`,
        args,
        output,
      ),
    };
  }
  if (output.timedOut) {
    return {
      ok: false,
      error: probeError(
        context,
        'TimedOut',
        `\`${shown}\` did not answer within ${PROBE_TIMEOUT_MS / 1000} s`,
        `Run \`${shown}\` yourself to see what it waits for; reinstall with: ${context.installHint}`,
        args,
        output,
      ),
    };
  }
  if (output.exitCode !== 0) {
    return {
      ok: false,
      error: probeError(
        context,
        'UnsupportedVersion',
        `\`${shown}\` failed with exit code ${output.exitCode ?? 'unknown'}`,
        `Upgrade or reinstall ${context.displayName}: ${context.installHint}`,
        args,
        output,
      ),
    };
  }
  return { ok: true, output, text: `${output.stdout}\n${output.stderr}` };
};

/** The version number a `--version` step printed (stdout first), or null. */
export const versionOf = (step: { output: ProbeOutput; text: string }): string | null =>
  parseVersion(step.output.stdout) ?? parseVersion(step.text);

/** The refusal for a binary whose `--version` names no version: probably not the vendor's CLI. */
export const unreadableVersion = (context: ProbeContext, output: ProbeOutput): AdapterError =>
  probeError(
    context,
    'UnsupportedVersion',
    `could not read a version number from \`${context.binary} --version\``,
    `Check that ${context.binary} is ${context.displayName}; reinstall with: ${context.installHint}`,
    ['--version'],
    output,
  );
