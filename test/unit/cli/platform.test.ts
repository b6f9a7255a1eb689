/** Native Windows is refused with the way to run hydra there (src/cli/platform.ts). */
import { describe, expect, it } from 'vitest';
import { unsupportedPlatform } from '../../../src/cli/platform.js';

describe('unsupportedPlatform', () => {
  it('refuses native Windows, naming WSL2 as the way, with exit code 1', () => {
    const refusal = unsupportedPlatform('win32');
    expect(refusal?.message).toContain('hydra does not run on native Windows');
    expect(refusal?.hint).toContain('WSL2');
    expect(refusal?.exitCode).toBe(1);
  });

  it('lets Linux, macOS and the BSDs run', () => {
    for (const platform of ['linux', 'darwin', 'freebsd', 'openbsd'] as const)
      expect(unsupportedPlatform(platform)).toBeNull();
  });
});
