/**
 * The score of a race's results from what its summary records (status, checks, diff, scope,
 * duration, cost), so `hydra show` and a test get the same numbers from the run record as the race
 * did; and each check's summary, compared with the baseline by test name.
 */
import type { AgentSummary } from '../records/index.js';
import type {
  CheckRun,
  CheckSummary,
  OwnCheckSummary,
  ScoreReference,
  ScoreSummary,
} from '../check-types.js';
import { DEFAULT_SCORE_WEIGHTS, scoreAgents, scoreReference } from './score.js';
import type { ScoreInput, ScoredCheck } from './score.js';
import type { ScoreWeights } from '../check-types.js';
import { compareTests } from './test-counts.js';
import { tamperingOf } from './tampering.js';
import { evidenceParts } from './cross-test/evidence.js';

/** Each check's result as recorded, with what changed against the baseline's run of the same check (name and command). */
export const summarizeChecks = (
  runs: readonly CheckRun[],
  baseline: readonly CheckRun[] | null,
): CheckSummary[] =>
  runs.map((run) => {
    // The same check: its name and its command (an agent's own command is not the baseline's run).
    const base = baseline?.find((item) => item.name === run.name && item.run === run.run) ?? null;
    const changes = compareTests(base?.tests ?? null, run.tests);
    const tampered = tamperingOf(run, base);
    return {
      name: run.name,
      gate: run.gate,
      status: run.status,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      tests:
        run.tests === null
          ? null
          : { passed: run.tests.passed, failed: run.tests.failed, skipped: run.tests.skipped },
      newlyFailing: changes?.newlyFailing ?? null,
      newlyPassing: changes?.newlyPassing ?? null,
      output: run.output,
      ...(tampered.length === 0 ? {} : { tampered }),
      ...(run.checkoutChanged === undefined ? {} : { checkoutChanged: run.checkoutChanged }),
      ...(run.where === undefined ? {} : { where: run.where }),
      ...(run.engine === undefined ? {} : { engine: run.engine }),
      ...(run.own === undefined ? {} : { own: ownSummary(run.own, base) }),
      ...(run.contract === undefined ? {} : { contract: run.contract }),
    };
  });

/** The contract's other run (the result's own versions of the tests), as the summary keeps it. */
const ownSummary = (run: NonNullable<CheckRun['own']>, base: CheckRun | null): OwnCheckSummary => {
  const tampered = tamperingOf(run, base);
  return {
    status: run.status,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    tests:
      run.tests === null
        ? null
        : { passed: run.tests.passed, failed: run.tests.failed, skipped: run.tests.skipped },
    output: run.output,
    ...(tampered.length === 0 ? {} : { tampered }),
    ...(run.checkoutChanged === undefined ? {} : { checkoutChanged: run.checkoutChanged }),
  };
};

const escapeRegExp = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** `**` crosses directories, `*` and `?` do not; a pattern without wildcards also covers what is under it. */
const globMatcher = (pattern: string): ((file: string) => boolean) => {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!/[*?]/.test(clean)) return (file) => file === clean || file.startsWith(`${clean}/`);
  let source = '';
  for (let i = 0; i < clean.length; i += 1) {
    const char = clean.charAt(i);
    if (char === '*' && clean.charAt(i + 1) === '*') {
      const slash = clean.charAt(i + 2) === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += escapeRegExp(char);
  }
  const regex = new RegExp(`^${source}$`);
  return (file) => regex.test(file);
};

/** The changed files no allowed_paths pattern covers. */
export const outsideAllowedPaths = (files: readonly string[], patterns: readonly string[]): string[] => {
  const matchers = patterns.map(globMatcher);
  return files.filter((file) => !matchers.some((matches) => matches(file)));
};

const changedWhile = (files: readonly string[] | undefined): string[] =>
  files === undefined ? [] : [`its checkout changed while it ran (${files.slice(0, 3).join(', ')})`];

const listed = (items: readonly string[]): string =>
  items.length <= 3 ? items.join(', ') : `${items.slice(0, 3).join(', ')} and ${items.length - 3} more`;

