/**
 * An agent's port (docs/setup-ports.md) where a user reads it: the dashboard's detail view,
 * `hydra show`, and the headless summary line.
 */
import { describe, expect, it } from 'vitest';
import { renderRun } from '../../src/cli/commands/show.js';
import { summaryLine } from '../../src/cli/headless.js';
import { createStyle } from '../../src/cli/style.js';
import type { AgentSummary, RaceSummary, RunRecord } from '../../src/engine/types.js';
import { lineText } from '../../src/ui/layout/lines.js';
import { detailLines } from '../../src/ui/layout/view-lines.js';
import { createTheme } from '../../src/ui/text/theme.js';
import { T0, completed, usage } from '../ui/fixtures.js';

const theme = createTheme({ ascii: false, color: false });

const agentSummary = (agent: string, port?: number | null): AgentSummary => ({
  agent,
  adapter: 'claude',
  status: 'completed',
  exitCode: 0,
  durationMs: 80_000,
  usage: usage({}),
  diff: { filesChanged: 1, insertions: 1, deletions: 0 },
  branch: `hydra/run-1/${agent}`,
  worktree: null,
  ...(port === undefined ? {} : { port }),
});

const summaryOf = (agents: AgentSummary[]): RaceSummary => ({
  runId: 'run-1',
  prompt: 'Fix it',
  baseRef: '1a2b3c4d5e6f',
  baseBranch: 'main',
  startedAt: T0,
  endedAt: T0 + 90_000,
  agents,
  error: null,
});

const record = (summary: RaceSummary): RunRecord => ({
  runId: 'run-1',
  notes: [],
  dir: '/tmp/repo/.hydra/runs/run-1',
  meta: {
    runId: 'run-1',
    prompt: 'Fix it',
    promptSha256: 'x',
    repoRoot: '/tmp/repo',
    baseRef: '1a2b3c4d5e6f',
    baseBranch: 'main',
    startedAt: T0,
    pid: 1,
    hydraVersion: '0.1.0',
    config: {},
    agents: [],
  },
  events: [],
  summary,
  merge: null,
});

describe("an agent's port", () => {
  it('is shown in the detail view, and not when it has none', () => {
    const text = (port: number | null) =>
      detailLines(completed('claude', { port }), T0 + 90_000, theme, 100, 'run-1').map(lineText);
    expect(text(20_010)).toContain('port     20010');
    expect(text(null).some((line) => line.startsWith('port'))).toBe(false);
  });

  it('is printed by hydra show for each agent that had one', () => {
    const lines = renderRun(
      record(summaryOf([agentSummary('claude', 20_010), agentSummary('codex', null), agentSummary('old')])),
      createStyle(false),
      theme.symbols,
    );
    expect(lines.filter((line) => line.startsWith('  port'))).toEqual(['  port    20010']);
  });

  it('is in the headless summary line: a number, or null', () => {
    const line = summaryLine(summaryOf([agentSummary('claude', 20_010), agentSummary('codex', null)]));
    expect(line.agents.map((agent) => agent.port)).toEqual([20_010, null]);
  });
});
