/**
 * `npm run bench:verdict`: how often `hydra race --check auto --auto-merge best` makes the right
 * merge decision on realistic races with hidden tests (issue 34). Each project (projects.ts) is a
 * small bug-fix repository; each lineup races scripted results (honest, partial, overbroad,
 * gaming) as fake agents. The hidden test, kept out of the repository, is the oracle: a decision is
 * right when the merged result passes it, or when nothing was merged and no result passes it. A
 * false merge is a merged result that fails it; a missed merge is nothing merged while a result
 * passes it. Prints a row per race and the totals; writes .cache/bench/verdict.json.
 *
 * Options: --only <project,...>; --hydra <main.js> (another build, e.g. one from before the contract).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installFakeAgents } from '../../src/demo/fake-bin.js';
import { PACKAGE_ROOT } from '../lib/streams.js';
import { table } from '../lib/table.js';
import { LINEUPS, PROJECTS, type Project, type Role } from './projects.js';

interface Row {
  project: string;
  lineup: string;
  merged: Role | null;
  /** Which roles' results pass the hidden test, as measured on their branches. */
  passing: Role[];
  right: boolean;
  falseMerge: boolean;
  missedMerge: boolean;
  mergeReason: string | null;
  /** Each role's score and its parts, as the race's summary has them. */
  scores: Partial<Record<Role, { total: number; parts: Record<string, number | null> } | null>>;
}

const option = (name: string): string | null => {
  const at = process.argv.indexOf(name);
  return at < 0 ? null : (process.argv[at + 1] ?? '');
};

const MAIN = path.resolve(option('--hydra') ?? path.join(PACKAGE_ROOT, 'dist', 'cli', 'main.js'));

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@hydra.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** Whether the tree at `commit` passes the project's hidden test (run outside the tree, in a clean environment). */
const passesHidden = (project: Project, repo: string, commit: string, scratch: string): boolean => {
  const tree = mkdtempSync(path.join(scratch, 'tree-'));
  rmSync(tree, { recursive: true });
  git(repo, ['worktree', 'add', '-q', '--detach', tree, commit]);
  try {
    const file = path.join(scratch, project.language === 'node' ? 'hidden.mjs' : 'hidden.py');
    writeFileSync(file, project.hidden);
    const [command, args] =
      project.language === 'node'
        ? [process.execPath, [file, tree]]
        : ['python3', ['-S', '-E', '-B', file, tree]];
    const result = spawnSync(command, args, {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? '' },
      stdio: 'ignore',
    });
    return result.status === 0;
  } finally {
    git(repo, ['worktree', 'remove', '--force', tree]);
  }
};

/** What a role's agent writes: its fix, and (the honest and overbroad ones, unless the lineup is untested) its regression test. */
const editsOf = (project: Project, role: Role, lineup: (typeof LINEUPS)[number]) =>
  (role === 'honest' || role === 'overbroad') && lineup.untested !== true
    ? [...project.results[role], project.regressionTests[role]]
    : project.results[role];

