/**
 * Every recorded stream of every CLI version, replayed through its adapter: the outcome must agree
 * with how the real process ended, recorded output never yields parse errors, and only the legacy
 * Codex protocol (which the probe rejects) yields unknown events.
 */
import { describe, expect, it } from 'vitest';
import { CODEX_MIN_JSON_VERSION } from '../../../src/adapters/codex.js';
import { GEMINI_MIN_VERSION } from '../../../src/adapters/gemini.js';
import { compareVersions } from '../../../src/adapters/help-flags.js';
import { adapterOf } from '../../../src/adapters/registry.js';
import type { AdapterId } from '../../../src/adapters/types.js';
import { endOf, loadStream, replay, streamNames } from '../../support/adapter-fixtures.js';

const RECORDED: AdapterId[] = ['claude', 'codex', 'gemini', 'qwen', 'opencode'];

/** Scenarios that are failures whatever the exit code. */
const FAILING = ['auth-failure', 'server-error', 'permission-rejected', 'empty-response'];

const isLegacyCodex = (agent: AdapterId, version: string | undefined): boolean =>
  agent === 'codex' && version !== undefined && compareVersions(version, CODEX_MIN_JSON_VERSION) < 0;

/** Gemini CLI 0.11.x, which the probe refuses: it calls a failed API call a success. */
const isRefusedGemini = (agent: AdapterId, version: string | undefined): boolean =>
  agent === 'gemini' && version !== undefined && compareVersions(version, GEMINI_MIN_VERSION) < 0;

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
    if (isRefusedGemini(agent, fixture.meta.cliVersion) && name.startsWith('auth-failure')) {
      // Its stream says "success" and it exits 0; only stderr tells, and not why.
      expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
      return;
    }
    // Some releases exit 0 after a failed run (qwen 0.5/0.15 and opencode 1.3/1.14 on a 401,
    // opencode when a permission is refused): the scenario, not the exit code, says what happened.
    if (fixture.meta.exitCode === 0 && FAILING.every((prefix) => !name.startsWith(prefix))) {
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
