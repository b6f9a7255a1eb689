/**
 * An agent on a remote engine that exits 0 having printed nothing at all (not a line on stdout or
 * stderr) had its output lost on the way (a half-closing proxy): its failure names the engine, not
 * the CLI's JSON mode. Anything else keeps the adapter's own words.
 */
import { describe, expect, it } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import type { FailedEvent } from '../../../../src/core/events.js';
import { blameSilentEngine } from '../../../../src/engine/container/index.js';

const noEvents = ev({
  kind: 'failed',
  error: {
    kind: 'StreamParseError',
    message: 'Claude Code exited without a result: its output had no JSON events',
    hint: 'Run `hydra doctor` to check that the installed Claude Code supports its JSON output mode.',
  },
  exitCode: 0,
}) as FailedEvent;

const remote = { host: 'tcp://10.0.0.5:2375', remote: true };
const silent = { container: remote, lines: 0, stderrTail: '', exitCode: 0 };

describe('blameSilentEngine', () => {
  it('names the engine and the proxy for a remote agent that printed nothing and exited 0', () => {
    const blamed = blameSilentEngine(noEvents, silent) as FailedEvent;
    expect(blamed.error.message).toBe(noEvents.error.message);
    expect(blamed.error.hint).toContain('It ran in a container on the engine at tcp://10.0.0.5:2375');
    expect(blamed.error.hint).toContain('socat');
    expect(blamed.error.hint).toContain('hydra doctor');
  });

  it.each([
    ['a local engine', { ...silent, container: { host: 'default', remote: false } }],
    ['this machine', { ...silent, container: null }],
    ['a line on stdout', { ...silent, lines: 1 }],
    ['something on stderr', { ...silent, stderrTail: 'warning: x\n' }],
    ['a failing exit', { ...silent, exitCode: 1 }],
  ])('keeps the adapter’s hint with %s', (_, silence) => {
    expect(blameSilentEngine(noEvents, silence)).toBe(noEvents);
  });

  it('keeps any other failure as it is', () => {
    const auth = ev({ kind: 'failed', error: { kind: 'AuthMissing', message: 'no key', hint: 'log in' } });
    expect(blameSilentEngine(auth as FailedEvent, silent)).toBe(auth);
  });
});