/**
 * What the score reads of one check: the contract's run (the base's tests; it passes only if the
 * result's own run passes too), or, when the user allows test changes, the result's own run. A
 * check that passes only with the result's own versions of the tests is flagged: changing them is
 * the user's decision.
 */
const scoredCheck = (check: CheckSummary, allowTestChanges: boolean): ScoredCheck => {
  const run = allowTestChanges && check.own !== undefined ? check.own : check;
  const changed = check.contract ?? [];
  const ownOnly = check.own?.status === 'passed' && check.status !== 'passed';
  // Without the allowance a check passes when it passes both ways: with the base's tests, and with
  // the result's own (a result whose own tests fail is not right because the base's pass).
  const bothWays = allowTestChanges || check.own === undefined || check.own.status === 'passed';
  return {
    name: check.name,
    gate: check.gate,
    passed: run.status === 'passed' && bothWays,
    ran: run.status === 'passed' || run.status === 'failed',
    tests: run.tests === null ? null : { passed: run.tests.passed, failed: run.tests.failed },
    flags: [
      ...(run.tampered ?? []),
      ...changedWhile(run.checkoutChanged),
      ...(ownOnly
        ? [`passes only with its own versions of the base's tests (it changed ${listed(changed)})`]
        : []),
      ...(allowTestChanges && changed.length > 0 && !ownOnly
        ? [`changed the base's tests (${listed(changed)})`]
        : []),
    ],
  };
};

/** What the score reads of one agent's summary. */
const scoreInputOf = (agent: AgentSummary, allowTestChanges: boolean): ScoreInput => ({
  agent: agent.agent,
  completed: agent.status === 'completed',
  checks: (agent.checks ?? []).map((check) => scoredCheck(check, allowTestChanges)),
  diff:
    agent.status === 'completed'
      ? { files: agent.diff.filesChanged, lines: agent.diff.insertions + agent.diff.deletions }
      : null,
  outsideAllowed: agent.outsideAllowed === undefined ? null : agent.outsideAllowed.length,
  durationMs: agent.durationMs > 0 ? agent.durationMs : null,
  costUsd: agent.usage.costUsd,
});

/** The race's yardsticks (score.ts, ScoreReference) from its agents' summaries. */
export const raceScoreReference = (agents: readonly AgentSummary[]): ScoreReference =>
  scoreReference(agents.map((agent) => scoreInputOf(agent, false)));

/**
 * Every agent's score, in the summary's order. `allowTestChanges`: the user allowed results that
 * change what the checks run (`--allow-test-changes`), so their checks count as any other's.
 * `reference`: the race's yardsticks as its agents ended (null: the results as they are now).
 */
export const scoreRace = (
  agents: readonly AgentSummary[],
  weights: Readonly<ScoreWeights> = DEFAULT_SCORE_WEIGHTS,
  allowTestChanges = false,
  reference: ScoreReference | null = null,
): ScoreSummary[] => {
  const scored = agents.map((agent) => scoreInputOf(agent, allowTestChanges));
  // Evidence never outweighs failing the contract: while another result passes every check, one
  // that fails a check gets no evidence part, and its new tests count against nobody.
  const passesAll = (input: ScoreInput): boolean =>
    input.completed && input.checks.length > 0 && input.checks.every((check) => check.passed);
  const someonePasses = scored.some(passesAll);
  const failsContract = (index: number): boolean => {
    const input = scored[index];
    return someonePasses && input !== undefined && input.checks.length > 0 && !passesAll(input);
  };
  // Cross-testing's evidence, when a new test of the race reproduces the bug (none: no such part).
  const evidence = evidenceParts(
    agents.map((agent, index) => (failsContract(index) ? { agent: agent.agent } : agent)),
  );
  const inputs = scored.map((input, index): ScoreInput => {
    const part = evidence?.get(input.agent);
    return part === undefined ? input : { ...input, evidence: failsContract(index) ? 0 : part };
  });
  return scoreAgents(inputs, weights, { allowTestChanges, reference }).map((score) => ({
    total: score.total,
    gates: score.gates,
    parts: score.parts,
    disqualified: score.disqualified,
    verified: score.verified,
    ...(score.flags.length === 0 ? {} : { flags: score.flags }),
  }));
};
