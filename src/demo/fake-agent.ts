#!/usr/bin/env node
/**
 * A fake agent CLI for tests and the demo: `node dist/demo/fake-agent.js --scenario <file> -- <args>`.
 *
 * It answers `--version`, `--help` and `<subcommand> --help` from the agent's recorded fixtures
 * (fixtures/adapters/<agent>/help/<latest version>/), and otherwise replays a recorded JSONL stream
 * on stdout with a delay between lines, writing real files into its working directory so a race
 * has something to merge. A scenario (see FakeScenario) adds hangs, crashes (an exit code or a
 * signal), garbage and binary noise, a flood of lines, a huge line, stderr, an ignored SIGTERM, a
 * grandchild process, background children or a sandbox's /proc lookup (bubblewrap's) on demand.
 */
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { FakeEdit, FakeScenario } from './fake-scenario.js';
import { packageRoot } from './fake-scenario.js';

/** The repository path the recorded fixtures were normalized to. */
const FIXTURE_REPO = '/tmp/hydra-fixture/repo';

interface Invocation {
  scenario: FakeScenario;
  args: string[];
}

const fail = (message: string): never => {
  process.stderr.write(`fake-agent: ${message}\n`);
  process.exit(2);
};

const parseInvocation = (argv: string[]): Invocation => {
  const flag = argv.indexOf('--scenario');
  const file = flag >= 0 ? argv[flag + 1] : undefined;
  if (file === undefined) return fail('usage: fake-agent.js --scenario <file.json> -- <args...>');
  const dashes = argv.indexOf('--');
  const args = dashes >= 0 ? argv.slice(dashes + 1) : [];
  let scenario: FakeScenario;
  try {
    scenario = JSON.parse(readFileSync(file, 'utf8')) as FakeScenario;
  } catch (error) {
    return fail(`cannot read scenario ${file}: ${(error as Error).message}`);
  }
  return { scenario, args };
};

const fixturesDir = (agent: string): string => path.join(packageRoot(), 'fixtures', 'adapters', agent);

const compareVersions = (a: string, b: string): number => {
  const pa = a.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
};

/** The newest recorded help directory, e.g. fixtures/adapters/codex/help/0.118.0. */
const latestHelpDir = (agent: string): string | null => {
  const dir = path.join(fixturesDir(agent), 'help');
  if (!existsSync(dir)) return null;
  const versions = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort(compareVersions);
  const latest = versions.at(-1);
  return latest === undefined ? null : path.join(dir, latest);
};

const readIfExists = (file: string | null | undefined): string | null =>
  file !== null && file !== undefined && existsSync(file) ? readFileSync(file, 'utf8') : null;

/** A file from the agent's newest recorded help directory, or null. */
const recorded = (agent: string, file: string): string | null => {
  const dir = latestHelpDir(agent);
  return dir === null ? null : readIfExists(path.join(dir, file));
};

const unrecorded = (agent: string, file: string): never =>
  fail(`no recorded ${file} for ${agent} under ${path.join(fixturesDir(agent), 'help')}`);

/** What a help command printed: stdout, and stderr when the CLI wrote there too (`<name>.stderr.txt`). */
interface Printed {
  stdout: string;
  stderr: string;
}

const recordedPrinted = (agent: string, file: string): Printed | null => {
  const stdout = recorded(agent, file);
  return stdout === null
    ? null
    : { stdout, stderr: recorded(agent, file.replace(/\.txt$/, '.stderr.txt')) ?? '' };
};

/**
 * `--help`, or `<subcommand> --help` when that subcommand's help was recorded (Codex's `exec`,
 * opencode's `run`), each with the stderr it was recorded with (opencode prints help there).
 */
const helpText = (scenario: FakeScenario, args: string[]): Printed => {
  const [first] = args;
  if (first !== undefined && !first.startsWith('-')) {
    const configured = readIfExists(scenario.subcommandHelpFile);
    const text =
      configured === null
        ? recordedPrinted(scenario.agent, `${first}-help.txt`)
        : { stdout: configured, stderr: '' };
    if (text !== null) return text;
  }
  const configured = readIfExists(scenario.helpFile);
  if (configured !== null) return { stdout: configured, stderr: '' };
  return recordedPrinted(scenario.agent, 'help.txt') ?? unrecorded(scenario.agent, 'help.txt');
};

