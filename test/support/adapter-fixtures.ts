/** Loads the recorded CLI output under fixtures/adapters/ and replays it through a parser. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareVersions } from '../../src/adapters/help-flags.js';
import type { AgentEvent, CompletedEvent, FailedEvent } from '../../src/core/events.js';
import type {
  AgentAdapter,
  LineParser,
  ParserOptions,
  ProbeOutput,
  ProbeRunner,
  ProcessEnd,
  SpawnRequest,
} from '../../src/adapters/types.js';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/adapters/', import.meta.url));

/** Fixture directory per adapter id. */
export const FIXTURE_AGENT: Record<string, string> = {
  claude: 'claude',
  codex: 'codex',
  cursor: 'cursor',
  gemini: 'gemini',
  qwen: 'qwen',
  opencode: 'opencode',
};

export interface StreamMeta {
  source: string;
  cliVersion?: string;
  argv?: string[];
  exitCode: number | null;
  signal: string | null;
  stderr?: string;
  notes?: string;
}

export interface StreamFixture {
  name: string;
  lines: string[];
  meta: StreamMeta;
}

export const streamNames = (agent: string): string[] => {
  const dir = join(FIXTURES_DIR, agent, 'streams');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => file.slice(0, -'.jsonl'.length))
    .sort();
};

export const loadStream = (agent: string, name: string): StreamFixture => {
  const dir = join(FIXTURES_DIR, agent, 'streams');
  const text = readFileSync(join(dir, `${name}.jsonl`), 'utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const meta = JSON.parse(readFileSync(join(dir, `${name}.meta.json`), 'utf8')) as StreamMeta;
  return { name, lines, meta };
};

/** Recorded help versions, oldest first. */
export const helpVersions = (agent: string): string[] => {
  const dir = join(FIXTURES_DIR, agent, 'help');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort(compareVersions);
};

export const readHelpFile = (agent: string, version: string, file: string): string | undefined => {
  const path = join(FIXTURES_DIR, agent, 'help', version, file);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
};

/** The run id the replays end with, as the engine passes its race's id. */
export const REPLAY_RUN_ID = '20261123-052233-a1b2';

/** The process end a stream's meta describes. */
export const endOf = (meta: StreamMeta, overrides: Partial<ProcessEnd> = {}): ProcessEnd => ({
  exitCode: meta.exitCode,
  signal: meta.signal,
  stderrTail: meta.stderr ?? '',
  sawTerminalEvent: false,
  runId: REPLAY_RUN_ID,
  ...overrides,
});

export interface Replay {
  events: AgentEvent[];
  final: CompletedEvent | FailedEvent;
  parser: LineParser;
}

/** Feeds lines to a fresh parser, then ends it the way the engine does. */
export const replay = (
  adapter: AgentAdapter,
  lines: readonly string[],
  end: Omit<ProcessEnd, 'sawTerminalEvent' | 'runId'>,
  options?: ParserOptions,
): Replay => {
  const parser = adapter.createParser(options);
  const events = lines.flatMap((line) => parser.parseLine(line));
  const sawTerminalEvent = events.some((event) => event.kind === 'completed' || event.kind === 'failed');
  const final = parser.finish({ runId: REPLAY_RUN_ID, ...end, sawTerminalEvent });
  return { events, final, parser };
};

/**
 * A probe runner that answers from one recorded help version: `--version` → version.txt,
 * `--help` → help.txt, `<subcommand> --help` → `<subcommand>-help.txt` (codex `exec`, opencode
 * `run`), each with the stderr recorded beside it (`<name>.stderr.txt`). Unknown commands exit 2
 * like a CLI would.
 */
export const fixtureRunner = (
  agent: string,
  version: string,
  edit: (file: string, text: string) => string = (_file, text) => text,
): ProbeRunner & { calls: string[][] } => {
  const calls: string[][] = [];
  const run = async (file: string, args: readonly string[]): Promise<ProbeOutput> => {
    calls.push([file, ...args]);
    const name =
      args.join(' ') === '--version'
        ? 'version.txt'
        : args.join(' ') === '--help'
          ? 'help.txt'
          : args.length === 2 && args[1] === '--help' && !args[0]!.startsWith('-')
            ? `${args[0]}-help.txt`
            : undefined;
    const text = name === undefined ? undefined : readHelpFile(agent, version, name);
    if (name === undefined || text === undefined)
      return {
        exitCode: 2,
        stdout: '',
        stderr: `error: unrecognized arguments: ${args.join(' ')}`,
        timedOut: false,
      };
    const stderr = readHelpFile(agent, version, name.replace(/\.txt$/, '.stderr.txt')) ?? '';
    return {
      exitCode: 0,
      stdout: edit(name, text),
      stderr: edit(name.replace(/\.txt$/, '.stderr.txt'), stderr),
      timedOut: false,
    };
  };
  return Object.assign(run, { calls });
};

/** A spawn request for the adapters' command tests, with `overrides`. */
export const spawnRequest = (overrides: Partial<SpawnRequest> = {}): SpawnRequest => ({
  prompt: 'Create hello.txt',
  cwd: '/repo/wt',
  scratchDir: '/repo/scratch',
  unsafe: false,
  extraArgs: [],
  env: {},
  ...overrides,
});
