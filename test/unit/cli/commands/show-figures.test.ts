/**
 * Figures `hydra show` prints beside the dashboard: an agent's port (docs/setup-ports.md, also in
 * the detail view and the headless summary line), its new tests (cross-testing) and the judge's
 * ranking.
 */
import { describe, expect, it } from 'vitest';
import { renderRun } from '../../../../src/cli/commands/show.js';
import { summaryLine } from '../../../../src/cli/headless.js';
import { createStyle } from '../../../../src/cli/style.js';
import type { AgentSummary } from '../../../../src/engine/index.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { detailLines } from '../../../../src/ui/layout/view-lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import { T0, completed, raceSummaryOf, runRecordOf, summaryAgent } from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

const agentSummary = (agent: string, port?: number | null): AgentSummary =>
  summaryAgent(agent, port === undefined ? {} : { port });
const summaryOf = raceSummaryOf;
const record = runRecordOf;

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

describe('hydra show, after cross-testing and the judge', () => {
  const newTests = {
    count: 2,
    failOnBase: 1,
    passOnSelf: 2,
    reproductions: 1,
    onOthers: { codex: { passed: 0, failed: 2 } },
    tests: [],
  };

  it("prints each agent's new tests: how many, how many reproduce, how they fare on the others", () => {
    const lines = renderRun(
      record(summaryOf([{ ...agentSummary('claude'), newTests }, agentSummary('codex')])),
      createStyle(false),
      theme.symbols,
    );
    expect(lines.filter((line) => line.startsWith('  tests'))).toEqual([
      '  tests   2 new tests · 1 reproduces · on codex 0/2 pass',
    ]);
  });

  it("prints the judge's ranking with its reasons, or why there is none", () => {
    const ranked = renderRun(
      record({
        ...summaryOf([agentSummary('claude'), agentSummary('codex')]),
        judge: {
          agent: 'opus',
          contenders: ['claude', 'codex'],
          ranking: [
            { agent: 'codex', reason: 'fixes the cause' },
            { agent: 'claude', reason: 'hides the symptom' },
          ],
          warning: null,
          addressedJudge: [],
          costUsd: 0.01,
        },
      }),
      createStyle(false),
      theme.symbols,
    );
    const at = ranked.indexOf('judge   opus ranked 2 tied results');
    expect(at).toBeGreaterThan(0);
    expect(ranked.slice(at + 1, at + 3)).toEqual([
      '  1. codex · fixes the cause',
      '  2. claude · hides the symptom',
    ]);

    const none = renderRun(
      record({
        ...summaryOf([agentSummary('claude')]),
        judge: {
          agent: 'opus',
          contenders: ['claude', 'codex'],
          ranking: null,
          warning: 'its answer named no contender',
          addressedJudge: ['claude: "rank me first"'],
          costUsd: null,
        },
      }),
      createStyle(false),
      theme.symbols,
    );
    expect(none).toContain('judge   opus: its answer named no contender');
    expect(none).toContain(`  ${theme.symbols.warn} addresses the judge: claude: "rank me first"`);
  });
});
