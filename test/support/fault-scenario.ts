/**
 * What the tests' fault agent (fault-agent.ts) does besides the demo's replay: hangs, crashes,
 * garbage, floods, stray processes, a sandbox's /proc lookup. None of it is in dist/: the demo
 * ships only the replay (src/demo/fake-scenario.ts), and test/e2e/dist/dist-faults.test.ts checks it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeScenario } from '../../src/demo/fake-scenario.js';

/** The misbehaviours, each optional. */
export interface FaultModes {
  /** After this many lines, stop writing and sleep forever (an idle agent). */
  hangAfterLines?: number;
  /** Written to stderr at start. */
  stderr?: string;
  /** Interleave non-JSON and truncated lines with the real ones. */
  garbage?: boolean;
  /** Ignore SIGTERM (only SIGKILL stops it). */
  ignoreSigterm?: boolean;
  /** Start a `sleep 300` child in the same process group, holding stdout open. */
  spawnGrandchild?: boolean;
  /**
   * Start a child that escapes: `env -i sh -c 'trap "" TERM; sleep <this>'` in a session of its
   * own (setsid, as `setsid(1)` would: Node's `detached`), no environment (so no run marker), deaf to
   * SIGTERM. Give a unique duration (e.g. "1000.4711") so a test can find it by its command line.
   * Only a PID namespace ends it with its agent.
   */
  spawnEscapee?: string;
  /**
   * Start a child that leaves the process group but keeps the environment (the run marker): `sh -c
   * '(trap "" TERM; sleep <this>) &'` in a session of its own, whose shell exits at once, so the
   * sleeper is double-forked (its parent is init). Deaf to SIGTERM.
   */
  spawnDetached?: string;
  /**
   * Start a child that stays in the agent's process group but clears its environment (no run
   * marker): `env -i sh -c 'trap "" TERM; sleep <this>'`. Only the group reaches it.
   */
  spawnUnmarked?: string;
  /**
   * Before the stream, do what Codex's sandbox (bubblewrap) does: start a child and read
   * /proc/<the PID fork returned>. When that is not the child (a PID namespace showing the host's
   * /proc), print bwrap's error and exit 1, as bwrap does.
   */
  sandboxChild?: boolean;
  /** After this many lines, exit 139 without a terminal line. */
  crashAfterLines?: number;
  /** Append `{"argv":[...],"cwd":"...","stdin":...}` as one JSON line to this file. */
  logArgvTo?: string;
  /** Write the environment it was started with, as one JSON object, to this file. */
  logEnvTo?: string;
  /** Before the stream, print this many short non-JSON lines as fast as the pipe takes them. */
  floodLines?: number;
  /** The flood's line (default `flood <n>`); `{n}` is replaced by the line's number. */
  floodLine?: string;
  /** After this many lines, the agent kills itself with this signal (a crash mid-stream). */
  signalAfterLines?: { lines: number; signal: NodeJS.Signals };
  /** Before each line, write this many bytes of binary noise (NULs, invalid UTF-8, random bytes). */
  noiseBytes?: number;
  /** After the stream, write one line of this many bytes with no newline, then exit. */
  hugeLineBytes?: number;
  /**
   * Start this many background children in the agent's process group that ignore SIGTERM and
   * SIGHUP, each with a grandchild of its own (`sh -c 'sleep & wait'`); half hold stdout open.
   */
  forkChildren?: number;
  /**
   * After the stream, make the file the CLI was told to write its last message to (Codex's
   * `--output-last-message <file>`) a symbolic link to this path instead of writing it, as an agent
   * that wants hydra to read a file for it would, and exit 0.
   */
  linkLastMessageTo?: string;
}

/** What the fault agent does when run: the demo's replay, and any of the faults. */
export interface FaultScenario extends FakeScenario, FaultModes {}

/** Every fault mode's name (the compiler checks the list is complete). */
export const FAULT_MODES = [
  'hangAfterLines',
  'stderr',
  'garbage',
  'ignoreSigterm',
  'spawnGrandchild',
  'spawnEscapee',
  'spawnDetached',
  'spawnUnmarked',
  'sandboxChild',
  'crashAfterLines',
  'logArgvTo',
  'logEnvTo',
  'floodLines',
  'floodLine',
  'signalAfterLines',
  'noiseBytes',
  'hugeLineBytes',
  'forkChildren',
  'linkLastMessageTo',
] as const satisfies ReadonlyArray<keyof FaultModes>;
type Unlisted = Exclude<keyof FaultModes, (typeof FAULT_MODES)[number]>;
const everyModeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyModeListed;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where vitest's global setup (build-fault-agent.ts) puts the compiled fault agent. */
export const FAULT_AGENT_SCRIPT = path.join(ROOT, '.cache', 'test-bin', 'fault-agent.js');
