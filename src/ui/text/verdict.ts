/**
 * Why a result ranks where it does, in one line written from its summary's fields alone, so the
 * race's final lines and `hydra show` say the same ("1st, 95.5: test: passes all 14 tests (1 failed
 * on the base); its new test fails on the base and passes here; $0.0120"). Each phrase is one function of
 * the summary; the line is the phrases that have something to say, most decisive first.
 */
import type { AgentSummary, CheckSummary, RaceSummary } from '../../engine/index.js';
import { DEFAULT_WEIGHTS, meritOf } from '../../core/merit.js';
import { formatScoreTotal, UNVERIFIED } from './checks.js';
import { formatCost, formatDuration } from './format.js';

type Explained = Pick<
  AgentSummary,
  | 'agent'
  | 'status'
  | 'checks'
  | 'score'
  | 'newTests'
  | 'usage'
  | 'durationMs'
  | 'outsideAllowed'
  | 'contract'
>;

/** What a phrase may read of the race: the baseline, and (for the merit) every agent and the weights. */
type RaceView = Pick<RaceSummary, 'baseline'> &
  Partial<Pick<RaceSummary, 'scoreWeights'>> & { agents?: readonly Explained[] };

type Phrase = (agent: Explained, race: RaceView) => string | null;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `1st`, `2nd`, `3rd`, `4th`, `11th`... */
const ordinal = (place: number): string => {
  const tens = place % 100;
  if (tens >= 11 && tens <= 13) return `${place}th`;
  return `${place}${['th', 'st', 'nd', 'rd'][place % 10] ?? 'th'}`;
};

/** What kept it from winning at all: a failed gate, no result, no change. */
const disqualified: Phrase = (agent) =>
  agent.score?.disqualified === null || agent.score === undefined
    ? null
    : `cannot win: ${agent.score.disqualified}`;

/** One check, against the baseline's run of it: `test: passes all 14 tests (1 failed on the base)`. */
const checkPhrase = (check: CheckSummary, base: CheckSummary | undefined): string => {
  if (check.status === 'timed_out') return `${check.name}: timed out`;
  if (check.status === 'error') return `${check.name}: could not run`;
  const failedOnBase = base?.tests?.failed ?? 0;
  const onBase =
    base === undefined
      ? ''
      : base.status !== 'failed'
        ? ' (it passes on the base too)'
        : failedOnBase > 0
          ? ` (${failedOnBase} failed on the base)`
          : ' (it fails on the base)';
  const verb = check.status === 'passed' ? 'passes' : 'fails';
  if (check.tests === null) return `${check.name}: ${verb}${onBase}`;
  const ran = check.tests.passed + check.tests.failed;
  const counts =
    check.tests.failed === 0
      ? `passes all ${plural(ran, 'test')}`
      : `fails ${check.tests.failed} of ${plural(ran, 'test')}`;
  const newly = check.newlyFailing?.length ?? 0;
  return `${check.name}: ${counts}${newly > 0 ? `, ${newly} newly failing` : ''}${onBase}`;
};

/**
 * The contract (summary `contract`, present when the result changed the base's tests or what
 * configures them): whether it passes with the base's versions put back, and what it changed.
 */
const contract: Phrase = (agent) => {
  const terms = agent.contract;
  if (terms === undefined || terms.changed.length === 0) return null;
  const shown = terms.changed.slice(0, 3).join(', ');
  const more = terms.changed.length > 3 ? ` and ${terms.changed.length - 3} more` : '';
  const verdict = terms.passesBase
    ? "passes with the base's tests put back"
    : terms.passesOwn
      ? "passes only with its own tests (fails the base's)"
      : "fails with its own tests and the base's";
  return `changed the tests (${shown}${more}): ${verdict}`;
};

/** What its checks say (the contract's run of them, when the result changed the tests). */
const checks: Phrase = (agent, race) => {
  if (agent.score?.disqualified !== null && agent.score !== undefined) return null;
  const own = agent.checks ?? [];
  if (own.length === 0) return agent.score?.verified === false ? UNVERIFIED : null;
  return own
    .map((check) =>
      checkPhrase(
        check,
        race.baseline?.checks.find((item) => item.name === check.name),
      ),
    )
    .join(', ');
};

/** Its checks are not evidence: it changed what they run. */
const flagged: Phrase = (agent) =>
  (agent.score?.flags ?? []).length === 0 ? null : `not evidence: ${agent.score?.flags?.join('; ')}`;