const versionText = (scenario: FakeScenario): string =>
  scenario.version !== undefined
    ? `${scenario.version}\n`
    : (recorded(scenario.agent, 'version.txt') ?? unrecorded(scenario.agent, 'version.txt'));

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

const CONTENT_KEYS = ['content', 'fileText', 'contents', 'file_text'];
const PATH_KEYS = ['file_path', 'path', 'filePath'];
const QUOTED_PATH_KEYS = PATH_KEYS.map((key) => `"${key}"`);
const OLD_KEYS = ['oldString', 'old_string'];
const NEW_KEYS = ['newString', 'new_string'];

const stringKey = (record: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  const key = keys.find((candidate) => typeof record[candidate] === 'string');
  return key === undefined ? undefined : (record[key] as string);
};

/**
 * Finds file writes and edits in a stream line: {path, content|fileText} objects, {path, oldString,
 * newString} edit calls, and codex file_change paths. A call repeated (started, then completed) is
 * one edit, keyed by path and what it does.
 */
const collectWrites = (value: unknown, agent: string, found: Map<string, FakeEdit>): void => {
  if (Array.isArray(value)) {
    for (const item of value) collectWrites(item, agent, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  const file = stringKey(record, PATH_KEYS);
  const content = stringKey(record, CONTENT_KEYS);
  const before = stringKey(record, OLD_KEYS);
  const after = stringKey(record, NEW_KEYS);
  if (file !== undefined && content !== undefined) found.set(`write\0${file}`, { path: file, content });
  if (file !== undefined && before !== undefined && after !== undefined)
    found.set(`edit\0${file}\0${before}\0${after}`, {
      path: file,
      content: '',
      replace: { old: before, new: after },
    });
  if (record.type === 'file_change' && Array.isArray(record.changes)) {
    for (const change of record.changes as Array<Record<string, unknown>>) {
      if (
        typeof change.path === 'string' &&
        change.kind !== 'delete' &&
        !found.has(`write\0${change.path}`)
      ) {
        found.set(`write\0${change.path}`, {
          path: change.path,
          content: `written by the ${agent} fake agent\n`,
        });
      }
    }
  }
  for (const child of Object.values(record)) collectWrites(child, agent, found);
};

const deriveEdits = (lines: string[], agent: string): FakeEdit[] => {
  const found = new Map<string, FakeEdit>();
  for (const line of lines) {
    // Every write names its file under one of the path keys: other lines are not parsed at all.
    if (!QUOTED_PATH_KEYS.some((key) => line.includes(key))) continue;
    try {
      collectWrites(JSON.parse(line) as unknown, agent, found);
    } catch {
      // Not JSON: nothing to derive.
    }
  }
  return [...found.values()];
};

/** The file's text after an edit call: the replacement, or what the edit adds when `old` is not there. */
const replaced = (current: string, replace: { old: string; new: string }): string | null => {
  if (replace.old !== '' && current.includes(replace.old)) return current.replace(replace.old, replace.new);
  if (replace.new.startsWith(replace.old)) return current + replace.new.slice(replace.old.length);
  return null;
};

/** Maps a recorded path onto the working directory; refuses anything outside it. */
const targetPath = (cwd: string, file: string): string | null => {
  let relative = file;
  if (file.startsWith(`${FIXTURE_REPO}/`)) relative = file.slice(FIXTURE_REPO.length + 1);
  else if (path.isAbsolute(file)) relative = path.basename(file);
  const target = path.resolve(cwd, relative);
  return target.startsWith(`${cwd}${path.sep}`) ? target : null;
};

/** A follow-up: Claude Code, Cursor and Gemini CLI take `--resume <id>`, Codex `exec ... resume <id>`. */
const isResumed = (args: readonly string[]): boolean => args.includes('--resume') || args.includes('resume');

const applyEdits = (cwd: string, edits: FakeEdit[]): void => {
  for (const edit of edits) {
    const target = targetPath(cwd, edit.path);
    if (target === null) continue;
    if (edit.remove === true) {
      rmSync(target, { force: true });
      continue;
    }
    if (edit.replace !== undefined) {
      const next = replaced(readIfExists(target) ?? '', edit.replace);
      if (next !== null) writeFileSync(target, next);
      continue;
    }
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, edit.content);
  }
};

const TOOL_MARKERS = ['"tool_use"', '"tool_call"', '"file_change"', '"command_execution"', '"function_call"'];
const isToolLine = (line: string): boolean => TOOL_MARKERS.some((marker) => line.includes(marker));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the text has been handed to the kernel (the write callback), not merely buffered:
 * `process.exit` right after a buffered write to a full pipe would drop the last lines.
 */
const write = (text: string): Promise<void> =>
  new Promise((resolve) => {
    process.stdout.write(text, () => resolve());
  });

const flagValue = (args: string[], names: string[]): string | undefined => {
  const index = args.findIndex((arg) => names.includes(arg));
  return index >= 0 ? args[index + 1] : undefined;
};

const workingDir = (args: string[]): string => {
  const dir = flagValue(args, ['-C', '--cd']);
  return path.resolve(dir ?? process.cwd());
};

const readStdin = (): string | null => {
  if (process.stdin.isTTY) return null;
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return null;
  }
};

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

