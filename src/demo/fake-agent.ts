#!/usr/bin/env node
/**
 * A fake agent CLI for tests and the demo: `node dist/demo/fake-agent.js --scenario <file> -- <args>`.
 *
 * It answers `--version`, `--help` and `codex exec --help` from the recorded fixtures, and otherwise
 * replays a recorded JSONL stream on stdout with a delay between lines, writing real files into its
 * working directory so a race has something to merge. A scenario (see FakeScenario) adds hangs,
 * crashes, garbage, stderr, an ignored SIGTERM or a grandchild process on demand.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeAgentKind, FakeEdit, FakeScenario } from './fake-bin.js';
import { packageRoot } from './fake-bin.js';

/** The repository path the recorded fixtures were normalized to. */
const FIXTURE_REPO = '/tmp/hydra-fixture/repo';

const FALLBACK_HELP: Record<FakeAgentKind, string> = {
  claude: [
    'Usage: claude [options] [command] [prompt]',
    '',
    'Claude Code - starts an interactive session by default, use -p/--print for non-interactive output',
    '',
    'Options:',
    '  -p, --print                      Print response and exit (useful for pipes)',
    '  --output-format <format>         Output format (only works with --print): "text", "json", or "stream-json"',
    '  --verbose                        Override verbose mode setting from config',
    '  --permission-mode <mode>         Permission mode to use for the session',
    '  --dangerously-skip-permissions   Bypass all permission checks',
    '  --model <model>                  Model for the current session',
    '  -v, --version                    Output the version number',
    '  -h, --help                       Display help for command',
    '',
  ].join('\n'),
  codex: [
    'Codex CLI',
    '',
    'Usage: codex [OPTIONS] [PROMPT]',
    '       codex [OPTIONS] <COMMAND> [ARGS]',
    '',
    'Commands:',
    '  exec        Run Codex non-interactively [aliases: e]',
    '',
    'Options:',
    '  -m, --model <MODEL>  Model the agent should use',
    '  -h, --help           Print help',
    '  -V, --version        Print version',
    '',
  ].join('\n'),
  cursor: [
    'Usage: cursor-agent [options] [command] [prompt...]',
    '',
    'Start the Cursor Agent',
    '',
    'Options:',
    '  -v, --version             Output the version number',
    '  --api-key <key>           API key for authentication',
    '  -p, --print               Print responses to console (for scripts or non-interactive use)',
    '  --output-format <format>  Output format (only works with --print): text | json | stream-json',
    '  -f, --force               Force allow commands unless explicitly denied',
    '  -m, --model <model>       Model to use',
    '  -h, --help                Display help for command',
    '',
  ].join('\n'),
};

const FALLBACK_EXEC_HELP = [
  'Run Codex non-interactively',
  '',
  'Usage: codex exec [OPTIONS] [PROMPT] [COMMAND]',
  '',
  'Options:',
  '  -m, --model <MODEL>                          Model the agent should use',
  '  -s, --sandbox <SANDBOX_MODE>                 Select the sandbox policy [possible values: read-only, workspace-write, danger-full-access]',
  '      --full-auto                              Convenience alias for low-friction sandboxed automatic execution',
  '      --dangerously-bypass-approvals-and-sandbox',
  '  -C, --cd <DIR>                               Tell the agent to use the specified directory as its working root',
  '      --skip-git-repo-check                    Allow running Codex outside a Git repository',
  '      --json                                   Print events to stdout as JSONL',
  '  -o, --output-last-message <FILE>             Specifies file where the last message from the agent should be written',
  '  -h, --help                                   Print help',
  '',
].join('\n');

const FALLBACK_VERSION: Record<FakeAgentKind, string> = {
  claude: '2.1.0 (Claude Code)',
  codex: 'codex-cli 0.118.0',
  cursor: '2025.11.06-fake',
};

