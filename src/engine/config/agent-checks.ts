/**
 * Per-agent checks: `[[agents.<name>.checks]]` tables, with the fields of `[[checks]]`. One whose
 * name is a race-wide check's replaces that check's `run` and/or `timeout_s` for this agent only
 * (a test command for an agent working in another language); it may make the check a gate but never
 * unmake one (the agent would skip a gate the others must pass). A new name adds a check for this
 * agent only. The baseline runs the race-wide checks alone.
 */
import type { CheckSpec } from '../check-types.js';

/** One `[[agents.<name>.checks]]` table as parsed (`run` may be left out when the name is a race-wide check's). */
export interface AgentCheckConfig {
  name: string;
  run?: string | undefined;
  timeout_s?: number | undefined;
  gate?: boolean | undefined;
}

/**
 * What is wrong with one agent's checks, one line each naming the key: a name given twice, a new
 * check without `run`, `gate = false` on a race-wide gate (`raceChecks`, and where they come from).
 */
export function agentCheckProblems(
  agent: string,
  checks: readonly AgentCheckConfig[],
  raceChecks: readonly CheckSpec[],
  where: { file: string; raceChecks: string },
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [index, check] of checks.entries()) {
    const key = `${where.file}: agents.${agent}.checks[${index}]`;
    if (seen.has(check.name))
      problems.push(`${key}.name: names ${check.name} twice; each check of an agent needs its own name`);
    seen.add(check.name);
    const shared = raceChecks.find((item) => item.name === check.name);
    if (shared === undefined && check.run === undefined)
      problems.push(
        `${key}.run is required: no race-wide check is named ${check.name}, so this agent's own check needs its command`,
      );
    if (shared?.gate === true && check.gate === false)
      problems.push(
        `${key}.gate: ${check.name} is a gate of the race (${where.raceChecks}), and an agent cannot skip a gate the others must pass; remove gate = false (run and timeout_s may differ)`,
      );
  }
  return problems;
}

/**
 * An agent's checks: the race-wide ones in order, each with this agent's `run`/`timeout_s`/`gate`
 * where it overrides it, then the checks only it has.
 */
export function checksOfAgent(
  raceChecks: readonly CheckSpec[],
  own: readonly AgentCheckConfig[],
  toMs: (seconds: number) => number,
  defaultTimeoutS: number,
): CheckSpec[] {
  const overridden = raceChecks.map((shared): CheckSpec => {
    const override = own.find((check) => check.name === shared.name);
    if (override === undefined) return shared;
    return {
      name: shared.name,
      run: override.run ?? shared.run,
      timeoutMs: override.timeout_s === undefined ? shared.timeoutMs : toMs(override.timeout_s),
      // Never weaker than the race's (agentCheckProblems refuses gate = false on a gate).
      gate: shared.gate || override.gate === true,
    };
  });
  const added = own
    .filter((check) => !raceChecks.some((shared) => shared.name === check.name))
    .map((check): CheckSpec => ({
      name: check.name,
      run: check.run ?? '',
      timeoutMs: toMs(check.timeout_s ?? defaultTimeoutS),
      gate: check.gate ?? false,
    }));
  return [...overridden, ...added];
}
