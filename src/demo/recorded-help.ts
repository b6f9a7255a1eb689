/**
 * The fake agent's `--version`, `--help` and `<subcommand> --help`: what the real CLI printed,
 * recorded under fixtures/adapters/<agent>/help/<latest version>/, unless the scenario names a file.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fail, readIfExists } from './fake-io.js';
import type { FakeScenario } from './fake-scenario.js';
import { packageRoot } from './fake-scenario.js';

export const fixturesDir = (agent: string): string => path.join(packageRoot(), 'fixtures', 'adapters', agent);

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

/** A file from the agent's newest recorded help directory, or null. */
const recorded = (agent: string, file: string): string | null => {
  const dir = latestHelpDir(agent);
  return dir === null ? null : readIfExists(path.join(dir, file));
};

const unrecorded = (agent: string, file: string): never =>
  fail(`no recorded ${file} for ${agent} under ${path.join(fixturesDir(agent), 'help')}`);

/** What a help command printed: stdout, and stderr when the CLI wrote there too (`<name>.stderr.txt`). */
export interface Printed {
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
export const helpText = (scenario: FakeScenario, args: string[]): Printed => {
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

export const versionText = (scenario: FakeScenario): string =>
  scenario.version !== undefined
    ? `${scenario.version}\n`
    : (recorded(scenario.agent, 'version.txt') ?? unrecorded(scenario.agent, 'version.txt'));

/** One probe the fake can answer without starting node: its exact argv and what it prints. */
export interface RecordedAnswer {
  args: string[];
  printed: Printed;
}

/**
 * The answers `versionText` and `helpText` give to the exact probes hydra runs (`--version`,
 * `--help`, `<subcommand> --help` for each recorded subcommand help), computed once at install so
 * the sh wrapper (fake-bin.ts) can print them without starting node. Answers that depend on files
 * read at run time (the scenario's `helpFile`, `subcommandHelpFile`) or that are unrecorded are left
 * out: the fake agent itself answers those, as before.
 */
export const recordedAnswers = (scenario: FakeScenario): RecordedAnswer[] => {
  const answers: RecordedAnswer[] = [];
  const version =
    scenario.version !== undefined ? `${scenario.version}\n` : recorded(scenario.agent, 'version.txt');
  if (version !== null) answers.push({ args: ['--version'], printed: { stdout: version, stderr: '' } });
  if (scenario.helpFile !== undefined || scenario.subcommandHelpFile !== undefined) return answers;
  const help = recordedPrinted(scenario.agent, 'help.txt');
  if (help !== null) answers.push({ args: ['--help'], printed: help });
  const dir = latestHelpDir(scenario.agent);
  const subcommands =
    dir === null ? [] : readdirSync(dir).filter((file) => /^[a-z][\w-]*-help\.txt$/.test(file));
  for (const file of subcommands) {
    const printed = recordedPrinted(scenario.agent, file);
    if (printed !== null) answers.push({ args: [file.replace(/-help\.txt$/, ''), '--help'], printed });
  }
  return answers;
};
