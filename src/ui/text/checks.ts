/**
 * The one formatter per check figure and for the score: a check's result (`test 41/42 · 1 newly
 * failing`), its symbol and tone, the score (`score 87.5`, or `score 0 · changed nothing`). Pure,
 * so the panes, the compare view, `hydra show` and the headless notes read the same.
 */
import type { CheckSummary, ContractSummary, NewTestsSummary, ScoreSummary } from '../../engine/index.js';
import type { Symbols, Tone } from './theme.js';
import { sanitizeName } from './text.js';

export const checkSymbol = (check: Pick<CheckSummary, 'status'>, symbols: Symbols): string =>
  check.status === 'passed' ? symbols.ok : check.status === 'timed_out' ? symbols.stopped : symbols.fail;

export const checkTone = (check: Pick<CheckSummary, 'status'>): Tone =>
  check.status === 'passed' ? 'ok' : check.status === 'timed_out' ? 'warn' : 'error';

/** `41/42` when the output gave counts; `timed out` / `error` / `ok` / `fail` otherwise. */
export const checkFigure = (check: Pick<CheckSummary, 'status' | 'tests'>): string => {
  if (check.status === 'timed_out') return 'timed out';
  if (check.status === 'error') return 'error';
  if (check.tests !== null) return `${check.tests.passed}/${check.tests.passed + check.tests.failed}`;
  return check.status === 'passed' ? 'ok' : 'fail';
};

/** `test 41/42 · 1 newly failing` (without the symbol). */
export const formatCheck = (check: CheckSummary, dot: string): string => {
  // Without counts, the symbol says passed or failed: the name is enough.
  const bare = check.tests === null && (check.status === 'passed' || check.status === 'failed');
  const parts = [bare ? check.name : `${check.name} ${checkFigure(check)}`];
  const failing = check.newlyFailing?.length ?? 0;
  const passing = check.newlyPassing?.length ?? 0;
  if (failing > 0) parts.push(`${failing} newly failing`);
  if (passing > 0) parts.push(`${passing} newly passing`);
  return parts.join(` ${dot} `);
};

/**
 * Where a check ran, when that was not this machine: `in a container on tcp://10.0.0.5:2376`
 * (`the default engine` for the default one); null on this machine or in a record that does not say.
 */
export const formatWhere = (check: { where?: 'host' | 'container'; engine?: string }): string | null =>
  check.where !== 'container'
    ? null
    : `in a container on ${check.engine === undefined || check.engine === 'default' ? 'the default engine' : check.engine}`;

/** `87.5`, one decimal at most. */
export const formatScoreTotal = (score: Pick<ScoreSummary, 'total'>): string =>
  Number.isInteger(score.total) ? String(score.total) : score.total.toFixed(1);

/** What an unverified score is called wherever a score is shown. */
export const UNVERIFIED = 'unverified (no check ran)';

/** `score 87.5`, `score 100 · unverified (no check ran)`, or `score 0 · failed gate build`. */
export const formatScore = (score: ScoreSummary, dot: string): string =>
  score.disqualified !== null
    ? `score ${formatScoreTotal(score)} ${dot} ${score.disqualified}`
    : score.verified
      ? `score ${formatScoreTotal(score)}`
      : `score ${formatScoreTotal(score)} ${dot} ${UNVERIFIED}`;

/**
 * Cross-testing in a few words: `1 new test · 1 reproduces`, `1 new test · passes on the base`
 * (it proves nothing about the task), `2 new tests · 1 reproduces · 1 not run`.
 */
export const formatNewTests = (newTests: NewTestsSummary, dot: string): string => {
  const parts = [`${newTests.count} new test${newTests.count === 1 ? '' : 's'}`];
  if (newTests.reproductions > 0)
    parts.push(`${newTests.reproductions} reproduce${newTests.reproductions === 1 ? 's' : ''}`);
  else if (newTests.failOnBase === 0) parts.push(`pass${newTests.count === 1 ? 'es' : ''} on the base`);
  else parts.push('none passes on its own result');
  if ((newTests.notRun ?? 0) > 0) parts.push(`${newTests.notRun} not run`);
  return parts.join(` ${dot} `);
};

/** The compare view's cell: reproductions of new tests (`1/1`), `-` without new tests. */
export const newTestsFigure = (newTests: NewTestsSummary | undefined): string =>
  newTests === undefined ? '-' : `${newTests.reproductions}/${newTests.count}`;

/** What the contract found, in words: `passes only with its own tests` (docs/verdict.md, "The contract"). */
const contractVerdict = (contract: ContractSummary): string =>
  contract.passesOwn
    ? contract.passesBase
      ? "passes its own tests and the base's"
      : 'passes only with its own tests'
    : contract.passesBase
      ? "its own tests fail; the base's pass"
      : "fails its own tests and the base's";

/**
 * A result that changed the base's tests or their configuration: `changed the tests: lib.test.js ·
 * passes only with its own tests` (the first three changes, then how many more).
 */
export const formatContract = (contract: ContractSummary, dot: string): string => {
  // File names and test lines are the agent's text.
  const shown = contract.changed.slice(0, 3).map(sanitizeName).join(', ');
  const more = contract.changed.length > 3 ? ` and ${contract.changed.length - 3} more` : '';
  return `changed the tests: ${shown}${more} ${dot} ${contractVerdict(contract)}`;
};

/** A warning when its own tests and the base's disagree; muted when both pass or both fail. */
export const contractTone = (contract: ContractSummary): Tone =>
  contract.passesOwn === contract.passesBase ? 'muted' : 'warn';
