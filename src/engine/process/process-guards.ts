/**
 * What keeps a race's processes from outliving it on this machine, as `hydra doctor` says it: the
 * containment (a PID namespace per agent, or process groups and the run marker: containment.ts),
 * the process table the marker is looked up in (/proc, or ps: ps-table.ts), and the watchdog that
 * stops a killed hydra's processes (watchdog.ts); `hydra clean` sweeps what a dead race left by
 * the same marker. Each missing piece is named with what it costs.
 */
import type { Containment } from './containment.js';
import { describeContainment } from './containment.js';
import { procTable, psRows } from './ps-table.js';
import { watchdogProblem } from './watchdog.js';

export interface ProcessGuards {
  containment: Containment;
  /** Where a run's processes are found by their marker: /proc, ps, or nowhere. */
  table: 'proc' | 'ps' | 'none';
  /** Why there is no watchdog here; null when a race starts one. */
  watchdogProblem: string | null;
}

export const processGuards = (
  containment: Containment,
  env: NodeJS.ProcessEnv = process.env,
): ProcessGuards => ({
  containment,
  table: procTable(env) ? 'proc' : psRows({ pid: process.pid }).length > 0 ? 'ps' : 'none',
  watchdogProblem: watchdogProblem(env),
});

/** Whether every guard is there: a PID namespace, or process groups with a table and the watchdog. */
export const guardsComplete = (guards: ProcessGuards): boolean =>
  guards.table !== 'none' && guards.watchdogProblem === null;

/** doctor's containment line (without its label). */
export const describeProcessGuards = (guards: ProcessGuards): string => {
  const parts = [describeContainment(guards.containment)];
  const grouped = guards.containment.kind === 'process-group';
  if (grouped && guards.table !== 'none')
    parts.push(
      `the run marker is read ${guards.table === 'proc' ? 'in /proc' : 'with ps'}, and \`hydra clean\` ends by it what a dead race left`,
    );
  if (grouped && guards.table === 'none')
    parts.push(
      "missing: a process table (no /proc, and `ps` did not answer), so nothing finds a run's processes by the marker",
    );
  if (guards.watchdogProblem === null && grouped)
    parts.push(
      "should hydra be killed, its watchdog stops the run's marked processes and the process groups it recorded",
    );
  if (guards.watchdogProblem !== null)
    parts.push(
      `missing: the watchdog (${guards.watchdogProblem}), so a hydra killed outright leaves its agents running until \`hydra clean\``,
    );
  return parts.join('; ');
};
