/**
 * The fake agent's run: answer `--version` and `--help` from the recorded fixtures, or replay a
 * recorded JSONL stream on stdout (a delay between lines, or paced over a duration, or as fast as
 * the pipe takes it) while writing the stream's edits into the working directory.
 *
 * The tests' fault agent (test/support/fault-agent.ts) runs this same replay with hooks that make
 * it misbehave (hang, crash, garbage, stray children…); the demo's agent runs it without any, so
 * none of that ships in dist/.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fail, readIfExists, sleep, write } from './fake-io.js';
import type { FakeEdit, FakeScenario } from './fake-scenario.js';
import { fixturesDir, helpText, versionText } from './recorded-help.js';
import { FIXTURE_REPO, applyEdits, deriveEdits } from './replay-edits.js';

export interface Invocation<S extends FakeScenario = FakeScenario> {
  scenario: S;
  /** The agent's own arguments (after `--`). */
  args: string[];
  /** The working directory: `-C`/`--cd` when given, else the process's. */
  cwd: string;
}

/**
 * What a run does besides the replay, at the points a misbehaving agent needs. Each hook that
 * returns an exit code ends the run with it; one that never resolves leaves the agent hanging.
 */
export interface ReplayHooks {
  /** Before the stream. */
  start?(): Promise<number | undefined>;
  /** Whether the replay goes line by line (a delay, then `beforeLine`, then the line). */
  perLine?: boolean;
  /** Before line `index` and its delay. */
  stopAt?(index: number): Promise<number | undefined>;
  /** After line `index`'s delay, before the line itself. */
  beforeLine?(line: string, index: number): Promise<void>;
  /** After every line and the edits. */
  end?(): Promise<number | undefined>;
}

const flagValue = (args: string[], names: string[]): string | undefined => {
  const index = args.findIndex((arg) => names.includes(arg));
  return index >= 0 ? args[index + 1] : undefined;
};

const parseInvocation = <S extends FakeScenario>(argv: string[]): Invocation<S> => {
  const flag = argv.indexOf('--scenario');
  const file = flag >= 0 ? argv[flag + 1] : undefined;
  if (file === undefined) return fail('usage: fake-agent.js --scenario <file.json> -- <args...>');
  const dashes = argv.indexOf('--');
  const args = dashes >= 0 ? argv.slice(dashes + 1) : [];
  let scenario: S;
  try {
    scenario = JSON.parse(readFileSync(file, 'utf8')) as S;
  } catch (error) {
    return fail(`cannot read scenario ${file}: ${(error as Error).message}`);
  }
  return { scenario, args, cwd: path.resolve(flagValue(args, ['-C', '--cd']) ?? process.cwd()) };
};

interface Stream {
  lines: string[];
  recordedExitCode: number | null;
}

const loadStream = (scenario: FakeScenario): Stream => {
  if (scenario.lines !== undefined) return { lines: scenario.lines, recordedExitCode: null };
  const file = scenario.streamFile ?? path.join(fixturesDir(scenario.agent), 'streams', 'success-edit.jsonl');
  if (!existsSync(file)) return fail(`stream file ${file} does not exist`);
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const meta = readIfExists(file.replace(/\.jsonl$/, '.meta.json'));
  let recordedExitCode: number | null = null;
  if (meta !== null) {
    try {
      const parsed = JSON.parse(meta) as { exitCode?: unknown };
      if (typeof parsed.exitCode === 'number') recordedExitCode = parsed.exitCode;
    } catch {
      recordedExitCode = null;
    }
  }
  return { lines, recordedExitCode };
};

/** A follow-up: Claude Code, Cursor and Gemini CLI take `--resume <id>`, Codex `exec ... resume <id>`. */
const isResumed = (args: readonly string[]): boolean => args.includes('--resume') || args.includes('resume');

const TOOL_MARKERS = ['"tool_use"', '"tool_call"', '"file_change"', '"command_execution"', '"function_call"'];
const isToolLine = (line: string): boolean => TOOL_MARKERS.some((marker) => line.includes(marker));

const lastMessage = (lines: string[]): string | null => {
  let text: string | null = null;
  for (const line of lines) {
    try {
      const parsed = JSON.parse(line) as { item?: { type?: string; text?: string }; result?: unknown };
      if (parsed.item?.type === 'agent_message' && typeof parsed.item.text === 'string')
        text = parsed.item.text;
      if (typeof parsed.result === 'string') text = parsed.result;
    } catch {
      // ignore
    }
  }
  return text;
};

/** Pieces of a replay without pauses: about a pipe's worth each, as a fast CLI fills the pipe. */
const BATCH_CHARS = 64 * 1024;

