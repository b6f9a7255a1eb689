/**
 * `hydra clean`: removes what finished or dead races left behind (worktrees, `hydra/<run-id>/*`
 * branches, run records) and kills left-over agent processes of dead races. Records are data,
 * never authority: a worktree is removed only when git lists it and it lies in hydra's directory for
 * that run, a process is killed only when it carries the run's marker and started after the run,
 * and a record committed to the repository is not hydra's and is left alone. Whatever a record names
 * that fails those checks is reported as refused, with why. Races still in use by a live hydra are
 * skipped. Nothing else is touched: not the user's own branches (even one named hydra-something),
 * not other worktrees.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { runGit } from '../git/index.js';
import {
  defaultWorktreeRoot,
  loadRun,
  ownerAlive,
  readPidRecords,
  recordedRunIds,
  recordsRoot,
  runIdTime,
  runRecordDir,
  trackedRunIds,
  worktreePoolDir,
} from '../records/index.js';
import type { LoadedRun, RunMeta } from '../records/index.js';
import { groupMembers, signallableProcessesOfRun } from '../process/index.js';
import { endOrphanedHelpers } from '../sandbox/index.js';
import { describeHolder, tryLockRun } from '../locks/index.js';
import { findRepoRoot } from '../git/index.js';
import { pooledWorktrees, removeRunDirIfEmpty, removeWorktree } from '../git/index.js';
import { sweepContainers } from './container-sweep.js';
import type { ContainerSweep } from './container-sweep.js';
import { checkRecordedWorktree, listWorktrees, reallyInside, realOrSelf, runArea } from './run-targets.js';
import type { RunArea, WorktreeEntry } from './run-targets.js';

export interface CleanReport {
  dryRun: boolean;
  removedWorktrees: string[];
  removedBranches: string[];
  removedRecords: string[];
  killedProcesses: number[];
  /** Runs left alone (still running, or unmerged results kept on purpose). */
  skipped: Array<{ runId: string; reason: string }>;
  /** What a record named but hydra refused to touch (a path or process that is not the run's), and why. */
  refused: Array<{ runId: string; target: string; reason: string }>;
  /**
   * Merged runs cleaned this time whose record was kept, so `hydra runs` still lists them (the
   * history); `forgetMerged` removes those records too.
   */
  keptHistory?: string[];
  /** Agents in containers: the runs' containers and volumes removed, `<engine>: <id> (run <id>)`. */
  removedContainers?: string[];
  removedVolumes?: string[];
  /** Engines that did not answer (their containers stay for the next clean), and removals that failed. */
  warnings?: string[];
}

export interface CleanOptions {
  dryRun: boolean;
  /** Only these runs (ids as recorded); every run when absent. */
  runIds?: readonly string[];
  /** Only runs that were merged. */
  merged?: boolean;
  /** Only runs that started at least this long ago (milliseconds before `now`). */
  olderThanMs?: number;
  /** The clock `olderThanMs` counts from (default: Date.now()). */
  now?: number;
  /** Remove the worktrees only: the branches (the results) and the record stay. */
  keepResults?: boolean;
  /** Also remove the records of merged runs, which are otherwise kept as `hydra runs` history. */
  forgetMerged?: boolean;
  /** The worktree root the races used; defaults to HYDRA_WORKTREE_ROOT or ~/.cache/hydra/worktrees. */
  worktreeRoot?: string;
  /**
   * Also remove the runs' containers and volumes (container-sweep.ts) on these engines and the
   * environment's: those of the runs cleaned, or, with no scope given, every one of the repository
   * but those of runs still in use. Absent: no engine is asked.
   */
  containers?: ContainerSweep;
}

async function runBranches(root: string, runId: string): Promise<string[]> {
  const { stdout } = await runGit(root, [
    'for-each-ref',
    '--format=%(refname)',
    `refs/heads/hydra/${runId}/`,
  ]);
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((ref) => ref.startsWith(`refs/heads/hydra/${runId}/`))
    .map((ref) => ref.slice('refs/heads/'.length));
}

interface RunToClean {
  root: string;
  runId: string;
  meta: RunMeta | null;
  area: RunArea;
  dryRun: boolean;
  /** Worktrees only (--keep-results). */
  keepResults: boolean;
  /** Keep the record (a merged run's history in `hydra runs`). */
  keepRecord: boolean;
  report: CleanReport;
}

/** Kills the run's marked processes; says which recorded process groups hold processes that are not. */
function stopLeftovers({ root, runId, meta, dryRun, report }: RunToClean): void {
  const startedAt = meta?.startedAt ?? runIdTime(runId);
  const ours = signallableProcessesOfRun(runId, startedAt).filter((pid) => pid !== process.pid);
  for (const record of readPidRecords(runRecordDir(root, runId))) {
    const others = groupMembers(record.pgid).filter((pid) => !ours.includes(pid));
    if (others.length > 0) {
      report.refused.push({
        runId,
        target: `process group ${record.pgid} (agents/${record.agent}.pid)`,
        reason: `process ${others.join(', ')} does not carry run ${runId}'s marker or started before the run, so it is not hydra's: not signalled`,
      });
    }
  }
  for (const pid of ours.sort((a, b) => a - b)) {
    if (!dryRun) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        continue;
      }
    }
    report.killedProcesses.push(pid);
  }
}

