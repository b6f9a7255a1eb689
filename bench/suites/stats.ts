/**
 * Issue 38: `hydra stats` over 10,000 run records in under a second. The records are written as a
 * race writes them (meta.json with its config snapshot and agents, summary.json with three agents'
 * usage, checks with their output, scores and cross-tested new tests), one in 500 damaged; then
 * `hydra stats --json`, the table, and `--since` (which opens only the newest runs) are timed as
 * processes, beside `node -e 0`. The first `hydra stats` is timed twice: with nothing cached (every
 * record read), and after races that journaled their runs as they wrote the records (journalRecord,
 * what a race calls: the ledger cache's journal only, the records not read).
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalRecord } from '../../src/engine/ledger/index.js';
import { expectExit, measureCommand } from '../lib/measure.js';
import { median } from '../lib/stats.js';
import type { Workspace } from '../lib/workspace.js';

export interface StatsRow {
  name: string;
  wallMs: number;
  cpuMs: number;
}

export interface StatsResult {
  records: number;
  repeats: number;
  rows: StatsRow[];
  /** `hydra stats --json` (its ledger cached, as after any earlier `hydra stats`) under a second. */
  met: boolean;
}

const AGENTS = ['claude', 'codex', 'gemini'];
const DAY_MS = 86_400_000;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** A run id `<index>` runs back from `now`, one every ten minutes. */
const runIdOf = (now: number, index: number): { runId: string; at: number } => {
  const at = now - index * 600_000;
  const date = new Date(at);
  const stamp = `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`;
  return { runId: `${stamp}-${(index % 65_536).toString(16).padStart(4, '0')}`, at };
};

const agentEntry = (agent: string, index: number, runId: string) => {
  const passed = (index + agent.length) % 3 !== 0;
  return {
    agent,
    adapter: agent,
    status: 'completed',
    exitCode: 0,
    durationMs: 30_000 + ((index * 7919 + agent.length * 104_729) % 300_000),
    usage: {
      inputTokens: 12_000,
      outputTokens: 3_000,
      cacheReadTokens: 40_000,
      cacheWriteTokens: 2_000,
      turns: 12,
      costUsd: 0.05 + ((index + agent.length) % 40) / 100,
      costSource: 'reported',
    },
    diff: { filesChanged: 3, insertions: 40, deletions: 12 },
    branch: `hydra/${runId}/${agent}`,
    worktree: null,
    checks: [
      {
        name: 'test',
        gate: true,
        status: passed ? 'passed' : 'failed',
        exitCode: passed ? 0 : 1,
        durationMs: 4_200,
        tests: { passed: passed ? 120 : 118, failed: passed ? 0 : 2, skipped: 1 },
        newlyFailing: passed ? [] : ['date.test.ts > parses'],
        newlyPassing: [],
        output: `> npm test\n${'ok '.repeat(60)}\n${passed ? 'all passed' : '2 failed'}\n`,
      },
    ],
    score: {
      total: passed ? 60 + ((index * 31 + agent.length) % 40) : 0,
      gates: { passed, failed: passed ? [] : ['test'] },
      parts: {
        checks: passed ? 1 : 0,
        tests: 0.9,
        diff: 0.8,
        scope: 1,
        duration: 0.5,
        cost: 0.5,
        evidence: null,
      },
      disqualified: passed ? null : 'a gate failed: test',
      flags: [],
      verified: true,
    },
    newTests: {
      count: 1,
      failOnBase: 1,
      passOnSelf: 1,
      reproductions: index % 4 === 0 ? 1 : 0,
      onOthers: {},
      tests: [
        { file: 'test/date.test.ts', runner: 'vitest', onBase: 'failed', onSelf: 'passed', onOthers: {} },
      ],
    },
    sandbox: 'bubblewrap',
    runner: 'local',
  };
};