/** What cross-testing proved of its new tests, and of the others' on its result. */
const newTests: Phrase = (agent) => {
  const tests = agent.newTests;
  if (tests === undefined || tests.count === 0) return null;
  const one = tests.count === 1;
  const subject = one ? 'its new test' : `${tests.reproductions} of its ${tests.count} new tests`;
  if (tests.reproductions > 0)
    return `${subject} ${one ? 'fails' : 'fail'} on the base and ${one ? 'passes' : 'pass'} here`;
  if (tests.failOnBase === 0)
    return `${one ? 'its new test passes' : 'its new tests pass'} on the base (proves nothing)`;
  return `${one ? 'its new test fails' : 'its new tests fail'} on its own result`;
};

/** Files outside `allowed_paths`. */
const scope: Phrase = (agent) =>
  (agent.outsideAllowed?.length ?? 0) === 0
    ? null
    : `${plural(agent.outsideAllowed?.length ?? 0, 'file')} outside allowed_paths`;

/** What it cost and took. */
const spent: Phrase = (agent) => {
  const cost = formatCost(agent.usage);
  return (
    [cost === 'n/a' ? null : cost, agent.durationMs > 0 ? formatDuration(agent.durationMs) : null]
      .filter((part) => part !== null)
      .join(', ') || null
  );
};

/** A result that can win, with no flag and a check that ran: what `--auto-merge best` chooses among. */
const mergeable = (agent: Explained): boolean =>
  agent.score !== undefined &&
  agent.score.disqualified === null &&
  agent.score.total > 0 &&
  agent.score.verified !== false &&
  (agent.score.flags ?? []).length === 0;

/**
 * The result ahead once time and cost are left out (its merit, checks/separation.ts) while others
 * lead its total: `--auto-merge best` prefers it, and the line says why it is not first.
 */
const aheadOnMerit: Phrase = (agent, race) => {
  const all = race.agents ?? [];
  if (agent.score === undefined || !mergeable(agent)) return null;
  const weights = race.scoreWeights ?? DEFAULT_WEIGHTS;
  const mine = meritOf(agent.score.parts, weights);
  const rivals = all.filter((other) => other !== agent && mergeable(other));
  const merit = (other: Explained): number =>
    other.score === undefined ? 0 : meritOf(other.score.parts, weights);
  if (rivals.some((other) => merit(other) >= mine - 1e-9)) return null;
  const total = agent.score.total;
  const leading = rivals.filter((other) => (other.score?.total ?? 0) > total);
  return leading.length === 0
    ? null
    : `ahead of ${leading.map((other) => other.agent).join(', ')} once time and cost are left out (what --auto-merge best goes by)`;
};

const PHRASES: readonly Phrase[] = [
  disqualified,
  aheadOnMerit,
  contract,
  checks,
  flagged,
  newTests,
  scope,
  spent,
];

/** The agent's place among the scored results (ties share a place), and its score. */
const placeOf = (agent: Explained, all: readonly Explained[]): string | null => {
  if (agent.score === undefined) return null;
  const total = agent.score.total;
  const better = all.filter((other) => other.score !== undefined && other.score.total > total).length;
  const tied = all.filter((other) => other !== agent && other.score?.total === total).length > 0;
  return `${tied ? 'tied ' : ''}${ordinal(better + 1)}, ${formatScoreTotal(agent.score)}`;
};

/** `1st, 95.5: test: passes all 14 tests (1 failed on the base); its new test fails ...; $0.0120, 2m03s`. */
export const explainRank = (agent: Explained, race: RaceView & { agents: readonly Explained[] }): string => {
  const place = placeOf(agent, race.agents);
  const why = PHRASES.map((phrase) => phrase(agent, race)).filter((text): text is string => text !== null);
  return [place, why.join('; ')].filter((text) => text !== null && text !== '').join(': ');
};

/** The completed agents, best score first, each with its line: the race's final lines. */
export const rankingLines = (
  summary: Pick<RaceSummary, 'baseline' | 'agents'> & Partial<Pick<RaceSummary, 'scoreWeights'>>,
): string[] =>
  [...summary.agents]
    .filter((agent) => agent.score !== undefined)
    .sort((a, b) => (b.score?.total ?? 0) - (a.score?.total ?? 0))
    .map((agent) => `${agent.agent}: ${explainRank(agent, summary)}`);
