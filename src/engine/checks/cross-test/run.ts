/**
 * Cross-testing: each agent's new or changed test files, run alone, on the base commit, on its own
 * result and on every other agent's result. Each tree is a clean detached checkout of its commit,
 * the checks' mechanics; each run is a check (runCheck: the race's slots, its time limit,
 * supervision, redaction), in the OS sandbox when the race's agents are (writable: the checkout and
 * a temp directory of its own).
 *
 * A test must not be able to tell whose tree it runs in (issue 34: a "reproduction" that asserts
 * `HYDRA_AGENT === 'cheat'` failed on every rival): the trees are tested one after another, in a
 * random order, at one path (`<run dir>/.cross`), with one environment (HYDRA_AGENT `cross-test`,
 * one port block) and an empty temp directory each; every author's files are written onto every
 * tree, its own too, with their git mode. Between two authors' files, and after a test that changed
 * its tree, the checkout is put back to its commit.
 */
import { randomInt } from 'node:crypto';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgentName } from '../../agent-name.js';
import type {
  CheckSpec,
  CheckStatus,
  NewTestRun,
  NewTestsSummary,
  NewTestStatus,
} from '../../check-types.js';
import type { CheckWhere } from '../../check-types.js';
import { RUN_ID_ENV } from '../../process/index.js';
import { createDetachedWorktree, removeWorktree, runGit, splitZ } from '../../git/index.js';
import { copyIncludedFiles } from '../../setup/index.js';
import { runCheck } from '../runner.js';
import { worktreeShares } from '../../setup/index.js';
import type { RacePlace } from '../../setup/index.js';
import { BASELINE_LEASE } from '../../setup/index.js';
import { runSetup, setupLogFile } from '../../setup/index.js';
import { makeRemoteCheckout } from '../../container/index.js';
import type { CommandContainer, RemoteCheckout } from '../../container/index.js';
import { checkWhere } from '../runner.js';
import { treePolicy } from '../../sandbox/index.js';
import { isTestSupport } from './rules.js';
import { isReproduction } from './evidence.js';
import { neutralCommit, switchTo, treeChanges, writeInside } from './tree.js';
import type { CopiedFile } from './tree.js';
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
  /** Written onto every tree (its own too): the test files and what they need. */
  copied: CopiedFile[];
  notRun: number;
}

const statusOf = (status: CheckStatus): NewTestStatus =>
  status === 'passed' ? 'passed' : status === 'error' ? 'error' : 'failed';

/** Where every tree is tested, one after another: one path, whoever's tree it is. */
const crossDirOf = (runDir: string): string => path.join(runDir, '.cross');

/** The tests' temp directory (TMPDIR in the sandbox), emptied for each tree. */
const crossTmpOf = (runDir: string): string => path.join(runDir, '.cross-tmp');

/** The temporary index each tree's neutral commits are made with (tree.ts). */
const crossIndexOf = (runDir: string): string => path.join(runDir, '.cross-index');

/** HYDRA_AGENT of every cross-testing tree: the same on the base and on each result. */
const CROSS_AGENT = 'cross-test';

/** The setup log's and the process marker's name: one for every tree (the log is per tree). */
const CROSS_OWNER = 'cross';

/** `items` in a random order (Fisher-Yates): which run is a test's own tree is not its place in line. */
const shuffled = <T>(items: readonly T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

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

/** An agent's tests and the files copied with them, read from its commit. */
async function authored(
  input: CrossTestInput,
  runners: Runners,
  agent: AgentName,
  commit: string,
): Promise<Authored> {
  const diff = await runGit(input.repoRoot, [
    'diff',
    '--raw',
    '-z',
    '--no-renames',
    '--no-abbrev',
    '--diff-filter=AM',
    input.baseRef,
    commit,
  ]);
  // `:<old mode> <new mode> <old id> <new id> <status>` NUL `<path>` NUL, per file.
  const entries = splitZ(diff.stdout);
  const modes = new Map<string, string>();
  const blobs = new Map<string, string>();
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const [, mode, , blob] = (entries[i] ?? '').split(' ');
    modes.set(entries[i + 1] ?? '', mode ?? '100644');
    blobs.set(entries[i + 1] ?? '', blob ?? '');
  }
  const candidates = [...modes.keys()].filter(
    // Files only: not a symlink (120000) or a submodule (160000).
    (file) =>
      ['100644', '100755'].includes(modes.get(file) ?? '') &&
      (runnerOf(runners, file) !== undefined || isTestSupport(file)),
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
    copied: plan.copied.map((file) => ({
      file,
      content: contents.get(file) ?? '',
      mode: modes.get(file) ?? '100644',
      blob: blobs.get(file) ?? '',
    })),
    notRun: plan.notRun,
  };
}

