/**
 * The real CLIs (pinned versions from the cache) in the OS sandbox, in full autonomy, against the
 * fake model servers: the fake model has each one run a shell command in its worktree that writes
 * a file there, writes one outside (the jail refuses it), runs a script of the project's that is
 * not executable (a `Permission denied` inside the worktree, not a refusal) and asks a host the
 * sandbox's proxy does not allow. The CLI reaches its (loopback) API only through the proxy.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_REFUSED_STAGE } from '../../src/core/events.js';
import type { AgentEvent } from '../../src/core/events.js';
import { RECORD_VERSIONS } from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { runVendor } from './harness.js';
import type { VendorScenario } from './harness.js';
import { SANDBOX_SHELL, sandboxMissing } from './sandbox.js';

/** The scenario whose first turn is the shell call, per CLI. */
const SHELL_SCENARIO: Record<VendorAgent, VendorScenario> = {
  claude: 'success-edit',
  codex: 'success-shell',
  gemini: 'success-edit',
  qwen: 'success-edit',
  opencode: 'success-edit',
};

/** The flags that give each CLI full autonomy, and the variables its adapter sets in the sandbox. */
const FULL_AUTONOMY: Record<VendorAgent, { args: string[]; env: Record<string, string> }> = {
  claude: { args: ['--permission-mode', 'bypassPermissions'], env: { IS_SANDBOX: '1' } },
  codex: { args: ['--dangerously-bypass-approvals-and-sandbox'], env: {} },
  gemini: { args: ['--approval-mode', 'yolo'], env: { GEMINI_SANDBOX: 'false' } },
  qwen: { args: ['--approval-mode', 'yolo'], env: { QWEN_SANDBOX: 'false' } },
  opencode: { args: ['--auto'], env: {} },
};

const refusals = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((event) =>
    event.kind === 'progress' && event.stage === SANDBOX_REFUSED_STAGE ? [event.detail ?? ''] : [],
  );

const AGENTS: VendorAgent[] = ['claude', 'codex', 'gemini', 'qwen', 'opencode'];

describe.skipIf(sandboxMissing() !== null).each(AGENTS)('%s in the OS sandbox, full autonomy', (agent) => {
  it('runs the shell command in its worktree; the write outside is refused and shown as a warning', async () => {
    const run = await runVendor({
      agent,
      version: RECORD_VERSIONS[agent],
      scenario: SHELL_SCENARIO[agent],
      sandboxed: true,
      shell: SANDBOX_SHELL,
      prompt: 'Run the project script.',
      read: ['repo/ran.txt', 'outside.txt'],
    });

    expect(run.built.args).toEqual(expect.arrayContaining(FULL_AUTONOMY[agent].args));
    expect(run.built.env).toMatchObject(FULL_AUTONOMY[agent].env);
    // The model was reached through the proxy: the shell call came back with its output.
    expect(run.terminal.kind, run.stderr).toBe('completed');
    expect(run.files['repo/ran.txt']).toBe('ok\n');
    expect(run.files['outside.txt']).toBeNull();
    const refused = refusals(run.events);
    expect(refused).toContain('a write to ../outside.txt (read-only file system)');
    expect(refused).toContain("a network connection (its host is not on the sandbox's network allowlist)");
    // `./build.sh: Permission denied` is inside the worktree: the project's own business.
    expect(refused.join('\n')).not.toContain('build.sh');
  });
});

// Without the sandbox the runs above cannot happen: that is a failure of this suite, not a skip.
it('has the OS sandbox to run in (apt-get install bubblewrap socat ripgrep)', () => {
  expect(sandboxMissing()).toBeNull();
});
