/**
 * Cross-testing: each agent's new or changed test files, run alone, on the base commit, on its own
 * result and on every other agent's result (the files copied onto that tree). Each tree is a clean
 * detached checkout of its commit (`<run dir>/.crossbase`, `<run dir>/.cross-<agent>`), the
 * checks' mechanics; each run is a check (runCheck: the race's slots, its time limit, supervision,
 * redaction). Between two authors' files a checkout is put back to its commit.
 */
import { lstat, mkdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentName } from '../../agent-name.js';
import type { CheckSpec, CheckStatus, NewTestsSummary, NewTestStatus } from '../../check-types.js';
import type { CheckWhere } from '../../check-types.js';
import { RUN_ID_ENV } from '../../process/index.js';
import {
  createDetachedWorktree,
  pinCheckout,
  removeWorktree,
  runGit,
  runPinned,
  splitZ,
} from '../../git/index.js';
import { copyIncludedFiles } from '../../setup/index.js';
import { runCheck } from '../runner.js';
import { worktreeShares } from '../../setup/index.js';
import type { RacePlace } from '../../setup/index.js';
import { BASELINE_AGENT, BASELINE_LEASE } from '../../setup/index.js';
import { runSetup, setupLogFile } from '../../setup/index.js';
import { makeRemoteCheckout } from '../../container/index.js';
import type { CommandContainer, RemoteCheckout } from '../../container/index.js';
import { checkWhere } from '../runner.js';
import { isTestSupport } from './rules.js';
import { planTests, projectRunners, runnerOf } from './plan.js';
import type { PlannedTest, Runners } from './plan.js';

/**
 * What cross-testing needs: the race's place (setup/run-place.ts; its `container` is where the base's
 * tree runs, as the baseline's checks do), the base, the checks and the agents' results. Each tree's
 * setup log goes beside the place's setup log (`setup-cross-<tree>.log`).
 */
export type CrossTestInput = RacePlace & {
  baseRef: string;
  /** The run's worktree directory; the checkouts go inside it. */
  runDir: string;
  /** The race's checks: cross-testing runs only when there are some, with the runners they invoke. */
  checks: CheckSpec[];
  /** Completed agents with a result, by the branch holding it. */
  agents: Array<{ agent: AgentName; branch: string }>;
  /** Where each result's tree runs: where its agent's checks run (a container agent's image: container/exec.ts); absent: here. */
  agentContainers?: Record<AgentName, CommandContainer | null>;
};

export interface CrossTestOutput {
  /** By author: its new tests and how they fared (absent for an agent that added none). */
  results: Record<AgentName, NewTestsSummary>;
  /** Why cross-testing could not run, or null. */
  error: string | null;
}

/** One agent's result to test on and, when it wrote tests, what they are. */
interface Tree {
  /** The agent, or null for the base. */
  agent: AgentName | null;
  commit: string;
}

interface Authored {
  agent: AgentName;
  commit: string;
  tests: PlannedTest[];
  /** Copied onto another tree: the test files and what they need. */
  copied: Array<{ file: string; content: string }>;
  notRun: number;
}

const statusOf = (status: CheckStatus): NewTestStatus =>
  status === 'passed' ? 'passed' : status === 'error' ? 'error' : 'failed';

const crossDirOf = (runDir: string, agent: AgentName | null): string =>
  path.join(runDir, agent === null ? '.crossbase' : `.cross-${agent}`);

const showBlob = async (root: string, commit: string, file: string): Promise<string | null> => {
  const result = await runGit(root, ['cat-file', 'blob', `${commit}:${file}`], { okExitCodes: [128] }).catch(
    () => null,
  );
  return result === null || result.exitCode !== 0 ? null : result.stdout;
};