/** Every line over about `durationMs`: each 10 ms tick writes the lines due by then, in one write. */
async function replayPaced(
  lines: string[],
  durationMs: number,
  editAt: number,
  edit: () => void,
): Promise<void> {
  const start = Date.now();
  let next = 0;
  let edited = false;
  while (next < lines.length) {
    const elapsed = Date.now() - start;
    const due = Math.min(lines.length, Math.max(next + 1, Math.ceil((elapsed / durationMs) * lines.length)));
    await write(`${lines.slice(next, due).join('\n')}\n`);
    next = due;
    if (!edited && next > editAt) {
      edit();
      edited = true;
    }
    if (next < lines.length) await sleep(10);
  }
  if (!edited) edit();
}

/** Writes every line, as few writes as fit, and runs `edit` once line `editAt` is out. */
async function replayInBatches(lines: string[], editAt: number, edit: () => void): Promise<void> {
  let pending: string[] = [];
  let size = 0;
  let edited = false;
  for (const [index, line] of lines.entries()) {
    pending.push(line);
    size += line.length + 1;
    const last = index === lines.length - 1;
    if (size >= BATCH_CHARS || last || (!edited && index >= editAt)) {
      await write(`${pending.join('\n')}\n`);
      pending = [];
      size = 0;
    }
    if (!edited && index >= editAt) {
      edit();
      edited = true;
    }
  }
  if (!edited) edit();
}

/** Line by line, `delayMs` apart, with the hooks' say before each; an exit code stops it. */
async function replayByLine(
  lines: string[],
  delayMs: number,
  editAt: number,
  edit: () => void,
  hooks: ReplayHooks,
): Promise<number | undefined> {
  let edited = false;
  for (const [index, line] of lines.entries()) {
    const stop = await hooks.stopAt?.(index);
    if (stop !== undefined) return stop;
    if (index > 0 && delayMs > 0) await sleep(delayMs);
    await hooks.beforeLine?.(line, index);
    await write(`${line}\n`);
    if (!edited && index >= editAt) {
      edit();
      edited = true;
    }
  }
  if (!edited) edit();
  return undefined;
}

async function replay({ scenario, args, cwd }: Invocation, hooks: ReplayHooks): Promise<number> {
  const started = await hooks.start?.();
  if (started !== undefined) return started;

  const stream = loadStream(scenario);
  const lines = stream.lines.map((line) =>
    line.includes(FIXTURE_REPO) ? line.split(FIXTURE_REPO).join(cwd) : line,
  );
  // Derived when they are due (a long replay's first lines are out by then), not before the first line.
  let derived: FakeEdit[] | undefined;
  const edit = (): void =>
    applyEdits(
      cwd,
      (derived ??=
        (isResumed(args) ? scenario.resumedEdits : undefined) ??
        scenario.edits ??
        deriveEdits(stream.lines, scenario.agent)),
    );
  const firstTool = lines.findIndex(isToolLine);
  const editAt = firstTool >= 0 ? firstTool : Math.floor(lines.length / 2);
  const delayMs = scenario.delayMs ?? 120;

  if (scenario.durationMs !== undefined && hooks.perLine !== true)
    await replayPaced(lines, scenario.durationMs, editAt, edit);
  else if (delayMs === 0 && hooks.perLine !== true) await replayInBatches(lines, editAt, edit);
  else {
    const stopped = await replayByLine(lines, delayMs, editAt, edit, hooks);
    if (stopped !== undefined) return stopped;
  }
  const ended = await hooks.end?.();
  if (ended !== undefined) return ended;

  const lastMessageFile = flagValue(args, ['-o', '--output-last-message']);
  // Only a CLI asked for it (codex -o) reads the stream again: a replay of 100,000 lines would
  // otherwise parse every line once more before exiting, and hydra waits for that exit.
  const message = lastMessageFile === undefined ? null : lastMessage(lines);
  if (lastMessageFile !== undefined && message !== null)
    writeFileSync(path.resolve(cwd, lastMessageFile), message);
  return scenario.exitCode ?? stream.recordedExitCode ?? 0;
}

/**
 * The fake agent's main: `node <agent>.js --scenario <file> -- <args>`. `hooksOf` adds behaviour to
 * the replay (the tests' fault agent); the demo's agent passes none.
 */
export async function runFakeAgent<S extends FakeScenario>(
  hooksOf: (invocation: Invocation<S>) => ReplayHooks = () => ({}),
): Promise<void> {
  const invocation = parseInvocation<S>(process.argv.slice(2));
  const { scenario, args } = invocation;
  if (args.includes('--version') || (args.length === 1 && (args[0] === '-v' || args[0] === '-V'))) {
    process.stdout.write(versionText(scenario));
    return;
  }
  if (args.includes('--help') || args.includes('-h')) {
    const help = helpText(scenario, args);
    process.stdout.write(help.stdout);
    process.stderr.write(help.stderr);
    return;
  }
  process.exit(await replay(invocation, hooksOf(invocation)));
}