/** Where a tree's setup and tests run: the base's where the baseline's checks run, a result's where its agent's do. */
const treeContainer = (input: CrossTestInput, tree: Pick<Tree, 'agent'>): CommandContainer | null =>
  (tree.agent === null ? input.container : input.agentContainers?.[tree.agent]) ?? null;

/** How one test file fared on one tree, and the tracked files it changed there (treeChanges). */
interface TreeRun {
  status: NewTestStatus;
  changed: string[];
}

/** By author, then file. */
type TreeRuns = Map<AgentName, Map<string, TreeRun>>;

/** Every author's tests on one tree; by author, then file. Never throws. */
async function testTree(
  input: CrossTestInput,
  tree: Tree,
  authors: readonly Authored[],
  signal: AbortSignal,
): Promise<TreeRuns> {
  const out: TreeRuns = new Map();
  const failAll = (from: number): void => {
    for (const author of authors.slice(from))
      out.set(
        author.agent,
        new Map(author.tests.map((test) => [test.file, { status: 'error', changed: [] }])),
      );
  };
  const dir = crossDirOf(input.runDir);
  const tmpDir = crossTmpOf(input.runDir);
  let copied: readonly string[] = [];
  try {
    // An empty temp directory for each tree: nothing one tree's tests left tells the next.
    await rm(tmpDir, { recursive: true, force: true });
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    // Its files at a commit that says nothing of whose they are (tree.ts); each author's next.
    const neutral = await neutralCommit(input.repoRoot, tree.commit, [], crossIndexOf(input.runDir));
    await createDetachedWorktree(input.repoRoot, dir, neutral, {
      signal,
      step: 'git worktree add for cross-testing',
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
    // In the sandbox where the race's agents are (not in a container, which is a jail of its own).
    const sandbox =
      container === null && input.sandbox !== undefined && input.sandbox !== null
        ? treePolicy(input.sandbox, dir, tmpDir)
        : null;
    // The same on every tree: no agent's name, one port block (the baseline's, done by now).
    const identity = {
      agent: CROSS_AGENT,
      // No free block: the tests run without one, as they would without ports.
      port: input.ports === undefined ? null : await input.ports.lease(BASELINE_LEASE).catch(() => null),
    };
    const place = {
      cwd: dir,
      runId: input.runId,
      processes: input.processes,
      graceMs: input.graceMs,
      signal,
      ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
      // Its tests are an agent's, on every tree: hydra's environment without its credentials.
      ...(input.environment === undefined ? {} : { environment: { pass: input.environment.pass } }),
      shares: worktreeShares(input.shared ?? [], dir),
      identity,
      container,
      sandbox,
    };
    // Set up once per checkout (switchTo keeps ignored files): a failed setup makes every test an error.
    if (input.setup !== undefined && input.setup !== null) {
      const outcome = await runSetup(
        {
          ...input.setup,
          logFile: setupLogFile(path.dirname(input.setup.logFile), `cross-${tree.agent ?? 'base'}`),
        },
        { ...place, repoRoot: input.repoRoot, owner: `setup:${CROSS_OWNER}` },
      );
      if (outcome.status !== 'ok') {
        failAll(0);
        return out;
      }
    }
    for (const [index, author] of authors.entries()) {
      const runs = new Map<string, TreeRun>();
      out.set(author.agent, runs);
      try {
        const head = await neutralCommit(
          input.repoRoot,
          tree.commit,
          author.copied,
          crossIndexOf(input.runDir),
        );
        const ready = async (): Promise<void> => {
          // At its commit, then its files written again, on its own tree too, so they look the same everywhere.
          await switchTo(input.repoRoot, dir, head);
          for (const { file, content, mode } of author.copied) await writeInside(dir, file, content, mode);
          if (index > 0) await remote?.putBack();
          await remote?.add(
            dir,
            author.copied.map(({ file }) => file),
          );
        };
        await ready();
        for (const [n, test] of author.tests.entries()) {
          const spec: CheckSpec = {
            name: `${author.agent}:${n + 1}`,
            run: test.run,
            timeoutMs: test.timeoutMs,
            gate: false,
          };
          const run = await runCheck(spec, { ...place, owner: `check:${CROSS_OWNER}`, slots: input.slots });
          // A remote tree's tests ran in its volume: what they changed there is not read.
          const changed = remote === null ? await treeChanges(input.repoRoot, dir, head, author.copied) : [];
          runs.set(test.file, { status: statusOf(run.status), changed });
          // A test that changed its tree leaves it to the next one put back.
          if (changed.length > 0 && n < author.tests.length - 1) await ready();
        }
      } catch {
        for (const test of author.tests)
          if (!runs.has(test.file)) runs.set(test.file, { status: 'error', changed: [] });
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
    await rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Each author's summary from the runs on every tree. */
const summarize = (
  authors: readonly Authored[],
  trees: readonly Tree[],
  runs: readonly TreeRuns[],
  whereOf: (agent: AgentName | null) => CheckWhere,
): Record<AgentName, NewTestsSummary> => {
  const runOn = (treeIndex: number, author: AgentName, file: string): TreeRun =>
    runs[treeIndex]?.get(author)?.get(file) ?? { status: 'error', changed: [] };
  const results: Record<AgentName, NewTestsSummary> = {};
  for (const author of authors) {
    if (author.tests.length === 0) continue;
    const baseIndex = trees.findIndex((tree) => tree.agent === null);
    const selfIndex = trees.findIndex((tree) => tree.agent === author.agent);
    const others = trees.flatMap((tree, index) =>
      tree.agent === null || tree.agent === author.agent ? [] : [{ agent: tree.agent, index }],
    );
    const tests = author.tests.map((test): NewTestRun => {
      const changedOn = (index: number): string[] => runOn(index, author.agent, test.file).changed;
      const changedOthers = others.filter((other) => changedOn(other.index).length > 0);
      const changesTree = {
        ...(changedOn(baseIndex).length === 0 ? {} : { base: changedOn(baseIndex) }),
        ...(changedOn(selfIndex).length === 0 ? {} : { self: changedOn(selfIndex) }),
        ...(changedOthers.length === 0
          ? {}
          : {
              others: Object.fromEntries(changedOthers.map((other) => [other.agent, changedOn(other.index)])),
            }),
      };
      return {
        file: test.file,
        runner: test.runner,
        onBase: runOn(baseIndex, author.agent, test.file).status,
        onSelf: runOn(selfIndex, author.agent, test.file).status,
        onOthers: Object.fromEntries(
          others.map((other) => [other.agent, runOn(other.index, author.agent, test.file).status]),
        ),
        ...(Object.keys(changesTree).length === 0 ? {} : { changesTree }),
      };
    });
    results[author.agent] = {
      count: tests.length,
      failOnBase: tests.filter((test) => test.onBase === 'failed').length,
      passOnSelf: tests.filter((test) => test.onSelf === 'passed').length,
      reproductions: tests.filter(isReproduction).length,
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
    // One after another, at one path, in a random order: no tree can be told apart by where or when.
    const trees = shuffled<Tree>([{ agent: null, commit: input.baseRef }, ...resolved]);
    const runs: TreeRuns[] = [];
    for (const tree of trees) runs.push(await testTree(input, tree, writing, signal));
    const whereOf = (agent: AgentName | null): CheckWhere => checkWhere(treeContainer(input, { agent }));
    return { results: summarize(writing, trees, runs, whereOf), error: null };
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
