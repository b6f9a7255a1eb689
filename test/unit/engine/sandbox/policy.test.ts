/** Issue 22: what one agent's sandbox lets it write, read and reach (pure: no file is read). */
import { describe, expect, it } from 'vitest';
import { adapterOf } from '../../../../src/adapters/registry.js';
import {
  agentPolicy,
  isProtectedAtTop,
  isProtectedPath,
  racePolicy,
  treePolicy,
} from '../../../../src/engine/sandbox/index.js';
import type { AgentPolicyInput } from '../../../../src/engine/sandbox/index.js';

const HOME = '/home/u';
const RUN = '/home/u/.cache/hydra/worktrees/repo-1a2b/20261126-070000-abcd';

const input = (adapter: string, extra: Partial<AgentPolicyInput> = {}): AgentPolicyInput => ({
  mechanism: 'bubblewrap',
  adapter: adapterOf(adapter),
  env: {},
  worktree: `${RUN}/${adapter}`,
  scratchDir: `${RUN}/.scratch/${adapter}`,
  privateGitDir: `${RUN}/.git-private/${adapter}`,
  tmpDir: `${RUN}/.scratch/${adapter}/tmp`,
  settings: { mode: 'auto', allowHosts: [], allowWrite: [] },
  home: HOME,
  ...extra,
});