const hangForever = (): Promise<never> =>
  new Promise(() => {
    setInterval(() => undefined, 1 << 30);
  });

/** Short non-JSON lines, written in big chunks so the pipe, not the fake, sets the pace. */
const flood = async (count: number, line = 'flood {n}'): Promise<void> => {
  const perWrite = 10_000;
  for (let done = 0; done < count; done += perWrite) {
    const lines = Math.min(perWrite, count - done);
    await write(
      Array.from({ length: lines }, (_, i) => `${line.replace('{n}', String(done + i))}\n`).join(''),
    );
  }
};

/** Deterministic bytes with NULs, lone continuation bytes and truncated UTF-8 sequences. */
const noise = (bytes: number, seed: number): Buffer => {
  const buffer = Buffer.alloc(bytes);
  let state = seed * 2654435761 + 1;
  for (let i = 0; i < bytes; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const pick = state % 8;
    buffer[i] = pick === 0 ? 0 : pick === 1 ? 0x80 : pick === 2 ? 0xe2 : pick === 3 ? 0x0a : state % 256;
  }
  // Ends its own line, so the stream's next line stays whole.
  if (bytes > 0) buffer[bytes - 1] = 0x0a;
  return buffer;
};

const writeBytes = (bytes: Buffer): Promise<void> =>
  new Promise((resolve) => {
    process.stdout.write(bytes, () => resolve());
  });

/** One line of `bytes` bytes and no newline, written in 1 MB pieces. */
const hugeLine = async (bytes: number): Promise<void> => {
  const piece = Buffer.alloc(1024 * 1024, 'x');
  for (let left = bytes; left > 0; left -= piece.length)
    await writeBytes(left >= piece.length ? piece : piece.subarray(0, left));
};

/** Background children that ignore SIGTERM/SIGHUP, each with a grandchild, in the agent's group. */
const forkChildren = (count: number): void => {
  for (let i = 0; i < count; i += 1) {
    const stdout = i % 2 === 0 ? 'inherit' : 'ignore';
    spawn('sh', ['-c', `trap '' TERM HUP; sleep 300 & wait`], {
      stdio: ['ignore', stdout, 'ignore'],
    }).unref();
  }
};

/**
 * Whether /proc/<pid of a child just started> is that child (its parent is this process), as
 * bubblewrap needs when it opens /proc/<child>/ns. The child is killed before returning.
 */
const procShowsOwnChild = (): { ok: boolean; pid: number | undefined } => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { ok: parent === process.pid, pid };
  } catch {
    return { ok: false, pid };
  } finally {
    child.kill('SIGKILL');
  }
};

/** A replay with no per-line behaviour: it can be written in large pieces. */
const plainReplay = (scenario: FakeScenario): boolean =>
  scenario.hangAfterLines === undefined &&
  scenario.crashAfterLines === undefined &&
  scenario.signalAfterLines === undefined &&
  scenario.garbage !== true &&
  scenario.noiseBytes === undefined;

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

const garbageFor = (line: string, index: number): string =>
  index % 2 === 0
    ? 'fake-agent: this line is not JSON {'
    : line.slice(0, Math.max(1, Math.floor(line.length / 2)));

