/**
 * `hydra clean`: removes what finished or dead races left behind (worktrees, `hydra/<run-id>/*`
 * branches, run records) and kills left-over agent processes of dead races, after checking they
 * are really hydra's (the HYDRA_RUN_ID marker in their environment, or a working directory inside
 * that run's worktrees). Races still in use by a live hydra are skipped. Nothing else is touched:
 * not the user's own branches (even one named hydra-something), not other worktrees.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { CleanReport } from '../types.js';
import { EngineError } from '../errors.js';
import { runGit } from '../git/index.js';
import { isInside, runRecordDir } from '../records/index.js';
import { cwdOf, groupMembers, processesOfRun } from '../process/index.js';
import { ownerAlive, readPidRecords, readRecordDir, recordedRunIds } from '../records/index.js';
import type { RunMeta } from '../records/index.js';
import { findRepoRoot } from '../git/index.js';
import { removeRunDirIfEmpty, removeWorktree } from '../git/index.js';

interface WorktreeEntry {
  path: string;
  branch: string | null;
}

async function listWorktrees(root: string): Promise<WorktreeEntry[]> {
  const { stdout } = await runGit(root, ['worktree', 'list', '--porcelain', '-z']);
  const entries: WorktreeEntry[] = [];
  let currentEntry: WorktreeEntry | null = null;
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      currentEntry = { path: field.slice('worktree '.length), branch: null };
      entries.push(currentEntry);
    } else if (field.startsWith('branch ') && currentEntry !== null) {
      currentEntry.branch = field.slice('branch '.length);
    }
  }
  return entries;
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

/** Left-over processes of a run: marked with its run id, or in a recorded group and inside its worktrees. */
function leftoverProcesses(recordDir: string, runId: string, meta: RunMeta): number[] {
  const found = new Set(processesOfRun(runId));
  const runDirs = [...new Set(meta.agents.map((agent) => path.dirname(agent.worktree)))];
  for (const record of readPidRecords(recordDir)) {
    for (const pid of groupMembers(record.pgid)) {
      const cwd = cwdOf(pid);
      if (cwd !== null && runDirs.some((dir) => isInside(dir, cwd))) found.add(pid);
    }
  }
  found.delete(process.pid);
  return [...found].sort((a, b) => a - b);
}

export async function cleanRuns(repoPath: string, options: { dryRun: boolean }): Promise<CleanReport> {
  const root = await findRepoRoot(path.resolve(repoPath));
  if (root === null) {
    throw new EngineError(
      'Refused',
      `${path.resolve(repoPath)} is not inside a git repository.`,
      'Run `hydra clean` inside the repository the races ran in.',
    );
  }
  const report: CleanReport = {
    dryRun: options.dryRun,
    removedWorktrees: [],
    removedBranches: [],
    removedRecords: [],
    killedProcesses: [],
    skipped: [],
  };
  const worktrees = await listWorktrees(root);

  for (const runId of recordedRunIds(root)) {
    const recordDir = runRecordDir(root, runId);
    const record = readRecordDir(recordDir, runId);
    const meta = record?.meta as RunMeta | undefined;
    if (meta !== undefined && ownerAlive(meta)) {
      report.skipped.push({ runId, reason: `still in use by hydra (pid ${meta.pid})` });
      continue;
    }
    if (meta !== undefined) {
      for (const pid of leftoverProcesses(recordDir, runId, meta)) {
        if (!options.dryRun) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            continue;
          }
        }
        report.killedProcesses.push(pid);
      }
    }
    const branches = await runBranches(root, runId);
    const recorded = new Set((meta?.agents ?? []).map((agent) => path.resolve(agent.worktree)));
    const targets = worktrees.filter(
      (entry) =>
        recorded.has(path.resolve(entry.path)) ||
        (entry.branch !== null && branches.includes(entry.branch.replace(/^refs\/heads\//, ''))),
    );
    const dirs = new Set([
      ...targets.map((entry) => entry.path),
      ...[...recorded].filter((dir) => existsSync(dir)),
    ]);
    for (const dir of dirs) {
      if (!options.dryRun) await removeWorktree(root, dir);
      report.removedWorktrees.push(dir);
    }
    for (const branch of branches) {
      if (!options.dryRun) await runGit(root, ['branch', '-D', branch]);
      report.removedBranches.push(branch);
    }
    if (!options.dryRun) {
      for (const dir of new Set([...recorded].map((worktree) => path.dirname(worktree))))
        await removeRunDirIfEmpty(dir);
      await rm(recordDir, { recursive: true, force: true });
    }
    report.removedRecords.push(recordDir);
  }
  if (!options.dryRun) await runGit(root, ['worktree', 'prune']);
  return report;
}