const parseJson = (text: string | null): Record<string, unknown> | null => {
  try {
    const value: unknown = text === null ? null : JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * Writes a file inside `root` without following a symlink: a result could plant `test -> /home`
 * to make hydra write outside the checkout.
 */
export async function writeInside(root: string, file: string, content: string): Promise<void> {
  const parts = file.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    const stat = await lstat(dir).catch(() => null);
    if (stat === null) await mkdir(dir);
    else if (!stat.isDirectory())
      throw new Error(`${file}: ${path.relative(root, dir)} is not a directory here`);
  }
  const target = path.join(dir, parts.at(-1) ?? '');
  const stat = await lstat(target).catch(() => null);
  if (stat !== null && !stat.isFile()) {
    if (!stat.isSymbolicLink()) throw new Error(`${file} is not a file here`);
    await unlink(target);
  }
  await writeFile(target, content);
}

/** An agent's tests and the files copied with them, read from its commit. */
async function authored(
  input: CrossTestInput,
  runners: Runners,
  agent: AgentName,
  commit: string,
): Promise<Authored> {
  const diff = await runGit(input.repoRoot, [
    'diff',
    '--name-only',
    '-z',
    '--no-renames',
    '--diff-filter=AM',
    input.baseRef,
    commit,
  ]);
  const candidates = splitZ(diff.stdout).filter(
    (file) => runnerOf(runners, file) !== undefined || isTestSupport(file),
  );
  const contents = new Map<string, string>();
  for (const file of candidates) {
    const content = await showBlob(input.repoRoot, commit, file);
    if (content !== null) contents.set(file, content);
  }
  const plan = planTests(
    runners,
    candidates.filter((file) => contents.has(file)),
    (file) => contents.get(file) ?? '',
  );
  return {
    agent,
    commit,
    tests: plan.tests,
    copied: plan.copied.map((file) => ({ file, content: contents.get(file) ?? '' })),
    notRun: plan.notRun,
  };
}

/** Where a tree's setup and tests run: the base's where the baseline's checks run, a result's where its agent's do. */
const treeContainer = (input: CrossTestInput, tree: Pick<Tree, 'agent'>): CommandContainer | null =>
  (tree.agent === null ? input.container : input.agentContainers?.[tree.agent]) ?? null;

/** Puts a checkout back to its commit: what a test or a copy wrote is gone (ignored files stay). */
const putBack = async (root: string, dir: string): Promise<void> => {
  // Pinned to the checkout's entry: a test can rewrite its `.git` to point at a git directory of its own.
  const { pinned, dotGit } = await pinCheckout(root, dir);
  if (dotGit !== null) await writeFile(path.join(dir, '.git'), `gitdir: ${pinned.gitDir}\n`);
  await runPinned(pinned, ['reset', '--hard', '--quiet']);
  await runPinned(pinned, ['clean', '-fdq']);
};

/** Every author's tests on one tree; by author, then file. Never throws. */
async function testTree(
  input: CrossTestInput,
  tree: Tree,
  authors: readonly Authored[],
  signal: AbortSignal,
): Promise<Map<AgentName, Map<string, NewTestStatus>>> {
  const out = new Map<AgentName, Map<string, NewTestStatus>>();
  const failAll = (from: number): void => {
    for (const author of authors.slice(from))
      out.set(author.agent, new Map(author.tests.map((test) => [test.file, 'error' as const])));
  };
  const dir = crossDirOf(input.runDir, tree.agent);
  let copied: readonly string[] = [];
  try {
    await createDetachedWorktree(input.repoRoot, dir, tree.commit, {
      signal,
      step: `git worktree add for cross-testing on ${tree.agent ?? 'the base'}`,
      graceMs: input.graceMs,
      env: { [RUN_ID_ENV]: input.runId },
      processes: input.processes,
      owner: input.runId,
    });
    ({ copied } = await copyIncludedFiles({
      checkout: input.repoRoot,
      target: dir,
      patterns: input.copy ?? [],
    }));
  } catch {
    // An interrupted `worktree add` (a cancel) can leave a half-made checkout: it goes too.
    await removeWorktree(input.repoRoot, dir, input.runDir).catch(() => undefined);
    failAll(0);
    return out;
  }
  let remote: RemoteCheckout | null = null;
  try {
    const image = treeContainer(input, tree);
    // A remote engine: the same checkout in a volume there (container/remote-checkout.ts), where
    // the tests run in the image; each author's files go in after they were written here.
    if (image?.remote === true)
      remote = await makeRemoteCheckout(image, {
        repoRoot: input.repoRoot,
        commit: tree.commit,
        dir,
        local: dir,
        copied,
        signal,
      });
    const container: CommandContainer | null =
      image === null || remote === null ? image : { ...image, volume: remote.volume };
    // Who the tree is (HYDRA_AGENT) and its ports: the agent whose result it is, or the baseline.
    const identity = {
      agent: tree.agent ?? BASELINE_AGENT,
      // No free block: the tests run without one, as they would without ports.
      port:
        input.ports === undefined
          ? null
          : await input.ports.lease(tree.agent ?? BASELINE_LEASE).catch(() => null),
    };
    // Set up once per checkout (putBack keeps ignored files): a failed setup makes every test an error.
    if (input.setup !== undefined && input.setup !== null) {
      const name = `cross-${tree.agent ?? 'base'}`;
      const outcome = await runSetup(
        { ...input.setup, logFile: setupLogFile(path.dirname(input.setup.logFile), name) },
        {
          cwd: dir,
          repoRoot: input.repoRoot,
          runId: input.runId,
          owner: `setup:${name}`,
          processes: input.processes,
          graceMs: input.graceMs,
          signal,
          ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
          shares: worktreeShares(input.shared ?? [], dir),
          identity,
          container,
        },
      );
      if (outcome.status !== 'ok') {
        failAll(0);
        return out;
      }
    }
    for (const [index, author] of authors.entries()) {
      const statuses = new Map<string, NewTestStatus>();
      out.set(author.agent, statuses);
      try {
        // Its own tree holds its files already.
        if (author.agent !== tree.agent) {
          for (const { file, content } of author.copied) await writeInside(dir, file, content);
          await remote?.add(
            dir,
            author.copied.map(({ file }) => file),
          );
        }
        for (const [n, test] of author.tests.entries()) {
          const spec: CheckSpec = {
            name: `${author.agent}:${n + 1}`,
            run: test.run,
            timeoutMs: test.timeoutMs,
            gate: false,
          };
          const run = await runCheck(spec, {
            cwd: dir,
            runId: input.runId,
            owner: `check:cross:${tree.agent ?? 'base'}`,
            identity,
            processes: input.processes,
            slots: input.slots,
            graceMs: input.graceMs,
            signal,
            ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
            shares: worktreeShares(input.shared ?? [], dir),
            container,
          });
          statuses.set(test.file, statusOf(run.status));
        }
        if (index < authors.length - 1) {
          await putBack(input.repoRoot, dir);
          await remote?.putBack();
        }
      } catch {
        for (const test of author.tests) if (!statuses.has(test.file)) statuses.set(test.file, 'error');
        failAll(index + 1);
        break;
      }
    }
    return out;
  } catch {
    // The remote checkout could not be made (or was cancelled): nothing ran on this tree.
    failAll(0);
    return out;
  } finally {
    await remote?.remove();
    await removeWorktree(input.repoRoot, dir, input.runDir).catch(() => undefined);
  }
}

/** Each author's summary from the statuses of every tree. */
const summarize = (
  authors: readonly Authored[],
  trees: readonly Tree[],
  statuses: ReadonlyArray<Map<AgentName, Map<string, NewTestStatus>>>,
  whereOf: (agent: AgentName | null) => CheckWhere,
): Record<AgentName, NewTestsSummary> => {
  const statusOn = (treeIndex: number, author: AgentName, file: string): NewTestStatus =>
    statuses[treeIndex]?.get(author)?.get(file) ?? 'error';
  const results: Record<AgentName, NewTestsSummary> = {};
  for (const author of authors) {
    if (author.tests.length === 0) continue;
    const selfIndex = trees.findIndex((tree) => tree.agent === author.agent);
    const others = trees.flatMap((tree, index) =>
      tree.agent === null || tree.agent === author.agent ? [] : [{ agent: tree.agent, index }],
    );
    const tests = author.tests.map((test) => ({
      file: test.file,
      runner: test.runner,
      onBase: statusOn(0, author.agent, test.file),
      onSelf: statusOn(selfIndex, author.agent, test.file),
      onOthers: Object.fromEntries(
        others.map((other) => [other.agent, statusOn(other.index, author.agent, test.file)]),
      ),
    }));
    results[author.agent] = {
      count: tests.length,
      failOnBase: tests.filter((test) => test.onBase === 'failed').length,
      passOnSelf: tests.filter((test) => test.onSelf === 'passed').length,
      reproductions: tests.filter((test) => test.onBase === 'failed' && test.onSelf === 'passed').length,
      onOthers: Object.fromEntries(
        others.map((other) => [
          other.agent,
          {
            passed: tests.filter((test) => test.onOthers[other.agent] === 'passed').length,
            failed: tests.filter((test) => test.onOthers[other.agent] === 'failed').length,
          },
        ]),
      ),
      tests,
      ...(author.notRun === 0 ? {} : { notRun: author.notRun }),
      where: {
        base: whereOf(null),
        self: whereOf(author.agent),
        others: Object.fromEntries(others.map((other) => [other.agent, whereOf(other.agent)])),
      },
    };
  }
  return results;
};

/** Finds every agent's new tests and runs them on every tree. Never throws. */
export async function runCrossTests(input: CrossTestInput, signal: AbortSignal): Promise<CrossTestOutput> {
  if (input.checks.length === 0 || input.agents.length === 0) return { results: {}, error: null };
  try {
    // A branch gone since (merged, deleted by hand) leaves its agent out.
    const resolved = (
      await Promise.all(
        input.agents.map(async ({ agent, branch }) => {
          const head = await runGit(
            input.repoRoot,
            ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`],
            { okExitCodes: [1] },
          );
          return { agent, commit: head.stdout.trim() };
        }),
      )
    ).filter((tree) => tree.commit !== '');
    const packageJson = parseJson(await showBlob(input.repoRoot, input.baseRef, 'package.json'));
    const runners = projectRunners(input.checks, packageJson);
    const authors = await Promise.all(
      resolved.map(({ agent, commit }) => authored(input, runners, agent, commit)),
    );
    const writing = authors.filter((author) => author.tests.length > 0);
    if (writing.length === 0 || signal.aborted) return { results: {}, error: null };
    const trees: Tree[] = [{ agent: null, commit: input.baseRef }, ...resolved];
    const statuses = await Promise.all(trees.map((tree) => testTree(input, tree, writing, signal)));
    const whereOf = (agent: AgentName | null): CheckWhere => checkWhere(treeContainer(input, { agent }));
    return { results: summarize(writing, trees, statuses, whereOf), error: null };
  } catch (error) {
    return { results: {}, error: error instanceof Error ? error.message : String(error) };
  } finally {
    // The run's directory, if nothing else is left in it (a cancelled race's clean-up may be done).
    for (const empty of [input.runDir, path.dirname(input.runDir)])
      if (
        !(await rmdir(empty).then(
          () => true,
          () => false,
        ))
      )
        break;
  }
}
