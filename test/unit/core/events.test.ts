import { describe, expect, it } from 'vitest';
import { AdapterError, tail } from '../../../src/adapters/errors.js';
import { EVENT_SCHEMA_VERSION, ev, isTerminal } from '../../../src/core/events.js';

describe('normalized events', () => {
  it('stamps the schema version on every event', () => {
    const event = ev({ kind: 'message', role: 'assistant', text: 'hi' });
    expect(event.v).toBe(EVENT_SCHEMA_VERSION);
    expect(event.text).toBe('hi');
  });

  it('treats only completed and failed as terminal', () => {
    expect(isTerminal(ev({ kind: 'completed' }))).toBe(true);
    expect(isTerminal(ev({ kind: 'progress', stage: 'init' }))).toBe(false);
  });
});

describe('AdapterError', () => {
  it('carries kind, adapter, command, stderr excerpt and hint', () => {
    const error = new AdapterError({
      kind: 'BinaryMissing',
      adapterId: 'claude',
      message: 'claude not found on PATH',
      hint: 'Install it with: npm install -g @anthropic-ai/claude-code',
      command: ['claude', '--version'],
      stderrExcerpt: '',
    });
    expect(error.toInfo()).toEqual({
      kind: 'BinaryMissing',
      message: 'claude not found on PATH',
      hint: 'Install it with: npm install -g @anthropic-ai/claude-code',
    });
    expect(error.command).toEqual(['claude', '--version']);
  });

  it('keeps the tail of long stderr on a line boundary', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const kept = tail(text, 40);
    expect(kept.length).toBeLessThanOrEqual(40);
    expect(kept.endsWith('line 99')).toBe(true);
    expect(kept.startsWith('line')).toBe(true);
  });
});
