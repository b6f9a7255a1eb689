/** The adapter kit: the one failure classifier, the run id in final hints, declared CLI facts. */
import { describe, expect, it } from 'vitest';
import { classifyFailure, statusIn } from '../../../../src/adapters/kit/failures.js';
import { adapterIds, adapterOf } from '../../../../src/adapters/registry.js';
import { endOf, loadStream, replay, REPLAY_RUN_ID } from '../../../support/adapter-fixtures.js';

const CLI = {
  id: 'acme',
  displayName: 'Acme',
  installHint: 'npm i -g acme',
  signInHint: 'Run `acme login`.',
  failures: {
    notSignedIn: /no provider/i,
    retried: 'Acme retried it',
    named: [{ label: /^error_max_turns$/, message: 'stopped at its turn limit', hint: 'Raise it.' }],
  },
};

describe('classifyFailure', () => {
  it('reads the status from the words CLIs use for it', () => {
    expect(statusIn('[API Error: 401 Incorrect key]')).toBe(401);
    expect(statusIn('{"error":{"code": 429}}')).toBe(429);
    expect(statusIn('unexpected status 503 Service Unavailable')).toBe(503);
    expect(statusIn('nothing here')).toBeUndefined();
  });

  it('tells a missing sign-in, a refused key, a named failure, a 5xx, a 4xx and the rest apart', () => {
    expect(classifyFailure(CLI, { text: 'No provider is set up' })).toMatchObject({
      kind: 'AuthMissing',
      message: 'Acme is not signed in: No provider is set up',
      hint: CLI.signInHint,
    });
    expect(classifyFailure(CLI, { text: 'bad key', status: 403 })).toMatchObject({ kind: 'AuthMissing' });
    expect(classifyFailure(CLI, { text: '', label: 'error_max_turns' })).toMatchObject({
      message: 'Acme stopped at its turn limit',
      hint: 'Raise it.',
    });
    expect(classifyFailure(CLI, { text: 'status 500 boom' })).toMatchObject({
      kind: 'AgentFailed',
      message: 'Acme hit an API server error (HTTP 500): status 500 boom',
      hint: 'The model provider failed (Acme retried it); try again later.',
    });
    expect(classifyFailure(CLI, { text: 'HTTP 404 no such model' }).hint).toContain('hydra show <run>');
    expect(classifyFailure(CLI, { text: 'odd', label: 'weird' }).message).toBe(
      'Acme reported an error (weird): odd',
    );
  });

  it("names the host and the [sandbox] line when the sandbox's proxy refused the call, not the sign-in (its 403 is no credential's)", () => {
    const codex = classifyFailure(CLI, {
      text: 'unexpected status 403 Forbidden: Connection blocked by network allowlist, url: http://127.0.0.1:39557/v1/responses',
    });
    expect(codex).toMatchObject({ kind: 'Unreachable' });
    expect(codex.message).toMatch(
      /^Acme could not reach 127\.0\.0\.1:39557: hydra's sandbox refused the connection/,
    );
    expect(codex.hint).toContain('allow_hosts = ["127.0.0.1:39557"]');
    const remote = classifyFailure(CLI, {
      text: 'HTTP 403 X-Proxy-Error: blocked-by-allowlist for https://api.example.com/v1/chat',
      status: 403,
    });
    expect(remote).toMatchObject({ kind: 'Unreachable' });
    expect(remote.hint).toContain('allow_hosts = ["api.example.com"]');
  });

  it.each([
    ['http://127.1:4000/v1', '127.0.0.1:4000'],
    ['http://0x7f000001:4000/v1', '127.0.0.1:4000'],
    ['http://[::1]:4000/v1', '[::1]:4000'],
    ['http://localhost/v1', 'localhost:80'],
  ])('names a refused loopback URL %s by one port of it (%s), as the policy allows it', (url, entry) => {
    const failure = classifyFailure(CLI, {
      text: `403 Connection blocked by network allowlist, url: ${url}`,
    });
    expect(failure.hint).toContain(`allow_hosts = ["${entry}"]`);
  });

  it('shows a label that names the failure, never a "success" subtype', () => {
    expect(classifyFailure(CLI, { text: 'boom', label: 'success' }).message).toBe(
      'Acme reported an error: boom',
    );
    expect(classifyFailure(CLI, { text: 'boom', label: 'error_during_execution' }).message).toBe(
      'Acme reported an error (error_during_execution): boom',
    );
  });

  it.each([
    'connect ECONNREFUSED 127.0.0.1:9',
    'getaddrinfo ENOTFOUND api.example',
    'TypeError: fetch failed',
  ])('tells an API it could not reach apart: %s', (text) => {
    expect(classifyFailure(CLI, { text })).toMatchObject({ kind: 'Unreachable' });
  });
});

describe('hints in final events', () => {
  it('name the run by its id, not the <run> placeholder a parser writes', () => {
    const fixture = loadStream('opencode', 'success-edit');
    const stopped = fixture.lines.map((line) => line.replace('"reason":"stop"', '"reason":"content-filter"'));
    const { final } = replay(adapterOf('opencode'), stopped, endOf(fixture.meta));
    expect(final.kind === 'failed' && final.error.hint).toContain(`hydra show ${REPLAY_RUN_ID}`);
    expect(final.kind === 'failed' && final.error.hint).not.toContain('<run>');
  });
});

describe('declared CLI facts', () => {
  it.each(adapterIds())('%s declares where it keeps its state and the hosts it talks to', (id) => {
    const adapter = adapterOf(id);
    expect(adapter.stateDirs?.length).toBeGreaterThan(0);
    expect(adapter.api?.hosts.length).toBeGreaterThan(0);
  });

  it('names a turn-limit flag the user can set in extra_args, never a max_turns key hydra lacks', () => {
    for (const id of ['claude', 'qwen']) {
      const fixture = loadStream(id, 'success-edit');
      const maxed = fixture.lines.map((line) =>
        line.includes('"type":"result"')
          ? JSON.stringify({ ...(JSON.parse(line) as object), subtype: 'error_max_turns', is_error: true })
          : line,
      );
      const { final } = replay(adapterOf(id), maxed, endOf(fixture.meta));
      expect(final.kind === 'failed' && final.error.hint).toMatch(new RegExp(`agents\\.${id}\\.extra_args`));
      expect(final.kind === 'failed' && final.error.hint).not.toMatch(/max_turns/);
    }
  });
});
