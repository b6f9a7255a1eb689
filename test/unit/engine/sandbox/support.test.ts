/**
 * Which sandbox a machine gets (support.ts, before the trial run): macOS's Seatbelt
 * (`sandbox-exec`), which needs none of Linux's programs; Linux's bubblewrap; nothing elsewhere.
 * The macOS branch cannot run here: its choice is checked with the platform and the file test passed in.
 */
import { describe, expect, it } from 'vitest';
import { describeSandbox, sandboxRequirements } from '../../../../src/engine/sandbox/support.js';

const EMPTY_PATH = { PATH: '/nonexistent' };

describe('sandboxRequirements', () => {
  it('gives macOS Seatbelt through sandbox-exec, with no bubblewrap, socat or ripgrep installed', () => {
    const needs = sandboxRequirements(EMPTY_PATH, 'darwin', (file) => file === '/usr/bin/sandbox-exec');
    expect(needs).toMatchObject({ mechanism: 'sandbox-exec' });
  });

  it('says what is missing on a macOS without sandbox-exec', () => {
    expect(sandboxRequirements(EMPTY_PATH, 'darwin', () => false)).toMatchObject({
      available: false,
      reason: '/usr/bin/sandbox-exec is missing',
    });
  });

  it("names Linux's missing packages, and no sandbox for Windows", () => {
    expect(sandboxRequirements(EMPTY_PATH, 'linux')).toMatchObject({
      available: false,
      reason: 'bubblewrap, socat and ripgrep are not installed',
    });
    expect(sandboxRequirements(EMPTY_PATH, 'win32')).toMatchObject({
      available: false,
      reason: 'there is no sandbox for win32 (Linux: bubblewrap; macOS: sandbox-exec)',
    });
  });
});

describe('describeSandbox', () => {
  it("names the backend: Seatbelt on macOS, Linux's namespaces and seccomp", () => {
    const tools = { bwrap: null, socat: null, rg: null };
    expect(describeSandbox({ available: true, mechanism: 'sandbox-exec', tools })).toContain(
      "sandbox-exec per agent (backend: macOS's Seatbelt, through @anthropic-ai/sandbox-runtime;",
    );
    expect(describeSandbox({ available: true, mechanism: 'bubblewrap', tools })).toContain(
      'bubblewrap per agent (backend: Linux namespaces and seccomp',
    );
  });
});
