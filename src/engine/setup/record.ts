/**
 * What a worktree's setup left, kept beside its log (`setup-<name>.json` in the run record): its
 * fingerprint and the top-level ignored paths it made. When the worktree goes back to the pool, this
 * is what a later race with the same fingerprint keeps (pool.ts) instead of running setup again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SetupPlan } from './plan.js';

export interface SetupRecord {
  fingerprint: string;
  /** Top-level ignored paths the setup made (or, for a warm worktree, kept). */
  produced: string[];
}

const recordFileOf = (plan: SetupPlan): string => plan.logFile.replace(/\.log$/, '.json');

/** Written once the setup succeeded (or was warm), when the plan has a fingerprint. */
export const writeSetupRecord = async (plan: SetupPlan, produced: readonly string[]): Promise<void> => {
  if (plan.fingerprint === null) return;
  const record: SetupRecord = { fingerprint: plan.fingerprint, produced: [...produced] };
  await writeFile(recordFileOf(plan), `${JSON.stringify(record)}\n`).catch(() => undefined);
};

/** The record of a plan's setup, or null when it did not succeed (or is unreadable). */
export const readSetupRecord = async (plan: SetupPlan): Promise<SetupRecord | null> => {
  try {
    const parsed = JSON.parse(await readFile(recordFileOf(plan), 'utf8')) as Partial<SetupRecord>;
    return typeof parsed.fingerprint === 'string' &&
      Array.isArray(parsed.produced) &&
      parsed.produced.every((item) => typeof item === 'string')
      ? { fingerprint: parsed.fingerprint, produced: parsed.produced }
      : null;
  } catch {
    return null;
  }
};
