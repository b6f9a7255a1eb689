/** One terminal line per normalized event (hydra show). */
import type { AgentEvent } from '../adapters/events.js';
import { assertNever } from '../adapters/events.js';
import { formatUsage, oneLine } from './format.js';

export function describeEvent(event: AgentEvent, width = 100): string {
  switch (event.kind) {
    case 'message': {
      const who = event.thinking ? 'thinking' : event.role;
      return `${who}: ${oneLine(event.text, width)}`;
    }
    case 'tool_call':
      return `→ ${withName(event.name, event.summary, width)}`;
    case 'tool_result':
      return `${event.ok ? '✓' : '✗'} ${withName(event.name ?? 'result', event.summary, width)}`;
    case 'progress': {
      const detail = event.detail ? ` ${oneLine(event.detail, width)}` : '';
      const model = event.model ? ` (model ${event.model})` : '';
      return `· ${event.stage}${detail}${model}`;
    }
    case 'usage':
      return `usage ${formatUsage(event.usage)}`;
    case 'completed':
      return `completed${event.result ? `: ${oneLine(event.result, width)}` : ''}`;
    case 'failed':
      return `failed (${event.error.kind}): ${oneLine(event.error.message, width)}`;
    case 'unknown':
      return `? unknown event${event.type ? ` ${event.type}` : ''}`;
    case 'parse_error':
      return `! unparsed line (${event.reason}): ${oneLine(event.raw, Math.min(width, 60))}`;
    default:
      return assertNever(event);
  }
}

/** `Write hello.txt`: the tool's name once, even when the summary already starts with it. */
function withName(name: string, summary: string, width: number): string {
  const text = oneLine(summary, width);
  return text.startsWith(name) ? text : `${name} ${text}`;
}