/** Refusals for worktree paths the record names that hydra may not touch. */
function refuseRecordedWorktrees(run: RunToClean, worktrees: readonly WorktreeEntry[]): void {
  for (const agent of run.meta?.agents ?? []) {
    const verdict = checkRecordedWorktree(agent.worktree, run.area, worktrees);
    if (verdict.ok === false)
      run.report.refused.push({ runId: run.runId, target: agent.worktree, reason: verdict.reason });
  }
}

/** Removes the run's worktrees (those git lists in hydra's directory for the run) and that directory. */
async function removeRunWorktrees(run: RunToClean, worktrees: readonly WorktreeEntry[]): Promise<void> {
  const { root, area, dryRun, report } = run;
  const ours = worktrees.filter((item) => reallyInside(area.runDir, item.real));
  for (const entry of ours) {
    if (!dryRun) await removeWorktree(root, entry.path, area.runDir);
    report.removedWorktrees.push(entry.path);
  }
  const stat = lstatSync(area.runDir, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isDirectory() && reallyInside(area.repoDir, area.runDir)) {
    // What git no longer knows (a half-made worktree, scratch files) is still hydra's own.
    const realRunDir = realOrSelf(area.runDir);
    const listed = new Set(ours.map((entry) => path.relative(realRunDir, entry.real).split(path.sep)[0]));
    const own = new Set(['.scratch', '.git-private', '.state']);
    for (const name of readdirSync(area.runDir).filter((item) => !own.has(item) && !listed.has(item)))
      report.removedWorktrees.push(path.join(area.runDir, name));
    if (!dryRun) await rm(area.runDir, { recursive: true, force: true });
  } else if (stat.isSymbolicLink()) {
    // A link in hydra's own directory: remove the link, never what it points at.
    if (!dryRun) await rm(area.runDir, { force: true });
  }
  if (!dryRun) await removeRunDirIfEmpty(area.runDir);
}

/**
 * Deletes the run's branches, except one checked out in a worktree that is not hydra's; returns
 * how many were kept that way.
 */
async function removeRunBranches(run: RunToClean, kept: readonly WorktreeEntry[]): Promise<number> {
  const { root, runId, dryRun, report } = run;
  let held = 0;
  for (const branch of await runBranches(root, runId)) {
    const holder = kept.find((entry) => entry.branch === branch);
    if (holder !== undefined) {
      held += 1;
      report.refused.push({
        runId,
        target: holder.path,
        reason: `a worktree outside hydra's worktree directory for this run (${run.area.runDir}) has ${branch} checked out, so neither is removed (if the race ran with another HYDRA_WORKTREE_ROOT, run hydra clean with that one)`,
      });
      continue;
    }
    if (!dryRun) await runGit(root, ['branch', '-D', branch]);
    report.removedBranches.push(branch);
  }
  return held;
}

async function cleanRun(run: RunToClean): Promise<void> {
  const { root, runId, dryRun, report } = run;
  stopLeftovers(run);
  const worktrees = await listWorktrees(root);
  refuseRecordedWorktrees(run, worktrees);
  await removeRunWorktrees(run, worktrees);
  // The results (branches) and the record that finds them again stay.
  if (run.keepResults) return;
  const held = await removeRunBranches(
    run,
    worktrees.filter((entry) => !reallyInside(run.area.runDir, entry.real)),
  );
  if (held > 0) {
    // The record is what finds the run again (with the right worktree root): it stays while its branch does.
    report.skipped.push({
      runId,
      reason: `its record is kept while a worktree outside ${run.area.runDir} holds one of its branches (see refused above)`,
    });
    return;
  }
  if (run.keepRecord) return;
  if (!dryRun) await rm(runRecordDir(root, runId), { recursive: true, force: true });
  report.removedRecords.push(runRecordDir(root, runId));
}

/** Whether a run is in the scope the options give (the runs named, merged ones, older ones). */
function inScope(loaded: LoadedRun, runId: string, options: CleanOptions): boolean {
  if (options.runIds !== undefined && !options.runIds.includes(runId)) return false;
  if (options.merged === true && (loaded.kind !== 'ok' || loaded.record.merge === null)) return false;
  if (options.olderThanMs !== undefined) {
    const meta = loaded.kind === 'ok' ? loaded.record.meta : loaded.kind === 'damaged' ? loaded.meta : null;
    const startedAt = meta?.startedAt ?? runIdTime(runId);
    if ((options.now ?? Date.now()) - startedAt < options.olderThanMs) return false;
  }
  return true;
}

/** How much of a report lists removals, to tell whether cleaning one run removed anything. */
const removals = (report: CleanReport): number =>
  report.removedWorktrees.length + report.removedBranches.length + report.killedProcesses.length;