/** Writes `count` finished run records into `repo`; one in 500 has a damaged summary. */
export const writeRecords = (repo: string, count: number, now = Date.now()): void => {
  for (let index = 0; index < count; index += 1) {
    const { runId, at } = runIdOf(now, index);
    const dir = path.join(repo, '.hydra', 'runs', runId);
    mkdirSync(dir, { recursive: true });
    const meta = {
      runId,
      prompt: `Fix issue ${index}: the date parser drops the time zone`,
      promptSha256: '0'.repeat(64),
      repoRoot: repo,
      baseRef: 'a'.repeat(40),
      baseBranch: 'main',
      startedAt: at,
      pid: 999_999,
      pidStartTime: null,
      hydraVersion: '0.1.0',
      config: { file: null, config: { race: { checks: 'auto' } }, flags: { agents: AGENTS } },
      agents: AGENTS.map((agent) => ({
        agent,
        adapter: agent,
        branch: `hydra/${runId}/${agent}`,
        worktree: `/tmp/worktrees/${runId}/${agent}`,
        version: '1.0.0',
        capabilities: { streamJson: true, resume: true },
        command: [agent, '-p', '<prompt>'],
      })),
    };
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
    const summary =
      index % 500 === 499
        ? '{"runId": 1}'
        : JSON.stringify(
            {
              runId,
              prompt: meta.prompt,
              baseRef: meta.baseRef,
              baseBranch: 'main',
              startedAt: at,
              endedAt: at + 400_000,
              agents: AGENTS.map((agent) => agentEntry(agent, index, runId)),
              error: null,
              merged: null,
              mergeReason: 'not asked',
            },
            null,
            2,
          );
    writeFileSync(path.join(dir, 'summary.json'), summary);
  }
};

export async function benchStats(ws: Workspace, records: number, repeats: number): Promise<StatsResult> {
  const repo = path.join(ws.root, 'stats-repo');
  mkdirSync(repo, { recursive: true });
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeRecords(repo, records);
  const cacheHome = path.join(ws.root, 'xdg-cache');
  const env = {
    ...ws.env(path.join(ws.root, 'no-bin')),
    XDG_DATA_HOME: path.join(ws.root, 'xdg-data'),
    XDG_CACHE_HOME: cacheHome,
  };
  // The first `hydra stats` reads and checks every record; the next ones read only what changed.
  const ledgerDir = path.join(cacheHome, 'hydra', 'ledger');
  const cold = (): void => rmSync(ledgerDir, { recursive: true, force: true });
  // What the races that wrote these records would have journaled (the first `hydra stats` takes it).
  const ids = readdirSync(path.join(repo, '.hydra', 'runs'));
  for (const runId of ids) journalRecord(repo, runId, env);
  const journalName = readdirSync(ledgerDir).find((name) => name.endsWith('.journal')) ?? 'none.journal';
  const journal = path.join(ws.root, journalName);
  copyFileSync(path.join(ledgerDir, journalName), journal);
  const journaled = (): void => {
    cold();
    mkdirSync(ledgerDir, { recursive: true });
    copyFileSync(journal, path.join(ledgerDir, journalName));
  };
  const since = `${Math.max(1, Math.round((records * 600_000) / DAY_MS / 10))}d`;
  const variants: Array<{ name: string; argv: string[]; prepare?: () => void }> = [
    { name: 'node -e 0 (baseline)', argv: [process.execPath, '-e', '0'] },
    {
      name: `hydra stats --json (${records.toLocaleString('en-US')} records, ledger cached)`,
      argv: [...ws.hydra, 'stats', '--json'],
    },
    {
      name: 'hydra stats --json, first run (no ledger cache: every record read)',
      argv: [...ws.hydra, 'stats', '--json'],
      prepare: cold,
    },
    {
      name: 'hydra stats --json, first run after the races (their runs journaled as they were recorded)',
      argv: [...ws.hydra, 'stats', '--json'],
      prepare: journaled,
    },
    { name: 'hydra stats (the table)', argv: [...ws.hydra, 'stats'] },
    {
      name: `hydra stats --json --since ${since} (a tenth)`,
      argv: [...ws.hydra, 'stats', '--json', '--since', since],
    },
  ];
  // Warm the file cache once.
  for (const variant of variants) await measureCommand(variant.argv, { cwd: repo, env });
  const walls = variants.map(() => [] as number[]);
  const cpus = variants.map(() => [] as number[]);
  for (let round = 0; round < repeats; round += 1)
    for (const [position, variant] of variants.entries()) {
      variant.prepare?.();
      const sample = expectExit(await measureCommand(variant.argv, { cwd: repo, env }), 0, variant.name);
      walls[position]?.push(sample.wallMs);
      cpus[position]?.push(sample.cpuMs);
    }
  const rows = variants.map((variant, position) => ({
    name: variant.name,
    wallMs: median(walls[position] ?? []),
    cpuMs: median(cpus[position] ?? []),
  }));
  return { records, repeats, rows, met: (rows[1]?.wallMs ?? Number.POSITIVE_INFINITY) < 1000 };
}
