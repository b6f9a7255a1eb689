/**
 * Installs fake agent CLIs (`claude`, `codex`, `cursor-agent`) into a directory: small sh wrappers
 * that run dist/demo/fake-agent.js with a scenario file. Tests put the directory first on PATH (or
 * name a wrapper as the configured binary); `hydra demo` uses the same wrappers.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type FakeAgentKind = 'claude' | 'codex' | 'cursor';

/** The binary names a fake can be installed under. */
export type FakeBinaryName = 'claude' | 'codex' | 'cursor-agent';

export interface FakeEdit {
  /** Relative to the agent's working directory. */
  path: string;
  content: string;
}

/** What a fake agent does when run. Every field is optional except `agent`. */
export interface FakeScenario {
  agent: FakeAgentKind;
  /** Printed for --version; defaults to the latest recorded fixture's version.txt. */
  version?: string;
  /** File printed for --help; defaults to the latest recorded fixture's help.txt. */
  helpFile?: string;
  /** File printed for `codex exec --help`. */
  execHelpFile?: string;
  /** JSONL file to replay on stdout; defaults to fixtures/adapters/<agent>/streams/success-edit.jsonl. */
  streamFile?: string;
  /** Lines to replay instead of a stream file. */
  lines?: string[];
  /** Pause between lines, in milliseconds (default 120, which looks real in the demo). */
  delayMs?: number;
  /**
   * Files written into the working directory after the first tool-call line (or halfway). When
   * absent, edits are derived from the stream's own write tool calls so a replay really edits files.
   */
  edits?: FakeEdit[];
  /** After this many lines, stop writing and sleep forever (an idle agent). */
  hangAfterLines?: number;
  /** Exit code at the end (default: the stream's recorded exit code, else 0). */
  exitCode?: number;
  /** Written to stderr at start. */
  stderr?: string;
  /** Interleave non-JSON and truncated lines with the real ones. */
  garbage?: boolean;
  /** Ignore SIGTERM (only SIGKILL stops it). */
  ignoreSigterm?: boolean;
  /** Start a `sleep 300` child in the same process group, holding stdout open. */
  spawnGrandchild?: boolean;
  /** After this many lines, exit 139 without a terminal line. */
  crashAfterLines?: number;
  /** Append `{"argv":[...],"cwd":"...","stdin":...}` as one JSON line to this file. */
  logArgvTo?: string;
}

/** Package root (holds package.json), from either src/demo or dist/demo. */
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

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const wrapperText = (scenarioFile: string): string =>
  [
    '#!/bin/sh',
    '# hydra fake agent (see src/demo/fake-agent.ts)',
    `exec ${shellQuote(process.execPath)} ${shellQuote(fakeAgentScript())} --scenario ${shellQuote(scenarioFile)} -- "$@"`,
    '',
  ].join('\n');

/**
 * Writes `<binDir>/<name>` (an executable sh wrapper) and `<binDir>/<name>.scenario.json` for each
 * scenario given. The fake agent itself must be built (`npm run build`).
 */
export async function installFakeAgents(
  binDir: string,
  scenarios: Partial<Record<FakeBinaryName, FakeScenario>>,
): Promise<void> {
  const script = fakeAgentScript();
  if (!existsSync(script)) {
    throw new Error(`hydra: the fake agent is not built (${script} is missing); run \`npm run build\` first`);
  }
  await mkdir(binDir, { recursive: true });
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (scenario === undefined) continue;
    const absBin = path.resolve(binDir);
    const scenarioFile = path.join(absBin, `${name}.scenario.json`);
    await writeFile(scenarioFile, `${JSON.stringify(scenario, null, 2)}\n`);
    const wrapper = path.join(absBin, name);
    await writeFile(wrapper, wrapperText(scenarioFile));
    await chmod(wrapper, 0o755);
  }
}

/** The demo's scenarios: every agent replays its recorded success stream and really edits files. */
export const defaultScenarios = (delayMs = 120): Record<FakeBinaryName, FakeScenario> => ({
  claude: { agent: 'claude', delayMs },
  codex: { agent: 'codex', delayMs },
  'cursor-agent': { agent: 'cursor', delayMs },
});
