/**
 * The ledger's figures, from run records already read and checked: per agent (its name as
 * hydra.toml names it, with the adapter and model it ran), how many races it ran, how many it won
 * with a verified result, how often its result passed the checks, the reproductions it wrote, its
 * median time, its cost per race and per verified win, and how often a judge agreed with the score.
 * Pure: data in, figures out (read-ledger.ts reads the records).
 */
import type { AgentSummary, JudgeSummary, RaceSummary, RunMeta } from '../records/index.js';
import { pickBest } from '../checks/index.js';

/** An agent's entry in summary.json, as much of it as the ledger reads. */
export type LedgerEntry = Pick<
  AgentSummary,
  'agent' | 'adapter' | 'rerunOf' | 'status' | 'durationMs' | 'score' | 'contract'
> & {
  usage: Pick<AgentSummary['usage'], 'costUsd' | 'costSource'>;
  newTests?: { reproductions: number };
};

/** summary.json, as much of it as the ledger reads. */
export interface LedgerSummary extends Pick<RaceSummary, 'merged' | 'allowTestChanges'> {
  agents: readonly LedgerEntry[];
  judge?: Pick<JudgeSummary, 'contenders' | 'ranking'>;
}

/** One finished run as the ledger needs it (a whole record, or what quick-read.ts checked of one). */
export interface LedgerRun {
  meta: Pick<RunMeta, 'config'>;
  summary: LedgerSummary;
  /** The agent merged later with `hydra merge` (merge.json), over the summary's own merge. */
  mergedAgent: string | null;
  /** Agents whose entry in summary.json is damaged: left out of the figures. */
  damagedAgents: readonly string[];
}

/** One agent's line of the ledger. A figure nothing measured is null, never 0. */
export interface AgentLedger {
  /** The name hydra.toml gives it (`claude`, `opus`, `claude-opus`): a copy's `-2` dropped. */
  agent: string;
  adapter: string;
  /** How `--agents` names it again: its name, or `<adapter>:<model>` for a name made from one. */
  spec: string;
  /** The model it was asked for (hydra.toml or --model), or null when the CLI's default. */
  model: string | null;
  races: number;
  completed: number;
  /** Races it won with a verified result (its checks ran and passed every gate). */
  verifiedWins: number;
  /** Races where a check ran to a verdict on its result, and how many of those passed every gate. */
  checked: number;
  checksPassed: number;
  checksPassRate: number | null;
  /** Tests it wrote that fail on the base and pass on its result (cross-testing). */
  reproductions: number;
  /**
   * Races whose result changed the base's tests or what configures them (summary `contract`), and of
   * those how many passed only with its own versions: failed the base's tests, its checks' contract.
   */
  testsChanged: number;
  passedOnlyOwnTests: number;
  /** Median wall time of its completed results. */
  medianDurationMs: number | null;
  /** Its known spend, and whether any part of it is an estimate. */
  costUsd: number | null;
  costEstimated: boolean;
  costPerRace: number | null;
  /** The median of its known costs a race (what `--stop first-verified` says it saved against). */
  medianCostUsd: number | null;
  costPerVerifiedWin: number | null;
  /** Races where a judge ranked it, and how many of those the judge's first was the score's first. */
  judged: number;
  judgeAgreed: number;
  judgeAgreement: number | null;
}

interface Tally {
  agent: string;
  adapter: string;
  spec: string;
  model: string | null;
  races: number;
  completed: number;
  verifiedWins: number;
  checked: number;
  checksPassed: number;
  reproductions: number;
  testsChanged: number;
  passedOnlyOwnTests: number;
  durations: number[];
  costUsd: number;
  costRaces: number;
  costs: number[];
  costEstimated: boolean;
  judged: number;
  judgeAgreed: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The table or value at `keys` in the recorded config snapshot (`{file, config, flags}`), if any. */
const snapshotAt = (meta: LedgerRun['meta'], keys: readonly string[]): unknown => {
  let value: unknown = meta.config;
  for (const key of keys) {
    if (!isRecord(value)) return undefined;
    value = value[key];
  }
  return value;
};

/**
 * The name an agent has in hydra.toml: a rerun's or a copy's (`claude-2`, `opus-1`) is the agent it
 * copies, when that is its adapter or a table of the recorded config; any other name is kept whole
 * (`gpt-5` stays `gpt-5`).
 */
export const ledgerName = (
  entry: Pick<AgentSummary, 'agent' | 'adapter' | 'rerunOf'>,
  meta: LedgerRun['meta'],
): string => {
  if (entry.rerunOf !== undefined)
    return ledgerName({ ...entry, agent: entry.rerunOf, rerunOf: undefined }, meta);
  const base = /^(.+)-\d+$/.exec(entry.agent)?.[1];
  if (base === undefined) return entry.agent;
  if (base === entry.adapter || isRecord(snapshotAt(meta, ['config', 'agents', base]))) return base;
  return entry.agent;
};

/** `opus-4.5` → `opus-4-5`, as an `<adapter>:<model>` entry names its agent (config/agents.ts). */
const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** The `<adapter>:<model>` entry of the recorded agent lists that made `name`, if one did. */
const modelEntry = (
  meta: LedgerRun['meta'],
  name: string,
  adapter: string,
): { spec: string; model: string } | null => {
  for (const list of [
    snapshotAt(meta, ['flags', 'agents']),
    snapshotAt(meta, ['config', 'race', 'agents']),
  ]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item !== 'string') continue;
      const word = item.replace(/\*\d+$/, '').trim();
      const colon = word.indexOf(':');
      if (colon < 0) continue;
      const model = word.slice(colon + 1).trim();
      if (word.slice(0, colon).trim() === adapter && `${adapter}-${slug(model)}` === name)
        return { spec: word, model };
    }
  }
  return null;
};

