/**
 * What a fake agent CLI replays (FakeScenario) and where the compiled fake lives. Kept apart from
 * fake-bin.ts so the fake agent itself starts without loading the adapters. The tests' fault agent
 * extends the scenario with its misbehaviours (test/support/fault-scenario.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FakeEdit {
  /** Relative to the agent's working directory. */
  path: string;
  content: string;
  /** Deletes the file instead of writing it (content is then ignored). */
  remove?: boolean;
  /**
   * Replaces `old` with `new` in the file instead of writing it (an edit tool call). When the file
   * does not hold `old` (it was recorded in another repository), a `new` that only adds to `old`
   * adds that part at the end, as the edit would have.
   */
  replace?: { old: string; new: string };
}

/** What a fake agent replays, and how fast. Every field is optional except `agent`. */
export interface FakeScenario {
  /** The adapter id: its recorded fixtures under fixtures/adapters/<agent>/ are what it replays. */
  agent: string;
  /** Printed for --version; defaults to the latest recorded fixture's version.txt. */
  version?: string;
  /** File printed for --help; defaults to the latest recorded fixture's help.txt. */
  helpFile?: string;
  /**
   * File printed for `<binary> <subcommand> --help` (Codex's `exec --help`); defaults to the latest
   * recorded fixture's `<subcommand>-help.txt`.
   */
  subcommandHelpFile?: string;
  /** JSONL file to replay on stdout; defaults to fixtures/adapters/<agent>/streams/success-edit.jsonl. */
  streamFile?: string;
  /** Lines to replay instead of a stream file. */
  lines?: string[];
  /** Pause between lines, in milliseconds (default 120, which looks real in the demo). */
  delayMs?: number;
  /**
   * Spread the whole replay evenly over about this many milliseconds instead (the lines due are
   * written every 10 ms): a steady flood, e.g. 20,000 lines in 5 s. Overrides `delayMs`.
   */
  durationMs?: number;
  /**
   * Files written into the working directory after the first tool-call line (or halfway). When
   * absent, edits are derived from the stream's own write tool calls so a replay really edits files.
   */
  edits?: FakeEdit[];
  /** The edits of a follow-up (argv with `--resume` or Codex's `resume`), instead of `edits`. */
  resumedEdits?: FakeEdit[];
  /** Exit code at the end (default: the stream's recorded exit code, else 0). */
  exitCode?: number;
}

/** Package root (holds package.json), from src/demo, dist/demo or a bundle elsewhere in the package. */
export const packageRoot = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('hydra: cannot find the package root (no package.json above the demo module)');
};

/** Absolute path of the compiled fake agent. */
export const fakeAgentScript = (): string => path.join(packageRoot(), 'dist', 'demo', 'fake-agent.js');
