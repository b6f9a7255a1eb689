/**
 * An actor's input that could not be built. XState v5 crashes the whole actor when an invoke's
 * `input` throws (onError never sees it), so the race machine's input builders never throw: what
 * they cannot build they return as a problem, and the actor rejects with it, reaching its onError.
 */
import type { ErrorInfo } from '../../core/events.js';
import { EngineError } from '../errors.js';

export interface InputProblem {
  problem: ErrorInfo;
}

/** An actor's input, or why it could not be built. */
export type Prepared<T extends object> = T | InputProblem;

/** The input, or the error the actor rejects with (to its onError). */
export function usable<T extends object>(input: Prepared<T>): T {
  if ('problem' in input) {
    const { kind, message, hint } = input.problem;
    throw new EngineError({ kind, message, hint });
  }
  return input;
}
