/**
 * Turns the end of an agent process into its final event, the same way for every adapter:
 * the stream's own terminal event when it agrees with how the process ended, otherwise the
 * failure the end implies. When hydra stopped the process (a time limit, a cancel) the engine
 * reports that stop itself, so the only stop this file knows of is one that came after a result.
 */
import { tail } from './errors.js';
import { ev } from '../core/events.js';
import type { CompletedEvent, ErrorInfo, ErrorKind, FailedEvent, Usage } from '../core/events.js';
import { clip, MESSAGE_CHARS, oneLine } from '../core/text.js';
import type { ProcessEnd } from './types.js';

/** What a parser knows when the process ends. */
export interface RunState {
  displayName: string;
  /** The terminal event seen in the stream, if any (the first one wins). */
  terminal?: CompletedEvent | FailedEvent;
  /** Latest cumulative usage. */
  usage?: Usage;
  /** The last assistant text, a fallback for the final result. */
  lastText?: string;
  /** An error reported in the stream that did not end it (codex `error` lines). */
  pendingError?: ErrorInfo;
  /** Whether any line was a JSON event. */
  sawJson: boolean;
  /** The first line that was not JSON, for diagnostics. */
  firstNonJson?: string;
  /** Hint shown when authentication is missing. */
  authHint: string;
}

const AUTH_PATTERN =
  /\b401\b|unauthori[sz]ed|invalid api key|invalid x-api-key|not logged in|please (run )?\/?login|log ?in required|authentication[_ ]?(failed|error|required)|missing api key|no api key/i;

/** Whether a text reads like a missing or rejected credential. */
export const looksLikeAuthFailure = (text: string): boolean => AUTH_PATTERN.test(text);

/**
 * A hint written while the stream was read names `hydra show <run>` (parsers do not know the run's
 * id); at the end the id is known, so the final event names the exact command.
 */
const withRunId = (hint: string, end: ProcessEnd): string =>
  hint.replaceAll('hydra show <run>', `hydra show ${end.runId}`);

const failed = (
  kind: ErrorKind,
  message: string,
  hint: string,
  end: ProcessEnd,
  usage: Usage | undefined,
): FailedEvent =>
  ev({
    kind: 'failed',
    error: { kind, message, hint: withRunId(hint, end) },
    ...(usage === undefined ? {} : { usage }),
    exitCode: end.exitCode,
    signal: end.signal,
    ...(end.stderrTail === '' ? {} : { stderrTail: tail(end.stderrTail) }),
  });

const lastStderrLine = (stderr: string): string => {
  const lines = stderr.split(/\r?\n/).filter((line) => line.trim() !== '');
  return oneLine(lines.at(-1) ?? '', 200);
};

const exitDescription = (end: ProcessEnd): string =>
  end.signal !== null ? `was killed by ${end.signal}` : `exited with code ${end.exitCode ?? 'unknown'}`;

export const finishRun = (state: RunState, end: ProcessEnd): CompletedEvent | FailedEvent => {
  const name = state.displayName;
  const terminal = state.terminal;
  const usage = terminal?.usage ?? state.usage;

  if (terminal?.kind === 'completed') {
    const cleanExit = end.exitCode === 0 && end.signal === null;
    // A CLI that reported its result and then hung until hydra stopped it (the result grace or a
    // time limit) still did the work.
    const stoppedAfterResult =
      end.stoppedBy === 'after_result' || end.stoppedBy === 'idle_timeout' || end.stoppedBy === 'timeout';
    if (cleanExit || stoppedAfterResult) {
      const fromFile =
        end.lastMessage !== undefined && end.lastMessage.trim() !== ''
          ? clip(end.lastMessage.trim(), MESSAGE_CHARS)
          : undefined;
      const result =
        terminal.result !== undefined && terminal.result !== ''
          ? terminal.result
          : (fromFile ?? state.lastText);
      return ev({
        kind: 'completed',
        ...(result === undefined ? {} : { result }),
        ...(usage === undefined ? {} : { usage }),
        exitCode: end.exitCode,
      });
    }
  }

  // A run hydra stopped without a result is reported by the engine, which knows the limit that
  // stopped it and the setting that raises it; what follows here only describes how it ended.

  if (terminal?.kind === 'failed') {
    return ev({
      ...terminal,
      error: { ...terminal.error, hint: withRunId(terminal.error.hint, end) },
      ...(usage === undefined ? {} : { usage }),
      exitCode: end.exitCode,
      signal: end.signal,
      ...(end.stderrTail === '' ? {} : { stderrTail: tail(end.stderrTail) }),
    });
  }

  if (terminal?.kind === 'completed') {
    return failed(
      'AgentFailed',
      `${name} reported success but ${exitDescription(end)}`,
      `The result may be incomplete; its stderr is shown by \`hydra show ${end.runId}\`.`,
      end,
      usage,
    );
  }

  if (state.pendingError !== undefined) {
    const { kind, message, hint } = state.pendingError;
    return failed(kind, message, hint, end, usage);
  }

  if (looksLikeAuthFailure(end.stderrTail)) {
    return failed(
      'AuthMissing',
      `${name} could not authenticate: ${lastStderrLine(end.stderrTail)}`,
      state.authHint,
      end,
      usage,
    );
  }

  if (end.exitCode === 0 && end.signal === null) {
    const detail = state.sawJson
      ? 'its stream ended without a result event'
      : `its output had no JSON events${state.firstNonJson === undefined ? '' : ` (first line: ${oneLine(state.firstNonJson, 120)})`}`;
    return failed(
      'StreamParseError',
      `${name} exited without a result: ${detail}`,
      `Run \`hydra doctor\` to check that the installed ${name} supports its JSON output mode.`,
      end,
      usage,
    );
  }

  const stderrLine = lastStderrLine(end.stderrTail);
  return failed(
    'AgentFailed',
    `${name} ${exitDescription(end)} without a result${stderrLine === '' ? '' : `: ${stderrLine}`}`,
    end.stderrTail.trim() === ''
      ? 'It printed nothing on stderr; try the same prompt with the CLI by hand.'
      : `Its stderr is shown by \`hydra show ${end.runId}\`.`,
    end,
    usage,
  );
};