async function run({ scenario, args }: Invocation): Promise<number> {
  const cwd = workingDir(args);
  if (scenario.logArgvTo !== undefined) {
    appendFileSync(scenario.logArgvTo, `${JSON.stringify({ argv: args, cwd, stdin: readStdin() })}\n`);
  }
  if (scenario.sandboxChild === true) {
    const { ok, pid } = procShowsOwnChild();
    if (!ok) {
      process.stderr.write(`bwrap: open /proc/${pid}/ns failed: not the child it started\n`);
      return 1;
    }
  }
  if (scenario.ignoreSigterm === true) process.on('SIGTERM', () => undefined);
  if (scenario.spawnGrandchild === true) {
    spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] }).unref();
  }
  if (scenario.forkChildren !== undefined) forkChildren(scenario.forkChildren);
  if (scenario.spawnEscapee !== undefined) {
    spawn('setsid', ['env', '-i', 'sh', '-c', `trap "" TERM; sleep ${scenario.spawnEscapee}`], {
      stdio: 'ignore',
      detached: true,
    }).unref();
  }
  if (scenario.stderr !== undefined) process.stderr.write(scenario.stderr);
  if (scenario.floodLines !== undefined) await flood(scenario.floodLines, scenario.floodLine);

  const stream = loadStream(scenario);
  const lines = stream.lines.map((line) =>
    line.includes(FIXTURE_REPO) ? line.split(FIXTURE_REPO).join(cwd) : line,
  );
  // Derived when they are due (a long replay's first lines are out by then), not before the first line.
  let derived: FakeEdit[] | undefined;
  const edits = (): FakeEdit[] =>
    (derived ??=
      (isResumed(args) ? scenario.resumedEdits : undefined) ??
      scenario.edits ??
      deriveEdits(stream.lines, scenario.agent));
  const firstTool = lines.findIndex(isToolLine);
  const editAt = firstTool >= 0 ? firstTool : Math.floor(lines.length / 2);
  const delayMs = scenario.delayMs ?? 120;
  let editsDone = false;

  if (scenario.durationMs !== undefined && plainReplay(scenario)) {
    await replayPaced(lines, scenario.durationMs, editAt, () => applyEdits(cwd, edits()));
    editsDone = true;
  } else if (delayMs === 0 && plainReplay(scenario)) {
    await replayInBatches(lines, editAt, () => applyEdits(cwd, edits()));
    editsDone = true;
  }
  for (const [index, line] of editsDone ? [] : lines.entries()) {
    if (scenario.hangAfterLines !== undefined && index >= scenario.hangAfterLines) return hangForever();
    if (scenario.crashAfterLines !== undefined && index >= scenario.crashAfterLines) return 139;
    if (scenario.signalAfterLines !== undefined && index >= scenario.signalAfterLines.lines) {
      process.kill(process.pid, scenario.signalAfterLines.signal);
      return hangForever();
    }
    if (index > 0 && delayMs > 0) await sleep(delayMs);
    if (scenario.garbage === true) await write(`${garbageFor(line, index)}\n`);
    if (scenario.noiseBytes !== undefined) await writeBytes(noise(scenario.noiseBytes, index));
    await write(`${line}\n`);
    if (!editsDone && index >= editAt) {
      applyEdits(cwd, edits());
      editsDone = true;
    }
  }
  if (!editsDone) applyEdits(cwd, edits());
  if (scenario.hangAfterLines !== undefined) return hangForever();
  if (scenario.crashAfterLines !== undefined) return 139;
  if (scenario.hugeLineBytes !== undefined) await hugeLine(scenario.hugeLineBytes);
  const lastMessageFile = flagValue(args, ['-o', '--output-last-message']);
  // Only a CLI asked for it (codex -o) reads the stream again: a replay of 100,000 lines would
  // otherwise parse every line once more before exiting, and hydra waits for that exit.
  const message = lastMessageFile === undefined ? null : lastMessage(lines);
  if (lastMessageFile !== undefined && message !== null)
    writeFileSync(path.resolve(cwd, lastMessageFile), message);
  return scenario.exitCode ?? stream.recordedExitCode ?? 0;
}

async function main(): Promise<void> {
  const invocation = parseInvocation(process.argv.slice(2));
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
  const code = await run(invocation);
  process.exit(code);
}

await main();
