/** What an agent's snapshot says before it has done anything: a first launch's and a rerun's alike. */
import { emptyUsage } from '../../core/events.js';
import type { AgentSnapshot } from './race-handle.js';

export const nothingYet = (): Pick<
  AgentSnapshot,
  | 'startedAt'
  | 'endedAt'
  | 'lastOutputAt'
  | 'recentEvents'
  | 'eventCount'
  | 'usage'
  | 'diff'
  | 'error'
  | 'exitCode'
  | 'warnings'
  | 'checks'
  | 'checking'
  | 'score'
> => ({
  startedAt: null,
  endedAt: null,
  lastOutputAt: null,
  recentEvents: [],
  eventCount: 0,
  usage: emptyUsage(),
  diff: null,
  error: null,
  exitCode: null,
  warnings: [],
  checks: null,
  checking: false,
  score: null,
});