const FALLBACK_STREAM: Record<FakeAgentKind, unknown[]> = {
  claude: [
    {
      type: 'system',
      subtype: 'init',
      session_id: 'fake-session',
      cwd: FIXTURE_REPO,
      model: 'claude-sonnet-4-5',
      tools: ['Write', 'Bash'],
      permissionMode: 'bypassPermissions',
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'text', text: "I'll create the file." }],
        usage: { input_tokens: 12, output_tokens: 8 },
      },
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_2',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'Write',
            input: { file_path: `${FIXTURE_REPO}/hello.txt`, content: 'hello from claude\n' },
          },
        ],
        usage: { input_tokens: 14, output_tokens: 20 },
      },
    },
    {
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: 'File created successfully',
            is_error: false,
          },
        ],
      },
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_3',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'text', text: 'Created hello.txt.' }],
        usage: { input_tokens: 30, output_tokens: 6 },
      },
    },
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 1200,
      num_turns: 2,
      result: 'Created hello.txt.',
      total_cost_usd: 0.0012,
      usage: {
        input_tokens: 56,
        output_tokens: 34,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  ],
  codex: [
    { type: 'thread.started', thread_id: 'fake-thread' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: 'Creating the file.' } },
    {
      type: 'item.started',
      item: {
        id: 'item_1',
        type: 'command_execution',
        command: 'bash -lc \'printf "hello from codex\\n" > hello.txt\'',
        aggregated_output: '',
        exit_code: null,
        status: 'in_progress',
      },
    },
    {
      type: 'item.completed',
      item: {
        id: 'item_1',
        type: 'command_execution',
        command: 'bash -lc \'printf "hello from codex\\n" > hello.txt\'',
        aggregated_output: '',
        exit_code: 0,
        status: 'completed',
      },
    },
    {
      type: 'item.completed',
      item: {
        id: 'item_2',
        type: 'file_change',
        changes: [{ path: `${FIXTURE_REPO}/hello.txt`, kind: 'add' }],
        status: 'completed',
      },
    },
    { type: 'item.completed', item: { id: 'item_3', type: 'agent_message', text: 'Created hello.txt.' } },
    {
      type: 'turn.completed',
      usage: { input_tokens: 20, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0 },
    },
  ],
  cursor: [
    {
      type: 'system',
      subtype: 'init',
      session_id: 'fake-session',
      model: 'gpt-5',
      cwd: FIXTURE_REPO,
      permissionMode: 'default',
    },
    {
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Creating hello.txt.' }] },
      session_id: 'fake-session',
    },
    {
      type: 'tool_call',
      subtype: 'started',
      call_id: 'call_1',
      tool_call: {
        writeToolCall: { args: { path: `${FIXTURE_REPO}/hello.txt`, fileText: 'hello from cursor\n' } },
      },
      session_id: 'fake-session',
    },
    {
      type: 'tool_call',
      subtype: 'completed',
      call_id: 'call_1',
      tool_call: {
        writeToolCall: {
          args: { path: `${FIXTURE_REPO}/hello.txt`, fileText: 'hello from cursor\n' },
          result: { success: { path: `${FIXTURE_REPO}/hello.txt`, linesCreated: 1 } },
        },
      },
      session_id: 'fake-session',
    },
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 900,
      result: 'Created hello.txt.',
      session_id: 'fake-session',
    },
  ],
};

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