/** The model an agent was asked for: `--model` (by name, then by adapter), then its hydra.toml table. */
const modelOf = (meta: LedgerRun['meta'], name: string, adapter: string): string | null => {
  for (const value of [
    snapshotAt(meta, ['flags', 'models', name]),
    snapshotAt(meta, ['flags', 'models', adapter]),
    snapshotAt(meta, ['config', 'agents', name, 'model']),
  ])
    if (typeof value === 'string' && value !== '') return value;
  return null;
};

/**
 * The agent that won the run: the one merged, else the one `--auto-merge best` would merge (by
 * merit: time and cost never decide it, and results of the same merit leave the run without one).
 */
const winnerOf = (run: LedgerRun): string | null => {
  const merged = run.mergedAgent ?? run.summary.merged?.agent ?? null;
  if (merged !== null) return merged;
  const scores = run.summary.agents.flatMap((agent) =>
    agent.score === undefined ? [] : [{ ...agent.score, agent: agent.agent }],
  );
  const ranking = run.summary.judge?.ranking?.map((item) => item.agent);
  const pick = pickBest(scores, {
    allowTestChanges: run.summary.allowTestChanges === true,
    requireSeparation: true,
    ...(ranking === undefined ? {} : { ranking, judgeMargin: Number.POSITIVE_INFINITY }),
  });
  return pick.agent;
};

/** A result that a check ran for and that passed every gate. */
const passedChecks = (agent: LedgerEntry): boolean =>
  agent.score !== undefined &&
  agent.score.verified === true &&
  agent.score.gates.passed &&
  agent.score.disqualified === null;

/** Whether the judge's first is a first by score among the contenders it ranked. */
const judgeAgrees = (run: LedgerRun): boolean | null => {
  const judge = run.summary.judge;
  const first = judge?.ranking?.[0]?.agent;
  if (judge === undefined || first === undefined) return null;
  const totals = judge.contenders.map(
    (name) =>
      run.summary.agents.find((agent) => agent.agent === name)?.score?.total ?? Number.NEGATIVE_INFINITY,
  );
  const top = Math.max(...totals);
  return judge.contenders.some((name, index) => name === first && totals[index] === top);
};