describe('an agent policy', () => {
  it("makes its own trees and its CLI's state writable, and nothing of its rivals'", () => {
    const policy = agentPolicy(input('claude'));
    expect(policy.allowWrite).toEqual([
      `${RUN}/claude`,
      `${RUN}/.scratch/claude`,
      `${RUN}/.scratch/claude/tmp`,
      `${RUN}/.git-private/claude`,
      `${HOME}/.claude`,
      `${HOME}/.claude.json`,
    ]);
    expect(policy.allowWrite.some((entry) => entry.includes('/codex'))).toBe(false);
  });

  it("denies reading credentials and the other CLIs' state, not its own", () => {
    const policy = agentPolicy(input('claude'));
    expect(policy.denyRead).toEqual(
      expect.arrayContaining([
        `${HOME}/.ssh`,
        `${HOME}/.aws`,
        `${HOME}/.gnupg`,
        `${HOME}/.config/gh`,
        `${HOME}/.docker`,
        `${HOME}/.netrc`,
        `${HOME}/.git-credentials`,
        `${HOME}/.kube`,
        `${HOME}/.codex`,
        `${HOME}/.gemini`,
      ]),
    );
    expect(policy.denyRead).not.toContain(`${HOME}/.claude`);
    expect(policy.denyRead).not.toContain(`${HOME}/.claude.json`);
  });

  it('follows a state directory its variable moves (CODEX_HOME)', () => {
    const policy = agentPolicy(input('codex', { env: { CODEX_HOME: '/srv/codex-home' } }));
    expect(policy.allowWrite).toContain('/srv/codex-home');
    expect(agentPolicy(input('claude', { env: { CODEX_HOME: '/srv/codex-home' } })).denyRead).toContain(
      '/srv/codex-home',
    );
  });

  it('reaches its API, the hosts of its base URLs and allow_hosts, and nothing else', () => {
    const policy = agentPolicy(
      input('claude', {
        env: {
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080/v1',
          OPENAI_BASE_URL: 'https://llm.corp.example/v1',
        },
        settings: {
          mode: 'auto',
          allowHosts: ['registry.npmjs.org'],
          allowWrite: ['~/.cache/pip', '/opt/x'],
        },
      }),
    );
    expect(policy.allowHosts).toEqual([
      'api.anthropic.com',
      'console.anthropic.com',
      'claude.ai',
      '127.0.0.1:8080',
      'llm.corp.example',
      'registry.npmjs.org',
    ]);
    expect(policy.loopbackHosts).toEqual(['127.0.0.1']);
    expect(policy.allowWrite).toEqual(expect.arrayContaining([`${HOME}/.cache/pip`, '/opt/x']));
  });

  it('allows a loopback base URL on its port only, however the address is spelled', () => {
    const hostsFor = (url: string): string[] =>
      agentPolicy(input('claude', { env: { ANTHROPIC_BASE_URL: url } })).allowHosts.filter(
        (host) => !host.includes('anthropic') && host !== 'claude.ai',
      );
    expect(hostsFor('http://127.1:4000')).toEqual(['127.0.0.1:4000']);
    expect(hostsFor('http://2130706433:4000/v1')).toEqual(['127.0.0.1:4000']);
    expect(hostsFor('http://0x7f000001:4000')).toEqual(['127.0.0.1:4000']);
    expect(hostsFor('http://localhost')).toEqual(['localhost:80']);
    expect(hostsFor('https://gw.localhost')).toEqual(['gw.localhost:443']);
    expect(hostsFor('http://[::1]:4000')).toEqual(['[::1]:4000']);
    expect(
      agentPolicy(input('claude', { env: { ANTHROPIC_BASE_URL: 'http://[::1]:4000' } })).loopbackHosts,
    ).toEqual(['::1']);
  });

  it("lets a command in another of the agent's trees (its checks' checkout) write that tree and temp only", () => {
    const policy = treePolicy(agentPolicy(input('claude')), `${RUN}/.checks-claude`);
    expect(policy.allowWrite).toEqual([`${RUN}/.checks-claude`, `${RUN}/.scratch/claude/tmp`]);
    expect(policy.denyRead).toContain(`${HOME}/.ssh`);
  });

  it("keeps the protected files of its worktree read-only, not those of hydra's working directory (issue 35, case 8)", () => {
    const policy = agentPolicy(input('claude'));
    const worktree = `${RUN}/claude`;
    expect(policy.denyWrite).toEqual(
      expect.arrayContaining([
        `${worktree}/.mcp.json`,
        `${worktree}/.vscode`,
        `${worktree}/.idea`,
        `${worktree}/.claude/commands`,
        `${worktree}/.claude/agents`,
        `${worktree}/.gitmodules`,
        `${worktree}/.bashrc`,
        `${worktree}/.zshrc`,
        `${worktree}/.profile`,
      ]),
    );
    expect(policy.denyWrite.every((entry) => entry.startsWith(`${worktree}/`))).toBe(true);
  });

  it('lets `[sandbox] allow_write` name a protected path of the worktree, relative to it', () => {
    const settings = {
      mode: 'auto' as const,
      allowHosts: [],
      allowWrite: ['.vscode', '.claude', '~/.cache/pip'],
    };
    const policy = agentPolicy(input('claude', { settings }));
    const worktree = `${RUN}/claude`;
    expect(policy.denyWrite).not.toContain(`${worktree}/.vscode`);
    expect(policy.denyWrite).not.toContain(`${worktree}/.claude/commands`);
    expect(policy.denyWrite).toContain(`${worktree}/.mcp.json`);
    // Inside the worktree, which is writable anyway: no path of the user's home.
    expect(policy.allowWrite).not.toContain(`${HOME}/.vscode`);
    expect(policy.allowWrite).toContain(`${HOME}/.cache/pip`);
  });

  it("hides its rivals' trees and the run records, and lets it read its own", () => {
    const area = '/home/u/.cache/hydra/worktrees/repo-1a2b';
    const policy = agentPolicy(input('claude', { hidden: { area, records: '/src/repo/.hydra/runs' } }));
    expect(policy.denyRead).toEqual(expect.arrayContaining([area, '/src/repo/.hydra/runs']));
    expect(policy.allowRead).toEqual([
      `${RUN}/claude`,
      `${RUN}/.scratch/claude`,
      `${RUN}/.scratch/claude/tmp`,
      `${RUN}/.git-private/claude`,
    ]);
    // Its checks' checkout reads its own tree.
    const tree = treePolicy(policy, `${RUN}/.checks-claude`);
    expect(tree.allowRead).toEqual([`${RUN}/.checks-claude`, `${RUN}/.scratch/claude/tmp`]);
    expect(tree.denyWrite).toEqual([]);
  });

  it("reads its own copy of its CLI state in the hidden area, not its rivals' copies", () => {
    const area = '/home/u/.cache/hydra/worktrees/repo-1a2b';
    const own = `${RUN}/.state/claude`;
    const policy = agentPolicy(
      input('claude', { hidden: { area, records: '/src/repo/.hydra/runs', own: [own] } }),
    );
    expect(policy.denyRead).toContain(area);
    expect(policy.allowRead).toContain(own);
    expect(policy.allowRead).not.toContain(`${RUN}/.state/codex`);
  });
});