const fixturesDir = (agent: FakeAgentKind): string => path.join(packageRoot(), 'fixtures', 'adapters', agent);

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
const latestHelpDir = (agent: FakeAgentKind): string | null => {
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

const helpText = (scenario: FakeScenario, execHelp: boolean): string => {
  const dir = latestHelpDir(scenario.agent);
  if (execHelp) {
    return (
      readIfExists(scenario.execHelpFile) ??
      readIfExists(dir && path.join(dir, 'exec-help.txt')) ??
      FALLBACK_EXEC_HELP
    );
  }
  return (
    readIfExists(scenario.helpFile) ??
    readIfExists(dir && path.join(dir, 'help.txt')) ??
    FALLBACK_HELP[scenario.agent]
  );
};

const versionText = (scenario: FakeScenario): string => {
  if (scenario.version !== undefined) return `${scenario.version}\n`;
  const dir = latestHelpDir(scenario.agent);
  return readIfExists(dir && path.join(dir, 'version.txt')) ?? `${FALLBACK_VERSION[scenario.agent]}\n`;
};

interface Stream {
  lines: string[];
  recordedExitCode: number | null;
}

const loadStream = (scenario: FakeScenario): Stream => {
  if (scenario.lines !== undefined) return { lines: scenario.lines, recordedExitCode: null };
  const file = scenario.streamFile ?? path.join(fixturesDir(scenario.agent), 'streams', 'success-edit.jsonl');
  if (!existsSync(file)) {
    if (scenario.streamFile !== undefined) return fail(`stream file ${file} does not exist`);
    return {
      lines: FALLBACK_STREAM[scenario.agent].map((line) => JSON.stringify(line)),
      recordedExitCode: null,
    };
  }
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

/** Finds file writes in a stream line: {file_path|path, content|fileText} objects and codex file_change paths. */
const collectWrites = (value: unknown, agent: FakeAgentKind, found: Map<string, string>): void => {
  if (Array.isArray(value)) {
    for (const item of value) collectWrites(item, agent, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  const pathKey = PATH_KEYS.find((key) => typeof record[key] === 'string');
  const contentKey = CONTENT_KEYS.find((key) => typeof record[key] === 'string');
  if (pathKey !== undefined && contentKey !== undefined) {
    found.set(record[pathKey] as string, record[contentKey] as string);
  }
  if (record.type === 'file_change' && Array.isArray(record.changes)) {
    for (const change of record.changes as Array<Record<string, unknown>>) {
      if (typeof change.path === 'string' && change.kind !== 'delete' && !found.has(change.path)) {
        found.set(change.path, `written by the ${agent} fake agent\n`);
      }
    }
  }
  for (const child of Object.values(record)) collectWrites(child, agent, found);
};

const deriveEdits = (lines: string[], agent: FakeAgentKind): FakeEdit[] => {
  const found = new Map<string, string>();
  for (const line of lines) {
    try {
      collectWrites(JSON.parse(line) as unknown, agent, found);
    } catch {
      // Not JSON: nothing to derive.
    }
  }
  return [...found.entries()].map(([file, content]) => ({ path: file, content }));
};

/** Maps a recorded path onto the working directory; refuses anything outside it. */
const targetPath = (cwd: string, file: string): string | null => {
  let relative = file;
  if (file.startsWith(`${FIXTURE_REPO}/`)) relative = file.slice(FIXTURE_REPO.length + 1);
  else if (path.isAbsolute(file)) relative = path.basename(file);
  const target = path.resolve(cwd, relative);
  return target.startsWith(`${cwd}${path.sep}`) ? target : null;
};

const applyEdits = (cwd: string, edits: FakeEdit[]): void => {
  for (const edit of edits) {
    const target = targetPath(cwd, edit.path);
    if (target === null) continue;
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

const garbageFor = (line: string, index: number): string =>
  index % 2 === 0
    ? 'fake-agent: this line is not JSON {'
    : line.slice(0, Math.max(1, Math.floor(line.length / 2)));

async function run({ scenario, args }: Invocation): Promise<number> {
  const cwd = workingDir(args);
  if (scenario.logArgvTo !== undefined) {
    appendFileSync(scenario.logArgvTo, `${JSON.stringify({ argv: args, cwd, stdin: readStdin() })}\n`);
  }
  if (scenario.ignoreSigterm === true) process.on('SIGTERM', () => undefined);
  if (scenario.spawnGrandchild === true) {
    spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] }).unref();
  }
  if (scenario.stderr !== undefined) process.stderr.write(scenario.stderr);

  const stream = loadStream(scenario);
  const lines = stream.lines.map((line) => line.split(FIXTURE_REPO).join(cwd));
  const edits = scenario.edits ?? deriveEdits(stream.lines, scenario.agent);
  const firstTool = lines.findIndex(isToolLine);
  const editAt = firstTool >= 0 ? firstTool : Math.floor(lines.length / 2);
  const delayMs = scenario.delayMs ?? 120;
  let editsDone = false;

  for (const [index, line] of lines.entries()) {
    if (scenario.hangAfterLines !== undefined && index >= scenario.hangAfterLines) return hangForever();
    if (scenario.crashAfterLines !== undefined && index >= scenario.crashAfterLines) return 139;
    if (index > 0 && delayMs > 0) await sleep(delayMs);
    if (scenario.garbage === true) await write(`${garbageFor(line, index)}\n`);
    await write(`${line}\n`);
    if (!editsDone && index >= editAt) {
      applyEdits(cwd, edits);
      editsDone = true;
    }
  }
  if (!editsDone) applyEdits(cwd, edits);
  if (scenario.hangAfterLines !== undefined) return hangForever();
  if (scenario.crashAfterLines !== undefined) return 139;
  const lastMessageFile = flagValue(args, ['-o', '--output-last-message']);
  const message = lastMessage(lines);
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
    process.stdout.write(helpText(scenario, scenario.agent === 'codex' && args[0] === 'exec'));
    return;
  }
  const code = await run(invocation);
  process.exit(code);
}

await main();