const median = (values: readonly number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

const finish = (tally: Tally): AgentLedger => {
  const costUsd = tally.costRaces === 0 ? null : tally.costUsd;
  return {
    agent: tally.agent,
    adapter: tally.adapter,
    spec: tally.spec,
    model: tally.model,
    races: tally.races,
    completed: tally.completed,
    verifiedWins: tally.verifiedWins,
    checked: tally.checked,
    checksPassed: tally.checksPassed,
    checksPassRate: ratio(tally.checksPassed, tally.checked),
    reproductions: tally.reproductions,
    testsChanged: tally.testsChanged,
    passedOnlyOwnTests: tally.passedOnlyOwnTests,
    medianDurationMs: median(tally.durations),
    costUsd,
    costEstimated: tally.costEstimated,
    costPerRace: costUsd === null ? null : costUsd / tally.costRaces,
    medianCostUsd: median(tally.costs),
    costPerVerifiedWin: costUsd === null || tally.verifiedWins === 0 ? null : costUsd / tally.verifiedWins,
    judged: tally.judged,
    judgeAgreed: tally.judgeAgreed,
    judgeAgreement: ratio(tally.judgeAgreed, tally.judged),
  };
};

/**
 * One agent's part in one finished race, all the ledger keeps of it: small enough to cache
 * (ledger-cache.ts), so a run's record is read and checked once, not at every `hydra stats`.
 */
export interface AgentFact {
  agent: string;
  adapter: string;
  spec: string;
  model: string | null;
  completed: boolean;
  durationMs: number;
  /** A check ran to a verdict; it passed every gate; its result won the race. */
  checked: boolean;
  passed: boolean;
  won: boolean;
  reproductions: number;
  /** It changed the base's tests (summary `contract`); it passed only with its own versions of them. */
  changedTests: boolean;
  passedOnlyOwn: boolean;
  costUsd: number | null;
  estimated: boolean;
  /** A judge ranked it among the contenders; the judge's first was the score's first. */
  judged: boolean;
  agreed: boolean;
}

/** What one finished race adds to the ledger, per agent (a skipped or damaged agent adds nothing). */
export const runFacts = (run: LedgerRun): AgentFact[] => {
  const winner = winnerOf(run);
  const agreed = judgeAgrees(run);
  const contenders = new Set(run.summary.judge?.contenders ?? []);
  return run.summary.agents.flatMap((entry): AgentFact[] => {
    if (entry.status === 'skipped' || run.damagedAgents.includes(entry.agent)) return [];
    const name = ledgerName(entry, run.meta);
    const made = modelEntry(run.meta, name, entry.adapter);
    const passed = passedChecks(entry);
    return [
      {
        agent: name,
        adapter: entry.adapter,
        spec: made?.spec ?? name,
        model: made?.model ?? modelOf(run.meta, name, entry.adapter),
        completed: entry.status === 'completed',
        durationMs: entry.durationMs,
        checked: entry.score?.verified === true,
        passed,
        won: passed && entry.agent === winner,
        reproductions: entry.newTests?.reproductions ?? 0,
        changedTests: (entry.contract?.changed.length ?? 0) > 0,
        passedOnlyOwn: entry.contract?.passesOwn === true && !entry.contract.passesBase,
        costUsd: entry.usage.costUsd,
        estimated: entry.usage.costSource === 'estimated',
        judged: agreed !== null && contenders.has(entry.agent),
        agreed: agreed === true && contenders.has(entry.agent),
      },
    ];
  });
};

/** The ledger's lines from the facts, most verified wins first (then fewest dollars a race, then by name). */
export const tallyFacts = (facts: Iterable<AgentFact>): AgentLedger[] => {
  const tallies = new Map<string, Tally>();
  for (const fact of facts) {
    const key = `${fact.adapter}\0${fact.agent}`;
    let tally = tallies.get(key);
    if (tally === undefined) {
      tally = {
        agent: fact.agent,
        adapter: fact.adapter,
        spec: fact.spec,
        model: null,
        races: 0,
        completed: 0,
        verifiedWins: 0,
        checked: 0,
        checksPassed: 0,
        reproductions: 0,
        testsChanged: 0,
        passedOnlyOwnTests: 0,
        durations: [],
        costUsd: 0,
        costRaces: 0,
        costs: [],
        costEstimated: false,
        judged: 0,
        judgeAgreed: 0,
      };
      tallies.set(key, tally);
    }
    tally.model ??= fact.model;
    if (fact.spec !== fact.agent) tally.spec = fact.spec;
    tally.races += 1;
    if (fact.completed) {
      tally.completed += 1;
      tally.durations.push(fact.durationMs);
    }
    if (fact.checked) tally.checked += 1;
    if (fact.passed) tally.checksPassed += 1;
    if (fact.won) tally.verifiedWins += 1;
    tally.reproductions += fact.reproductions;
    if (fact.changedTests) tally.testsChanged += 1;
    if (fact.passedOnlyOwn) tally.passedOnlyOwnTests += 1;
    if (fact.costUsd !== null) {
      tally.costUsd += fact.costUsd;
      tally.costRaces += 1;
      tally.costs.push(fact.costUsd);
      if (fact.estimated) tally.costEstimated = true;
    }
    if (fact.judged) tally.judged += 1;
    if (fact.agreed) tally.judgeAgreed += 1;
  }
  return [...tallies.values()]
    .map(finish)
    .sort(
      (a, b) =>
        b.verifiedWins - a.verifiedWins ||
        (a.costPerRace ?? Number.POSITIVE_INFINITY) - (b.costPerRace ?? Number.POSITIVE_INFINITY) ||
        a.agent.localeCompare(b.agent),
    );
};

/** The ledger's lines from finished races. */
export const tallyRuns = (runs: Iterable<LedgerRun>): AgentLedger[] =>
  tallyFacts([...runs].flatMap(runFacts));
