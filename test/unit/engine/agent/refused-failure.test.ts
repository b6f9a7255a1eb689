import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import type { FailedEvent } from '../../../../src/core/events.js';
import { blameRefusal } from '../../../../src/engine/agent/refused-failure.js';

const failed = ev({
  kind: 'failed',
  error: {
    kind: 'AgentFailed',
    message: 'Codex exited with code 1 without a result: at async main',
    hint: 'h',
  },
}) as FailedEvent;

const context = {
  displayName: 'Codex',
  refusals: [] as string[],
  stderrTail: '',
  worktree: '/w/run/codex',
  allowHosts: ['api.openai.com', '127.0.0.1:4000', '*.corp.example'],
};

describe('blameRefusal', () => {
  it("names the host the sandbox's proxy refused, and the allow_hosts line", () => {
    const blamed = blameRefusal(failed, {
      ...context,
      refusals: ['deny network-outbound llm.example:443 (host is not on the allow list)'],
    });
    expect(blamed.error.message).toBe(
      'Codex failed after the sandbox refused a connection to llm.example:443',
    );
    expect(blamed.error.hint).toBe(
      'If it should be allowed, add under [sandbox] in hydra.toml: allow_hosts = ["llm.example"]',
    );
  });

  it('names a refused write in its stderr, with the directory to allow (~ for the home)', () => {
    const blamed = blameRefusal(failed, {
      ...context,
      stderrTail: `Error: EROFS: read-only file system, open '${os.homedir()}/.gemini/projects.json.1.tmp'`,
    });
    expect(blamed.error.message).toBe(
      'Codex failed after the sandbox refused a write to ~/.gemini/projects.json.1.tmp (read-only file system)',
    );
    expect(blamed.error.hint).toContain('allow_write = ["~/.gemini"]');
  });

  it('names a URL outside the allowlist (a loopback port by its port), and not one inside it', () => {
    const refused = blameRefusal(failed, {
      ...context,
      stderrTail:
        'stream disconnected before completion: error sending request for url (http://127.0.0.1:5000/v1/responses)',
    });
    expect(refused.error.hint).toContain('allow_hosts = ["127.0.0.1:5000"]');
    for (const url of ['http://127.0.0.1:4000/v1', 'https://api.openai.com/v1', 'https://gw.corp.example/v1'])
      expect(blameRefusal(failed, { ...context, stderrTail: `error sending request for url (${url})` })).toBe(
        failed,
      );
  });

  it('reads a loopback host in any spelling, by its port, as the policy allows it', () => {
    const hint = (stderrTail: string, refusals: string[] = []): string | undefined =>
      blameRefusal(failed, { ...context, stderrTail, refusals }).error.hint;
    expect(hint('error sending request for url (http://127.1:5000/v1)')).toContain(
      'allow_hosts = ["127.0.0.1:5000"]',
    );
    expect(hint('error sending request for url (http://[::1]:5000/v1)')).toContain(
      'allow_hosts = ["[::1]:5000"]',
    );
    expect(hint('error sending request for url (http://localhost/v1)')).toContain(
      'allow_hosts = ["localhost:80"]',
    );
    expect(hint('', ['deny network-outbound 2130706433:5000 (host is not on the allow list)'])).toContain(
      'allow_hosts = ["127.0.0.1:5000"]',
    );
    // The allowed port, however the host is spelled, is no refusal.
    for (const url of ['http://127.1:4000/v1', 'http://0x7f000001:4000/v1'])
      expect(blameRefusal(failed, { ...context, stderrTail: `error sending request for url (${url})` })).toBe(
        failed,
      );
  });

  it('leaves a failure with no refusal as it was', () => {
    expect(
      blameRefusal(failed, { ...context, stderrTail: 'TypeError: x is undefined\n    at async main' }),
    ).toBe(failed);
  });
});
