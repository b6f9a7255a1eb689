/**
 * `--notify` (`[ui] notify = true`): a terminal bell and a desktop notification when a race needs
 * the user: the dashboard's race waits for a decision (it reviews) or ends without one, a headless
 * race ends. The notification is OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty) and OSC 777
 * (`notify;<title>;<body>`: foot, rxvt-unicode, VTE terminals), each ended by BEL, which other
 * terminals ignore; the bell is for the rest. Only ever written to a terminal: the dashboard's
 * stdout, or a headless race's stderr when that is a terminal (never into a pipe, never into the
 * NDJSON of --json).
 */
import type { RaceHandle, RacePhase, RaceSnapshot } from '../engine/index.js';

const BEL = '\u0007';
const OSC = '\u001B]';

/** Text fit for an OSC payload: no control characters, no `;` (OSC 777's separator), short. */
const payload = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001F\u007F-\u009F;]/g, ' ').slice(0, 200);

/** The bell, then the OSC 9 and OSC 777 notifications of one message. */
export const notificationSequence = (body: string, title = 'hydra'): string =>
  `${BEL}${OSC}9;${payload(`${title}: ${body}`)}${BEL}${OSC}777;notify;${payload(title)};${payload(body)}${BEL}`;

const count = (snapshot: RaceSnapshot, status: string): number =>
  snapshot.agents.filter((agent) => agent.status === status).length;

/** What the race came to, in a few words (`2 completed, 1 failed`). */
const outcome = (snapshot: RaceSnapshot): string => {
  const parts = [`${count(snapshot, 'completed')} completed`];
  const failed = count(snapshot, 'failed') + count(snapshot, 'timed_out');
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join(', ');
};

/** The message for a phase the user should hear about, or null. */
export const phaseMessage = (
  snapshot: RaceSnapshot,
  mode: 'dashboard' | 'headless',
  reviewed: boolean,
): string | null => {
  const ended: readonly RacePhase[] = ['done', 'failed', 'cancelled'];
  if (mode === 'dashboard' && snapshot.phase === 'reviewing')
    return `race ${snapshot.runId} is ready for review (${outcome(snapshot)})`;
  // In the dashboard, the end after a review is the user's own doing: nothing to tell.
  if (ended.includes(snapshot.phase) && (mode === 'headless' || !reviewed))
    return snapshot.phase === 'done'
      ? `race ${snapshot.runId} finished (${outcome(snapshot)})`
      : `race ${snapshot.runId} ${snapshot.phase === 'failed' ? 'failed' : 'was cancelled'}`;
  return null;
};

/**
 * Notifies on `stream` (when it is a terminal) each time the race enters a phase worth telling;
 * returns the unsubscribe. `reviewAfter`: a review is not told before it settles (the dashboard's
 * `--attempts` run once every agent settled, so the first review is not yet the user's turn); if
 * the race still reviews then, it is told then.
 */
export function notifyOnPhases(
  handle: RaceHandle,
  stream: { isTTY?: boolean; write(text: string): unknown },
  mode: 'dashboard' | 'headless',
  reviewAfter?: Promise<unknown>,
): () => void {
  if (stream.isTTY !== true) return () => undefined;
  let last: RacePhase | null = null;
  let reviewed = false;
  let holding = reviewAfter !== undefined;
  let held: string | null = null;
  let stopped = false;
  const on = (snapshot: RaceSnapshot): void => {
    if (snapshot.phase === last) return;
    last = snapshot.phase;
    const message = phaseMessage(snapshot, mode, reviewed);
    if (snapshot.phase === 'reviewing') reviewed = true;
    held = null;
    if (message === null) return;
    if (holding && snapshot.phase === 'reviewing') held = message;
    else stream.write(notificationSequence(message));
  };
  on(handle.getSnapshot());
  const unsubscribe = handle.subscribe(on);
  void reviewAfter?.finally(() => {
    holding = false;
    if (!stopped && held !== null && handle.getSnapshot().phase === 'reviewing')
      stream.write(notificationSequence(held));
    held = null;
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
