/**
 * An agent's contract from its checks' summaries (pure, so the dashboard, `hydra show` and the score
 * read the same thing from a snapshot or a run record).
 */
import type { CheckSummary, ContractSummary } from '../../check-types.js';

export type { ContractSummary };

/** What the result changed of the base's tests and whether it passes with each version; null when it changed none. */
export const contractOf = (checks: readonly CheckSummary[] | null | undefined): ContractSummary | null => {
  const changed = [...new Set((checks ?? []).flatMap((check) => check.contract ?? []))];
  if (checks === null || checks === undefined || changed.length === 0) return null;
  return {
    changed,
    passesOwn: checks.every((check) => (check.own?.status ?? check.status) === 'passed'),
    passesBase: checks.every((check) => check.status === 'passed'),
  };
};

/** A result that passes only with its own versions of the tests: changing them is the user's decision. */
export const breaksContract = (contract: ContractSummary | null): boolean =>
  contract !== null && contract.passesOwn && !contract.passesBase;
