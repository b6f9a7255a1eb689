/**
 * `HYDRA_INSPECT=<file>`: the race's actors (the race machine, each agent machine, every actor they
 * invoke) report their inspection events, appended to the file as JSON lines. A line is small: the
 * inspection type, the actor's id (and system id), the event's type, and for a snapshot its state
 * value and status; never a whole context. A file that cannot be written is left alone (the race
 * does not depend on it).
 */
import { appendFileSync } from 'node:fs';
import type { InspectionEvent } from 'xstate';

export const INSPECT_ENV = 'HYDRA_INSPECT';

/** One inspection event as a line of the file. */
export const inspectionLine = (event: InspectionEvent): Record<string, unknown> => {
  // The inspected actor is a full ActorRef (its id, its system id when it has one); typed as less.
  const actor: object = event.actorRef;
  const line: Record<string, unknown> = {
    type: event.type,
    actor: 'id' in actor && typeof actor.id === 'string' ? actor.id : event.actorRef.sessionId,
  };
  if ('systemId' in actor && typeof actor.systemId === 'string') line['systemId'] = actor.systemId;
  switch (event.type) {
    case '@xstate.snapshot':
    case '@xstate.microstep':
    case '@xstate.transition': {
      line['event'] = event.event.type;
      const snapshot: object = event.snapshot;
      if ('value' in snapshot) line['value'] = snapshot.value;
      if ('status' in snapshot) line['status'] = snapshot.status;
      break;
    }
    case '@xstate.event':
      line['event'] = event.event.type;
      if (event.sourceRef !== undefined) line['source'] = event.sourceRef.sessionId;
      break;
    case '@xstate.action':
      line['action'] = event.action.type;
      break;
    case '@xstate.actor':
      break;
  }
  return line;
};

/**
 * The inspect callback `HYDRA_INSPECT` asks for, or null when it is not set. Each line is appended
 * as it comes (the race's last snapshots arrive after it has ended, so nothing is kept open).
 */
export function inspectorFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): ((event: InspectionEvent) => void) | null {
  const file = env[INSPECT_ENV];
  if (file === undefined || file === '') return null;
  let failed = false;
  return (event) => {
    if (failed) return;
    try {
      appendFileSync(file, `${JSON.stringify(inspectionLine(event))}\n`);
    } catch {
      failed = true;
    }
  };
}
