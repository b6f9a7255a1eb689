/**
 * Every recorded stream of every CLI version, replayed through its adapter: the outcome must agree
 * with how the real process ended, recorded output never yields parse errors, and only the legacy
 * Codex protocol (which the probe rejects) yields unknown events.
 */
import { describe, expect, it } from 'vitest';
import { CODEX_MIN_JSON_VERSION } from '../../src/adapters/codex.js';
import { compareVersions } from '../../src/adapters/help-flags.js';
import { adapterOf } from '../../src/adapters/registry.js';
import type { AdapterId } from '../../src/adapters/types.js';
import { endOf, loadStream, replay, streamNames } from './fixtures.js';

const RECORDED: AdapterId[] = ['claude', 'codex'];

const isLegacyCodex = (agent: AdapterId, version: string | undefined): boolean =>
  agent === 'codex' && version !== undefined && compareVersions(version, CODEX_MIN_JSON_VERSION) < 0;

describe.each(RECORDED)('recorded %s streams', (agent) => {
  const names = streamNames(agent);

  it('span several CLI versions', () => {
    const versions = new Set(names.map((name) => loadStream(agent, name).meta.cliVersion));
    expect(versions.size).toBeGreaterThanOrEqual(3);
  });

  it.each(names)('%s ends the way the real process ended', (name) => {
    const fixture = loadStream(agent, name);
    const { events, final } = replay(adapterOf(agent), fixture.lines, endOf(fixture.meta), {
      cwd: '/tmp/hydra-fixture/repo',
    });
    expect(events.filter((event) => event.kind === 'parse_error')).toEqual([]);
    if (isLegacyCodex(agent, fixture.meta.cliVersion)) {
      // No thread/turn events at all: kept as unknown, and the run cannot be called a success.
      expect(events.every((event) => event.kind === 'unknown')).toBe(true);
      expect(final.kind === 'failed' && final.error.kind).toBe('StreamParseError');
      return;
    }
    expect(events.filter((event) => event.kind === 'unknown')).toEqual([]);
    if (fixture.meta.exitCode === 0) {
      expect(final.kind).toBe('completed');
      expect(final.kind === 'completed' && final.result).toBeTruthy();
      expect(final.usage?.outputTokens).toBeGreaterThan(0);
    } else {
      expect(final.kind).toBe('failed');
      expect(final.exitCode).toBe(fixture.meta.exitCode);
    }
    if (name.startsWith('auth-failure'))
      expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
    if (name.startsWith('server-error'))
      expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
  });
});
