import { describe, expect, it } from 'vitest';
import { chooseMode, inCi } from '../../../src/cli/race-session.js';
import type { CliContext } from '../../../src/cli/context.js';

const ctx = (isTTY: boolean, env: NodeJS.ProcessEnv): CliContext =>
  ({ stdout: { isTTY }, env }) as unknown as CliContext;

describe('choosing the dashboard or headless mode', () => {
  it('opens the dashboard on a terminal', () => {
    expect(chooseMode(ctx(true, {}), false)).toBe('dashboard');
  });

  it('runs headless with --json or when stdout is not a terminal', () => {
    expect(chooseMode(ctx(true, {}), true)).toBe('headless');
    expect(chooseMode(ctx(false, {}), false)).toBe('headless');
  });

  it('runs headless in CI, where Ink draws no live frames', () => {
    expect(chooseMode(ctx(true, { CI: 'true' }), false)).toBe('headless');
    expect(chooseMode(ctx(true, { CONTINUOUS_INTEGRATION: '1' }), false)).toBe('headless');
  });

  it('treats CI=false and CI=0 as not CI, as Ink does', () => {
    expect(inCi({ CI: 'false' })).toBe(false);
    expect(inCi({ CI: '0' })).toBe(false);
    expect(inCi({ CI: '' })).toBe(true);
  });
});
