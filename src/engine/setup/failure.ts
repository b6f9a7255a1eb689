/** A setup that did not succeed, as hydra's error (`SetupFailed`): the command, its output's tail, the log. */
import type { ErrorInfo } from '../../core/events.js';
import { EngineError } from '../errors.js';
import type { SetupOutcome } from './run.js';

/** The lines of output an error shows. */
const TAIL_LINES = 12;

const sourceName = (source: SetupOutcome['source']): string =>
  source === 'cursor' ? '.cursor/worktrees.json' : 'hydra.toml [setup] run';

/** The error of a setup that did not succeed (`outcome.status` is not `ok`). */
export const setupFailure = (outcome: SetupOutcome, where = ''): ErrorInfo => {
  const command = outcome.failedCommand ?? '(setup)';
  const how =
    outcome.status === 'timed_out'
      ? 'ran out of time'
      : outcome.status === 'error'
        ? 'could not start'
        : outcome.status === 'cancelled'
          ? 'was stopped'
          : `exited with code ${outcome.exitCode ?? 'none'}`;
  const tail = outcome.tail.split('\n').slice(-TAIL_LINES).join('\n');
  return {
    kind: 'SetupFailed',
    message: `The setup command \`${command}\`${where === '' ? '' : ` ${where}`} ${how}${tail === '' ? '.' : `:\n${tail}`}`,
    hint: `Fix \`${command}\` (${sourceName(outcome.source)}) so it succeeds in a fresh checkout; its whole output is in ${outcome.logFile}.`,
  };
};

/** Thrown where a checkout's setup failed (the baseline's, a checks checkout's). */
export const setupFailedError = (outcome: SetupOutcome, where = ''): EngineError =>
  new EngineError(setupFailure(outcome, where));
