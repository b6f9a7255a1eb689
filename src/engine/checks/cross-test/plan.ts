/**
 * What cross-testing runs: the runners of a project (from the race's checks, else what package.json
 * depends on, else each runner's default command), and of an agent's changed files, its tests (each
 * with the command that runs it alone) and the files they need beside them.
 */
import type { CheckSpec } from '../../check-types.js';
import { scriptOf } from '../command-config.js';
import { RUNNER_RULES, dependedRunner, invocationsIn, isTestSupport, shellWord } from './rules.js';
import type { Invocation, RunnerRule } from './rules.js';

/** The rules that apply to a project, each with the prefix that starts it and its time limit. */
export interface Runners {
  invocations: Array<Invocation & { timeoutMs: number }>;
}

/** A test file of an agent's result and the command that runs it alone. */
export interface PlannedTest {
  file: string;
  runner: string;
  run: string;
  timeoutMs: number;
}

/** A test run with no check's time limit to borrow: 10 minutes. */
const DEFAULT_TEST_TIMEOUT_MS = 10 * 60_000;

/** At most this many test files of one agent run; the rest are counted as not run. */
export const MAX_TEST_FILES = 10;

const scriptText = (packageJson: Record<string, unknown> | null, name: string): string | null => {
  const scripts = packageJson?.['scripts'];
  if (scripts === null || typeof scripts !== 'object') return null;
  const text = (scripts as Record<string, unknown>)[name];
  return typeof text === 'string' ? text : null;
};

/**
 * The project's runners: the ones its checks invoke (a `package.json` script read through), then a
 * JavaScript runner from its dependencies, then every other rule with its default command. Only one
 * JavaScript runner applies: they share file names.
 */
export const projectRunners = (
  checks: readonly CheckSpec[],
  packageJson: Record<string, unknown> | null,
): Runners => {
  const found = checks.flatMap((check) => {
    const words = check.run.trim().split(/\s+/);
    const script = scriptOf(words);
    const line = script === null ? check.run : (scriptText(packageJson, script) ?? check.run);
    const timeoutMs = check.timeoutMs > 0 ? check.timeoutMs : DEFAULT_TEST_TIMEOUT_MS;
    return invocationsIn(line).map((invocation) => ({ ...invocation, timeoutMs }));
  });
  const timeoutMs = found[0]?.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
  const byDefault = (rule: RunnerRule): Invocation & { timeoutMs: number } => ({
    rule,
    prefix: [...rule.defaultPrefix],
    timeoutMs,
  });
  const javascript =
    found.find((item) => item.rule.javascript) ??
    byDefault(
      RUNNER_RULES.find((rule) => rule.runner === (dependedRunner(packageJson) ?? 'node')) ?? nodeRule(),
    );
  const others = RUNNER_RULES.filter((rule) => !rule.javascript).map(
    (rule) => found.find((item) => item.rule === rule) ?? byDefault(rule),
  );
  return { invocations: [javascript, ...others] };
};

const nodeRule = (): RunnerRule => {
  const rule = RUNNER_RULES[0];
  if (rule === undefined) throw new Error('the runner table is empty');
  return rule;
};

/** The runner whose naming rules make `file` a test, or undefined. */
export const runnerOf = (runners: Runners, file: string): (Invocation & { timeoutMs: number }) | undefined =>
  runners.invocations.find((invocation) => invocation.rule.matches(file));

/**
 * An agent's tests among its changed files (each with its command; at most MAX_TEST_FILES), the
 * files copied with them onto another tree (every test file and what they need beside them:
 * helpers and fixtures under test folders, conftest.py), and how many test files were left out.
 */
export const planTests = (
  runners: Runners,
  changed: readonly string[],
  contentOf: (file: string) => string,
): { tests: PlannedTest[]; copied: string[]; notRun: number } => {
  const tests: PlannedTest[] = [];
  const copied: string[] = [];
  let notRun = 0;
  for (const file of changed) {
    const invocation = runnerOf(runners, file);
    const args = invocation?.rule.fileArgs(file, contentOf(file)) ?? null;
    if (invocation === undefined || args === null) {
      if (isTestSupport(file) || invocation !== undefined) copied.push(file);
      continue;
    }
    copied.push(file);
    if (tests.length >= MAX_TEST_FILES) {
      notRun += 1;
      continue;
    }
    tests.push({
      file,
      runner: invocation.rule.runner,
      run: [...invocation.prefix, ...args].map(shellWord).join(' '),
      timeoutMs: invocation.timeoutMs,
    });
  }
  return { tests, copied, notRun };
};