/** Why a run is left alone, or null when it can be cleaned. */
function reasonToKeep(loaded: LoadedRun, runId: string): string | null {
  if (loaded.kind === 'foreign') return `${loaded.problem}; nothing of it was touched`;
  if (loaded.kind === 'ok' || loaded.meta !== null) {
    const meta = loaded.kind === 'ok' ? loaded.record.meta : loaded.meta;
    return meta !== null && ownerAlive(meta) ? `still in use by hydra (pid ${meta.pid})` : null;
  }
  // A damaged meta.json cannot say whether its hydra lives: running agents of the run mean it may.
  const running = signallableProcessesOfRun(runId, runIdTime(runId));
  return running.length === 0
    ? null
    : `its record is damaged (${loaded.problem}) and process ${running.join(', ')} of the run still runs; stop it (or wait for its race to end), then run hydra clean again`;
}

/** Removes `.hydra/runs` and `.hydra` once no record is left in them. */
async function removeEmptyRecordDirs(root: string): Promise<void> {
  for (const dir of [recordsRoot(root), path.dirname(recordsRoot(root))]) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

export async function cleanRuns(repoPath: string, options: CleanOptions): Promise<CleanReport> {
  const root = await findRepoRoot(path.resolve(repoPath));
  if (root === null) {
    throw new EngineError({
      kind: 'Refused',
      message: `${path.resolve(repoPath)} is not inside a git repository.`,
      hint: 'Run `hydra clean` inside the repository the races ran in.',
    });
  }
  const report: CleanReport = {
    dryRun: options.dryRun,
    removedWorktrees: [],
    removedBranches: [],
    removedRecords: [],
    killedProcesses: [],
    skipped: [],
    refused: [],
    keptHistory: [],
  };
  const worktreeRoot = options.worktreeRoot ?? defaultWorktreeRoot();
  const tracked = await trackedRunIds(root);
  // For the containers: the runs cleaned, and those left alone whatever the scope.
  const cleaned: string[] = [];
  const spared = new Set<string>();
  for (const runId of recordedRunIds(root)) {
    const loaded = loadRun(root, runId, tracked, false);
    if (!inScope(loaded, runId, options)) continue;
    const keep = reasonToKeep(loaded, runId);
    if (keep !== null) {
      spared.add(runId);
      report.skipped.push({ runId, reason: keep });
      continue;
    }
    // A run another command is working on (a follow-up, a merge, a dashboard) is left to it.
    const lock = await tryLockRun(root, runId, 'hydra clean');
    if (!('release' in lock)) {
      spared.add(runId);
      report.skipped.push({
        runId,
        reason: `in use by ${describeHolder(lock.busy)}; run hydra clean again once it has finished`,
      });
      continue;
    }
    const meta = loaded.kind === 'ok' ? loaded.record.meta : loaded.kind === 'damaged' ? loaded.meta : null;
    const history = loaded.kind === 'ok' && loaded.record.merge !== null && options.forgetMerged !== true;
    const before = removals(report);
    try {
      await cleanRun({
        root,
        runId,
        meta,
        area: runArea(worktreeRoot, root, runId),
        dryRun: options.dryRun,
        keepResults: options.keepResults === true,
        keepRecord: history,
        report,
      });
      cleaned.push(runId);
    } finally {
      lock.release();
    }
    if (history && options.keepResults !== true && removals(report) > before) report.keptHistory?.push(runId);
  }
  if (options.containers !== undefined) {
    const everything =
      options.runIds === undefined && options.merged !== true && options.olderThanMs === undefined;
    // No scope given: every container of the repository, whether its run has a record or not.
    const swept = await sweepContainers(root, options.containers, {
      ...(everything ? {} : { runIds: cleaned }),
      spare: spared,
      keepKept: options.keepResults === true,
      dryRun: options.dryRun,
    });
    report.removedContainers = swept.containers;
    report.removedVolumes = swept.volumes;
    report.warnings = swept.warnings;
  }
  // A clean of every run (no run named) also empties the warm worktree pool (`worktree_pool`).
  if (options.runIds === undefined) await cleanPool(root, worktreeRoot, options.dryRun, report);
  // The sandbox library's helpers (socat bridges) of a hydra killed outright belong to no run: any
  // clean ends those whose hydra is gone, and removes their sockets.
  report.killedProcesses.push(...(await endOrphanedHelpers(options.dryRun)));
  if (!options.dryRun) {
    await runGit(root, ['worktree', 'prune']);
    await removeEmptyRecordDirs(root);
  }
  return report;
}

/**
 * Removes the idle worktrees of the repository's pool (detached, on no branch; a race holding one
 * has moved it into its own run's directory), then the pool's directory.
 */
async function cleanPool(
  root: string,
  worktreeRoot: string,
  dryRun: boolean,
  report: CleanReport,
): Promise<void> {
  const pool = worktreePoolDir(worktreeRoot, root);
  for (const dir of await pooledWorktrees(pool)) {
    if (!dryRun) await removeWorktree(root, dir, pool);
    report.removedWorktrees.push(dir);
  }
  if (!dryRun) await removeRunDirIfEmpty(pool);
}
