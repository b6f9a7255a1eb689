/**
 * One event as one line: the symbol, text and tone every printer uses, the dashboard's panes and
 * detail view as well as `hydra show`.
 */
import { assertNever, SANDBOX_REFUSED_STAGE, type AgentEvent } from '../../core/events.js';
import { formatUsage } from './format.js';
import type { Symbols, Tone } from './theme.js';
import { oneLine, plainEllipsis, truncate } from './text.js';

export interface EventLine {
  symbol: string;
  text: string;
  tone: Tone | null;
}

/** Whether an event deserves a line in a pane (usage and streamed fragments do not). */
export const isShownInPane = (event: AgentEvent): boolean => {
  switch (event.kind) {
    case 'usage':
      return false;
    case 'message':
      return event.partial !== true && oneLine(event.text) !== '';
    case 'tool_call':
    case 'tool_result':
    case 'progress':
    case 'completed':
    case 'failed':
    case 'unknown':
    case 'parse_error':
      return true;
    default:
      return assertNever(event);
  }
};

/** " (×12)" for an event that stands for a run of lines, else nothing. */
const times = (lines: number | undefined): string => ((lines ?? 1) > 1 ? ` (×${lines})` : '');

/**
 * One event as one terminal line (before cutting to width). In ASCII mode the `…` and `×` that
 * hydra and agents write into event text are spelled `...` and `x`.
 */
export const eventLine = (event: AgentEvent, symbols: Symbols): EventLine => {
  const line = eventLineText(event, symbols);
  if (symbols.ellipsis === '…') return line;
  return { ...line, text: plainEllipsis(line.text, symbols.ellipsis).replaceAll('×', 'x') };
};

const eventLineText = (event: AgentEvent, symbols: Symbols): EventLine => {
  switch (event.kind) {
    case 'message':
      if (event.thinking === true)
        return { symbol: symbols.thinking, text: oneLine(event.text), tone: 'muted' };
      if (event.role === 'assistant')
        return { symbol: symbols.message, text: oneLine(event.text), tone: null };
      return { symbol: symbols.message, text: `${event.role}: ${oneLine(event.text)}`, tone: 'muted' };
    case 'tool_call': {
      const name = oneLine(event.name);
      const summary = oneLine(event.summary);
      // Summaries often start with the tool's name already ("Write hello.txt").
      const text = summary.toLowerCase().startsWith(name.toLowerCase())
        ? summary
        : `${name} ${summary}`.trim();
      return { symbol: symbols.tool, text, tone: 'info' };
    }
    case 'tool_result':
      return event.ok
        ? { symbol: symbols.ok, text: `ok ${oneLine(event.summary)}`.trim(), tone: 'ok' }
        : { symbol: symbols.fail, text: `error ${oneLine(event.summary)}`.trim(), tone: 'error' };
    case 'progress': {
      // The divider a follow-up or a rerun puts between an agent's rounds (engine ROUND_STAGE).
      if (event.stage === 'round')
        return {
          symbol: symbols.focus,
          text: `-- ${oneLine(event.detail ?? 'next round')} --`,
          tone: 'accent',
        };
      const detail = event.detail === undefined ? '' : ` ${oneLine(event.detail)}`;
      // The sandbox refused the agent something (a write outside its worktree, a blocked host).
      if (event.stage === SANDBOX_REFUSED_STAGE)
        return { symbol: symbols.warn, text: `sandbox refused${detail}`, tone: 'warn' };
      const model = event.model === undefined ? '' : ` (${oneLine(event.model)})`;
      return { symbol: symbols.progress, text: `${oneLine(event.stage)}${detail}${model}`, tone: 'muted' };
    }
    case 'usage':
      return {
        symbol: symbols.progress,
        text: `usage ${formatUsage(event.usage, symbols.dot)}`,
        tone: 'muted',
      };
    case 'completed':
      return {
        symbol: symbols.ok,
        text: event.result === undefined ? 'completed' : `completed: ${oneLine(event.result)}`,
        tone: 'ok',
      };
    case 'failed':
      return {
        symbol: symbols.fail,
        text: `${event.error.kind}: ${oneLine(event.error.message)}`,
        tone: 'error',
      };
    case 'unknown':
      return {
        symbol: symbols.unknown,
        text: `unrecognised event${event.type === undefined ? '' : ` ${oneLine(event.type)}`}${times(event.lines)}`,
        tone: 'muted',
      };
    case 'parse_error':
      return {
        symbol: symbols.warn,
        text:
          (event.lines ?? 1) > 1
            ? `${event.lines} unparsed lines, e.g.: ${oneLine(event.raw)}`
            : `unparsed output: ${oneLine(event.raw)}`,
        tone: 'warn',
      };
    default:
      return assertNever(event);
  }
};

/** The event line as plain text ("⚙ Write hello.txt"), cut to `maxColumns` when given (hydra show). */
export const eventText = (event: AgentEvent, symbols: Symbols, maxColumns?: number): string => {
  const line = eventLine(event, symbols);
  const text = `${line.symbol} ${line.text}`;
  return maxColumns === undefined ? text : truncate(text, maxColumns, symbols.ellipsis);
};
