/**
 * Without a sandbox an agent can write into another agent's worktree (or a check's checkout) while
 * that agent runs, and the victim commits what it finds there. hydra cannot see who wrote a file,
 * but it sees what each agent asked its tools to do: a command or a file path that names another
 * agent's directory of the race (its absolute path, or `../<agent>` from the worktree) is noticed
 * and reported on the agent that reached out. An agent that hides the path (a script that builds
 * it) is not caught here: that is the sandbox's job.
 */
import path from 'node:path';
import type { AgentEvent } from '../../core/events.js';

/** The run's directories an agent's tool call names besides its own worktree, or none. */
export const siblingPathsIn = (
  event: AgentEvent,
  own: { worktree: string; siblings: readonly string[] },
): string[] => {
  if (event.kind !== 'tool_call') return [];
  let text = event.summary;
  try {
    text += ` ${JSON.stringify(event.input ?? '')}`;
  } catch {
    // An input that cannot be serialized: its summary is all there is.
  }
  const runDir = path.dirname(own.worktree);
  const found = new Set<string>();
  for (const name of [...own.siblings, '.baseline', '.checks-', '.contract-']) {
    const absolute = path.join(runDir, name);
    if (text.includes(absolute)) found.add(absolute);
    if (!name.endsWith('-') && new RegExp(`(?:^|[\\s'"=:])\\.\\./${escape(name)}(?:/|\\b)`).test(text))
      found.add(`../${name}`);
  }
  return [...found];
};

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The warning for an agent whose tools named other agents' directories. */
export const siblingReachWarning = (paths: readonly string[]): string =>
  `Its tools named another agent's directory of this race (${paths.join(', ')}): without a sandbox, hydra cannot tell what it wrote there; review the other results before merging them.`;
