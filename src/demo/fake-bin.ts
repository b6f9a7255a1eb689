/**
 * Installs fake agent CLIs into a directory: small sh wrappers, named like the real binaries
 * (`claude`, `codex`, `cursor-agent`: each adapter's first binary name), that run
 * dist/demo/fake-agent.js with a scenario file. Tests put the directory first on PATH (or name a
 * wrapper as the configured binary); `hydra demo` uses the same wrappers. The tests install their
 * fault agent (test/support/fault-bin.ts) with the same wrappers around another script.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { adapterOf, listAdapters } from '../adapters/registry.js';
import type { AdapterId } from '../adapters/types.js';
import { fakeAgentScript } from './fake-scenario.js';
import type { RecordedAnswer } from './recorded-help.js';
import { recordedAnswers } from './recorded-help.js';
import type { FakeScenario } from './fake-scenario.js';

export type { FakeScenario } from './fake-scenario.js';
export { fakeAgentScript, packageRoot } from './fake-scenario.js';

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The probes' answers as sh `case` branches: `printf` is a builtin, so a race's `--version` and
 * `--help` probes of a fake cost an sh start-up, not a node start-up (~40 ms of CPU each).
 */
const answerLines = (answers: readonly RecordedAnswer[]): string[] => {
  if (answers.length === 0) return [];
  const branch = ({ args, printed }: RecordedAnswer): string =>
    [
      `  ${shellQuote(args.join(' '))})`,
      `    printf '%s' ${shellQuote(printed.stdout)}`,
      ...(printed.stderr === '' ? [] : [`    printf '%s' ${shellQuote(printed.stderr)} >&2`]),
      '    exit 0 ;;',
    ].join('\n');
  const byCount = new Map<number, RecordedAnswer[]>();
  for (const answer of answers)
    byCount.set(answer.args.length, [...(byCount.get(answer.args.length) ?? []), answer]);
  return [...byCount].map(([count, group]) =>
    [`if [ "$#" -eq ${count} ]; then`, '  case "$*" in', ...group.map(branch), '  esac', 'fi'].join('\n'),
  );
};

const wrapperText = (script: string, scenarioFile: string, answers: readonly RecordedAnswer[]): string =>
  [
    '#!/bin/sh',
    '# hydra fake agent (see src/demo/fake-bin.ts)',
    ...answerLines(answers),
    `exec ${shellQuote(process.execPath)} ${shellQuote(script)} --scenario ${shellQuote(scenarioFile)} -- "$@"`,
    '',
  ].join('\n');

/** The name a fake of this adapter is installed under: the first binary its discovery looks for. */
export const fakeBinaryName = (agent: AdapterId): string => {
  const name = adapterOf(agent).binaries[0];
  if (name === undefined) throw new Error(`adapter "${agent}" names no binary to simulate`);
  return name;
};

/**
 * Writes `<binDir>/<name>` (an executable sh wrapper running `script`) and
 * `<binDir>/<name>.scenario.json` for each scenario given, keyed by binary name. The fake agent
 * itself must be built (`npm run build`).
 */
export async function installFakeAgents(
  binDir: string,
  scenarios: Readonly<Record<string, FakeScenario | undefined>>,
  script = fakeAgentScript(),
): Promise<void> {
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
    await writeFile(wrapper, wrapperText(script, scenarioFile, recordedAnswers(scenario)));
    await chmod(wrapper, 0o755);
  }
}

/**
 * HYDRA_DEMO_DELAY_MS: one pause between lines for every simulated agent instead of each adapter's
 * pace (a whole number of milliseconds; anything else is ignored). The tests set it (vitest.config.ts):
 * the demo's pace is for a newcomer watching, ~6 s a race, and a test waits on it, not on hydra.
 */
const demoDelayMs = (env: NodeJS.ProcessEnv = process.env): number | undefined => {
  const value = env['HYDRA_DEMO_DELAY_MS']?.trim() ?? '';
  return /^\d{1,6}$/.test(value) ? Number(value) : undefined;
};

/**
 * The demo's scenarios, keyed by binary name: every adapter the demo can simulate replays its
 * recorded success stream and really edits files, `delayMs` apart (default: HYDRA_DEMO_DELAY_MS,
 * else the adapter's demo pace).
 */
export const defaultScenarios = (delayMs = demoDelayMs()): Record<string, FakeScenario> =>
  Object.fromEntries(
    listAdapters().flatMap((adapter) =>
      adapter.demo === undefined
        ? []
        : [[fakeBinaryName(adapter.id), { agent: adapter.id, delayMs: delayMs ?? adapter.demo.lineDelayMs }]],
    ),
  );
