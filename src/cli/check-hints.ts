/**
 * Hints after a race whose checks failed for a reason of the place, not of the results: a check
 * that fails on the base commit too while the checkout has ignored files the worktrees lack (an
 * ignored `.env` the tests need), and a sandboxed check whose `fetch` failed (Node 20 ignores the
 * sandbox's proxy). Said at the race's end and by `hydra show`.
 */
import { ignoredNotCopied, WORKTREE_INCLUDE } from '../engine/index.js';
import type { RaceSummary } from '../engine/index.js';
import type { CliContext } from './context.js';
import { noteHint } from './errors.js';

/** Ignored entries named in a hint; the rest are counted. */
const NAMED = 3;

const failed = (status: string): boolean => status !== 'passed';

/**
 * The checks that failed on the baseline and on every result that ran them: what the results did
 * cannot be why (empty when some result passed one, or nothing ran on the baseline).
 */
export function failingEverywhere(summary: RaceSummary): string[] {
  const baseline = summary.baseline?.checks ?? [];
  const results = summary.agents.filter((agent) => (agent.checks ?? []).length > 0);
  return baseline
    .filter((check) => failed(check.status))
    .filter((check) =>
      results.every((agent) =>
        (agent.checks ?? []).every((item) => item.name !== check.name || failed(item.status)),
      ),
    )
    .map((check) => check.name);
}

/** A sandboxed agent's check, or the baseline's beside one, that failed with Node's `fetch failed`. */
export function fetchFailedInSandbox(summary: RaceSummary): boolean {
  const sandboxed = summary.agents.filter(
    (agent) => typeof agent.sandbox === 'string' && agent.sandbox !== '',
  );
  if (sandboxed.length === 0) return false;
  const checks = [...sandboxed.flatMap((agent) => agent.checks ?? []), ...(summary.baseline?.checks ?? [])];
  return checks.some(
    (check) => failed(check.status) && check.where !== 'container' && /\bfetch failed\b/.test(check.output),
  );
}

/** The hint for checks failing on the base too, naming what the worktrees lack; null when they lack nothing. */
export function missingFilesHint(checks: readonly string[], missing: readonly string[]): string | null {
  if (checks.length === 0 || missing.length === 0) return null;
  const named = missing.slice(0, NAMED).join(', ');
  const more = missing.length > NAMED ? ` and ${missing.length - NAMED} more` : '';
  const which = checks.length === 1 ? `check ${checks[0]} fails` : `checks ${checks.join(', ')} fail`;
  return (
    `${which} on the base commit too, so not because of any result; the worktrees lack ignored files ` +
    `your checkout has (${named}${more}): list the ones the checks need in ${WORKTREE_INCLUDE} ` +
    `(or [setup] copy in hydra.toml; dependencies: [setup] share or [setup] run), see docs/setup-copy.md`
  );
}

export const FETCH_FAILED_HINT =
  'a check failed with `fetch failed` inside the sandbox: Node before 22.21 ignores the sandbox\u2019s ' +
  'proxy for its own fetch (hydra sets NODE_USE_ENV_PROXY=1, which Node 22.21+ and 24 follow); run the ' +
  "tests on a newer Node or give them a proxy-aware client (undici's EnvHttpProxyAgent), see docs/sandbox.md";

/** Every hint for this race's failed checks (reads the checkout's ignored files only when a check failed everywhere). */
export async function checkFailureHints(
  summary: RaceSummary,
  checkout: string,
  setup: { copy: readonly string[]; share: readonly string[] },
): Promise<string[]> {
  const hints: string[] = [];
  const everywhere = failingEverywhere(summary);
  if (everywhere.length > 0) {
    const missing = await ignoredNotCopied(checkout, setup.copy, setup.share).catch(() => []);
    const hint = missingFilesHint(everywhere, missing);
    if (hint !== null) hints.push(hint);
  }
  if (fetchFailedInSandbox(summary)) hints.push(FETCH_FAILED_HINT);
  return hints;
}

/** Notes the hints under the race's results (never fails the command). */
export async function noteCheckHints(
  ctx: CliContext,
  summary: RaceSummary,
  checkout: string,
  setup: { copy: readonly string[]; share: readonly string[] },
): Promise<void> {
  for (const hint of await checkFailureHints(summary, checkout, setup).catch(() => [])) noteHint(ctx, hint);
}
