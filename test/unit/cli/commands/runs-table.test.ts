/** Issue 24, item 9: `hydra runs` fits a terminal's width, one line a run. */
import { describe, expect, it } from 'vitest';
import { runsTable } from '../../../../src/cli/commands/runs.js';
import { createStyle } from '../../../../src/cli/style.js';
import { emptyUsage } from '../../../../src/core/events.js';
import type { AgentSummary, RunListEntry } from '../../../../src/engine/index.js';
import { visibleWidth } from '../../../../src/ui/index.js';

const agent = (name: string): AgentSummary => ({
  agent: name,
  adapter: name,
  status: 'completed',
  exitCode: 0,
  durationMs: 5000,
  usage: { ...emptyUsage(), costUsd: 0.01, costSource: 'reported' },
  diff: { filesChanged: 1, insertions: 1, deletions: 0 },
  branch: `hydra/run/${name}`,
  worktree: null,
});

const run = (index: number): RunListEntry => ({
  runId: `20261126-10264${index}-e2bc`,
  prompt: 'Create hello.txt containing a short greeting, then explain what you did in detail.',
  startedAt: Date.UTC(2026, 10, 26, 10, 26, index),
  endedAt: Date.UTC(2026, 10, 26, 10, 27, index),
  state: 'finished',
  problem: null,
  baseBranch: 'main',
  agentIds: ['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode'],
  agents: ['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode'].map(agent),
  totalCostUsd: 0.06,
  merged: index === 0 ? { agent: 'claude', commit: 'abcdef0123456789' } : null,
});

const plain = createStyle(false);

describe('hydra runs on a terminal', () => {
  for (const width of [72, 80, 100]) {
    it(`keeps each run on one line of at most ${width} columns`, () => {
      const lines = runsTable([run(0), run(1), run(2)], plain, width);
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain('20261126-102640-e2bc');
    });
  }

  it('counts the agents instead of listing them, and cuts the prompt, only when it must', () => {
    const narrow = runsTable([run(0)], plain, 80);
    expect(narrow[1]).toContain('6/6 completed');
    expect(narrow[1]).toContain('Create hello');
    const wide = runsTable([run(0)], plain, 300);
    expect(wide[1]).toContain('claude:completed codex:completed');
    // Not a terminal: every line whole, as before.
    expect(runsTable([run(0)], plain)).toEqual(wide);
  });
});