describe('isProtectedPath', () => {
  it('names the protected paths at any depth, and nothing else', () => {
    for (const file of [
      '.mcp.json',
      '.vscode/tasks.json',
      'pkg/.vscode/settings.json',
      '.claude/commands/x.md',
      '.gitmodules',
      'a/b/.bashrc',
      'sub/.envrc',
      'web/.husky/pre-commit',
      // The editor's folder on a case-insensitive disk.
      'pkg/.VSCode/tasks.json',
    ])
      expect(isProtectedPath(file), file).toBe(true);
    for (const file of [
      'src/mcp.json',
      '.claude/settings.json',
      'docs/.vscode-notes.md',
      'bashrc',
      '.claude/x/commands',
    ])
      expect(isProtectedPath(file), file).toBe(false);
  });

  it('tells those at the top (which the jail keeps read-only) from those below it (which the merge asks about)', () => {
    expect(['.mcp.json', '.vscode/tasks.json', '.husky/pre-commit', '.envrc'].map(isProtectedAtTop)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['pkg/.mcp.json', 'sub/.vscode/tasks.json', 'a/.gitmodules'].map(isProtectedAtTop)).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("an agent's own home and state copy (issue 35)", () => {
  it("makes the state of the HOME its env names writable, not the user home, and denies both homes' credentials", () => {
    const policy = agentPolicy(input('qwen', { env: { HOME: '/srv/agent-home' } }));
    expect(policy.allowWrite).toContain('/srv/agent-home/.qwen');
    expect(policy.allowWrite).not.toContain(`${HOME}/.qwen`);
    expect(policy.denyRead).toEqual(expect.arrayContaining([`${HOME}/.ssh`, '/srv/agent-home/.ssh']));
  });

  it("makes its copy writable when its CLI's variable points there", () => {
    const copy = `${RUN}/.state/claude/claude_config_dir`;
    const policy = agentPolicy(input('claude', { env: { CLAUDE_CONFIG_DIR: copy } }));
    expect(policy.allowWrite).toEqual(expect.arrayContaining([copy, `${copy}/.claude.json`]));
    expect(policy.allowWrite).not.toContain(`${HOME}/.claude`);
    expect(policy.allowWrite).not.toContain(`${HOME}/.claude.json`);
  });

  it('lets the hosts of endpoints from its configuration through, a loopback one by its port', () => {
    const policy = agentPolicy(
      input('codex', { endpoints: ['http://127.0.0.1:4000/v1', 'https://gw.example/v1'] }),
    );
    expect(policy.allowHosts).toEqual(expect.arrayContaining(['127.0.0.1:4000', 'gw.example']));
    expect(policy.allowHosts).not.toContain('127.0.0.1');
  });
});

describe("the race's own commands' policy (the baseline, cross-testing: issue 35, case 1)", () => {
  const policy = racePolicy({
    mechanism: 'bubblewrap',
    settings: {
      mode: 'auto',
      allowHosts: ['registry.npmjs.org', '127.0.0.1:4873'],
      allowWrite: ['~/.cache/x'],
    },
    env: { CODEX_HOME: '/srv/codex' },
    denyRead: [`${RUN}/claude`, '/repo/.hydra/runs/20261126-070000-abcd'],
    home: HOME,
  });

  it('writes only the tree it runs in and a temp directory of its own', () => {
    expect(treePolicy(policy, `${RUN}/.cross`, `${RUN}/.cross-tmp`)).toMatchObject({
      allowWrite: [`${RUN}/.cross`, `${RUN}/.cross-tmp`],
      tmpDir: `${RUN}/.cross-tmp`,
    });
  });

  it("reads no credential, no CLI's state, not the run record or an agent's worktree", () => {
    expect(policy.denyRead).toEqual(
      expect.arrayContaining([
        `${HOME}/.ssh`,
        `${HOME}/.netrc`,
        `${HOME}/.claude`,
        '/srv/codex',
        `${HOME}/.gemini`,
        `${RUN}/claude`,
        '/repo/.hydra/runs/20261126-070000-abcd',
      ]),
    );
  });

  it('reaches only the hosts [sandbox] allow_hosts names, no CLI API', () => {
    expect(policy.allowHosts).toEqual(['registry.npmjs.org', '127.0.0.1:4873']);
    expect(policy.loopbackHosts).toEqual(['127.0.0.1']);
  });
});