const race = async (project: Project, lineup: (typeof LINEUPS)[number]): Promise<Row> => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-verdict-'));
  try {
    const repo = path.join(root, 'repo');
    const bin = path.join(root, 'bin');
    const home = path.join(root, 'home');
    for (const dir of [repo, home]) mkdirSync(dir, { recursive: true });
    git(repo, ['init', '-q', '-b', 'main']);
    for (const [file, text] of Object.entries(project.files)) writeFileSync(path.join(repo, file), text);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'a project with a bug']);
    const base = git(repo, ['rev-parse', 'HEAD']).trim();
    const agents = Object.entries(lineup.agents) as Array<[string, Role]>;
    await installFakeAgents(
      bin,
      Object.fromEntries(
        agents.map(([agent, role]) => [agent, { agent, delayMs: 2, edits: editsOf(project, role, lineup) }]),
      ),
    );
    const env = {
      ...process.env,
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      XDG_STATE_HOME: path.join(home, '.state'),
      HYDRA_WORKTREE_ROOT: path.join(root, 'worktrees'),
      HYDRA_SANDBOX: 'off',
      NO_COLOR: '1',
      CI: 'true',
    };
    const hydra = (args: string[]) =>
      spawnSync(process.execPath, [MAIN, ...args], {
        cwd: repo,
        env,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
    const trust = hydra(['trust', project.trust]);
    if (trust.status !== 0) throw new Error(`hydra trust failed: ${trust.stderr}`);
    const names = agents.map(([agent]) => agent).join(',');
    const raced = hydra([
      'race',
      '--json',
      '--agents',
      names,
      '--check',
      'auto',
      '--auto-merge',
      'best',
      project.task,
    ]);
    const last = raced.stdout.trim().split('\n').at(-1) ?? '';
    const summary = JSON.parse(last) as {
      type: string;
      merged?: { agent: string } | null;
      mergeReason?: string;
      agents: Array<{
        agent: string;
        branch: string | null;
        score?: { total: number; parts: Record<string, number | null> };
      }>;
    };
    if (summary.type !== 'summary') throw new Error(`no summary line: ${raced.stderr}`);
    const mergedAgent = summary.merged?.agent ?? null;
    const head = git(repo, ['rev-parse', 'HEAD']).trim();
    const passing = agents
      .filter(([agent]) => {
        const branch = summary.agents.find((item) => item.agent === agent)?.branch ?? null;
        // The merged agent's branch is gone after the merge; its result is the user's HEAD.
        const commit = agent === mergedAgent ? head : branch;
        return commit !== null && passesHidden(project, repo, commit, root);
      })
      .map(([, role]) => role);
    const merged = mergedAgent === null ? null : (lineup.agents[mergedAgent as 'claude'] ?? null);
    const mergedPasses = merged !== null && mergedAgent !== null && head !== base && passing.includes(merged);
    return {
      project: project.name,
      lineup: lineup.name,
      merged,
      passing,
      right: merged === null ? passing.length === 0 : mergedPasses,
      falseMerge: merged !== null && !mergedPasses,
      missedMerge: merged === null && passing.length > 0,
      mergeReason: summary.mergeReason ?? null,
      scores: Object.fromEntries(
        agents.map(([agent, role]) => {
          const score = summary.agents.find((item) => item.agent === agent)?.score;
          return [role, score === undefined ? null : { total: score.total, parts: score.parts }];
        }),
      ),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const names = option('--only');
  const only = names === null ? null : new Set(names.split(','));
  const projects = PROJECTS.filter((project) => only === null || only.has(project.name));
  const rows: Row[] = [];
  for (const project of projects)
    for (const lineup of LINEUPS) {
      const row = await race(project, lineup);
      rows.push(row);
      process.stderr.write(
        `${row.project} / ${row.lineup}: merged ${row.merged ?? 'nothing'}${row.right ? '' : ' (WRONG)'}\n`,
      );
    }
  const right = rows.filter((row) => row.right).length;
  const falseMerges = rows.filter((row) => row.falseMerge).length;
  const missed = rows.filter((row) => row.missedMerge).length;
  process.stdout.write(
    `${table(
      `Merge decisions of --check auto --auto-merge best, judged by hidden tests (${MAIN})`,
      ['project', 'lineup', 'passes hidden', 'merged', 'right'],
      rows.map((row) => [
        row.project,
        row.lineup,
        row.passing.join(', ') || '-',
        row.merged ?? '-',
        row.right ? 'yes' : 'NO',
      ]),
    )}\n\nright decisions: ${right}/${rows.length}; false merges: ${falseMerges}; missed merges: ${missed}\n`,
  );
  // By lineup: the gaming lineups are the contract's; the others need evidence no visible test gives.
  for (const lineup of LINEUPS) {
    const mine = rows.filter((row) => row.lineup === lineup.name);
    process.stdout.write(
      `  ${lineup.name}: ${mine.filter((row) => row.right).length}/${mine.length} right\n`,
    );
  }
  for (const row of rows.filter((item) => !item.right && item.mergeReason !== null))
    process.stdout.write(`  ${row.project} / ${row.lineup}: ${row.mergeReason}\n`);
  mkdirSync(path.join(PACKAGE_ROOT, '.cache', 'bench'), { recursive: true });
  writeFileSync(
    path.join(PACKAGE_ROOT, '.cache', 'bench', 'verdict.json'),
    `${JSON.stringify({ hydra: MAIN, rows, right, total: rows.length, falseMerges, missedMerges: missed }, null, 2)}\n`,
  );
};

await main();
