/** Run records written by older hydra versions read back the way hydra writes them now. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../../src/core/events.js';
import { readRecordDir } from '../../../../src/engine/records/read-run.js';

let dir: string;
const RUN = '20261101-101010-abcd';

/** The summary of a record that reads back whole. */
const summaryOf = (loaded: ReturnType<typeof readRecordDir>) =>
  loaded.kind === 'ok' ? loaded.record.summary : null;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hydra-records-test-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const zeroUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  turns: 0,
  costUsd: null,
  costSource: 'unknown',
};

const agentSummary = (agent: string, usage: object) => ({
  agent,
  status: 'completed',
  exitCode: 0,
  durationMs: 1000,
  usage,
  diff: { filesChanged: 1, insertions: 1, deletions: 0 },
  branch: null,
  worktree: null,
});

/** A record as hydra wrote it when unknown usage was written as zeros. */
const writeOldRecord = (agents: object[]): void => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'meta.json'),
    JSON.stringify({
      runId: RUN,
      prompt: 'p',
      promptSha256: 'x',
      repoRoot: '/tmp/repo',
      baseRef: 'abc',
      baseBranch: 'main',
      startedAt: 0,
      pid: 1,
      hydraVersion: '0.1.0',
      config: null,
      agents: [],
    }),
  );
  writeFileSync(
    path.join(dir, 'summary.json'),
    JSON.stringify({
      runId: RUN,
      prompt: 'p',
      baseRef: 'abc',
      baseBranch: 'main',
      startedAt: 0,
      endedAt: 1,
      agents,
      error: null,
    }),
  );
};

describe('a summary from before usage could be unknown', () => {
  it('reads all-zero usage with no turns and an unknown cost as nothing reported', () => {
    writeOldRecord([agentSummary('cursor', zeroUsage)]);
    expect(summaryOf(readRecordDir(dir, RUN))?.agents[0]?.usage).toEqual(emptyUsage());
  });

  it('keeps usage an agent did report, zeros included', () => {
    const reported = { ...zeroUsage, outputTokens: 0, turns: 1 };
    const priced = { ...zeroUsage, inputTokens: 10, costUsd: 0.01, costSource: 'estimated' };
    writeOldRecord([agentSummary('codex', reported), agentSummary('claude', priced)]);
    const agents = summaryOf(readRecordDir(dir, RUN))?.agents;
    expect(agents?.map((agent) => agent.usage)).toEqual([reported, priced]);
  });
});
