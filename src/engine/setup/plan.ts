/** What one worktree's setup runs: the race's `[setup]` commands, made concrete for one place. */
import path from 'node:path';
import type { SetupSettings } from './settings.js';

export interface SetupPlan {
  /** Each run `sh -c` in the worktree, in order. */
  commands: string[];
  source: 'hydra.toml' | 'cursor';
  /** The time limit of each command. */
  timeoutMs: number;
  /** Where the output goes: `<run record>/setup-<name>.log`. */
  logFile: string;
  /**
   * The worktree came from the pool with this setup's output kept (pool.ts): nothing runs. `kept`
   * names the top-level paths that were kept.
   */
  warm: { kept: string[] } | null;
  /** The setup's fingerprint (fingerprint.ts): a pooled worktree keeps its output under it. Null: not pooled. */
  fingerprint: string | null;
}

/** The log file of a setup: `setup-<name>.log` in the run record (`baseline`, `claude`, `check-claude`). */
export const setupLogFile = (recordDir: string, name: string): string =>
  path.join(recordDir, `setup-${name}.log`);

/** The plan for one place, or null when the race has no setup commands. */
export const setupPlanOf = (
  settings: SetupSettings | undefined,
  recordDir: string,
  name: string,
  extra: { warm?: { kept: string[] } | null; fingerprint?: string | null } = {},
): SetupPlan | null =>
  settings === undefined || settings.run.length === 0 || settings.runSource === null
    ? null
    : {
        commands: [...settings.run],
        source: settings.runSource,
        timeoutMs: settings.timeoutMs,
        logFile: setupLogFile(recordDir, name),
        warm: extra.warm ?? null,
        fingerprint: extra.fingerprint ?? null,
      };
