/**
 * A race's files on disk while it runs: the event log, opened once the run's record directory
 * exists, and the summary, rewritten whenever a settled race's context changes (clean-up, merge).
 * A record that cannot be written never breaks the race: it is only left incomplete.
 */
import type { AgentEventRecord, RaceSummary } from '../records/index.js';
import { EventLog, writeSummary } from '../records/index.js';
import type { RaceContext } from './race-types.js';
import { buildSummary, raceEnd } from './race-summary.js';
import { journalRecord } from '../ledger/index.js';

export interface RaceRecords {
  /**
   * Appends a batch of agent events to the log with one write (the log is opened on the first
   * event once `recordDir` is known).
   */
  appendEvents(recordDir: string | null, records: readonly AgentEventRecord[]): void;
  /** The summary of a settled race, written to disk once per context. */
  persistSummary(context: RaceContext): RaceSummary;
  /** The race is over: the log is closed and not opened again. */
  close(): void;
}

export function createRaceRecords(): RaceRecords {
  let log: EventLog | null = null;
  let closed = false;
  let summaryWrittenFor: RaceContext | null = null;

  // Opens the log lazily: the record directory only exists once the worktrees are created.
  const openLog = (recordDir: string | null): EventLog | null => {
    if (log !== null || recordDir === null || closed) return log;
    try {
      log = new EventLog(recordDir);
    } catch {
      log = null;
    }
    return log;
  };

  return {
    appendEvents(recordDir, records) {
      try {
        openLog(recordDir)?.appendBatch(records);
      } catch {
        // Disk full or similar: the race goes on; the record is incomplete.
      }
    },
    persistSummary(context) {
      const summary = buildSummary(context, raceEnd(context));
      if (context.recordDir !== null && summaryWrittenFor !== context) {
        summaryWrittenFor = context;
        try {
          writeSummary(context.recordDir, summary);
          // `hydra stats` then need not read this record (engine/ledger).
          if (context.repo !== null) journalRecord(context.repo.root, context.runId);
        } catch {
          // A record that cannot be written must not break the race.
        }
      }
      return summary;
    },
    close() {
      log?.close();
      log = null;
      closed = true;
    },
  };
}
