/**
 * Issue 24, items 7, 9 and 10, end to end: the real `hydra demo` (dist/cli/main.js, six simulated
 * agents) on a real terminal (tmux) at 80×24, 120×40 and 200×50, and `hydra demo --here` in a real
 * temp repository. Needs `npm run build` first (npm test does it).
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HYDRA = path.join(ROOT, 'dist', 'cli', 'main.js');

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@hydra.invalid',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@hydra.invalid',
};

/** The demo at the tests' pace (vitest.config.ts), passed into the environments built below. */
const DEMO_PACE: Record<string, string> =
  process.env.HYDRA_DEMO_DELAY_MS === undefined
    ? {}
    : { HYDRA_DEMO_DELAY_MS: process.env.HYDRA_DEMO_DELAY_MS };

interface Box {
  dir: string;
  socket: string;
  exitFile: string;
}

let box: Box | null = null;

afterEach(async () => {
  if (box === null) return;
  await execa('tmux', ['-L', box.socket, 'kill-server'], { reject: false, stdin: 'ignore' });
  rmSync(box.dir, { recursive: true, force: true });
  box = null;
});

const newBox = (): Box => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-many-agents-'));
  return { dir, socket: `hydra-many-${process.pid}-${path.basename(dir)}`, exitFile: path.join(dir, 'exit') };
};

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const git = async (cwd: string, args: string[]): Promise<string> =>
  (await execa('git', args, { cwd, env: GIT_ENV, stdin: 'ignore' })).stdout.trim();

const tmux = async (target: Box, args: string[]): Promise<string> =>
  (await execa('tmux', ['-L', target.socket, '-f', '/dev/null', ...args], { stdin: 'ignore' })).stdout;

const screen = (target: Box): Promise<string> => tmux(target, ['capture-pane', '-p', '-t', 'e2e']);

/** Polls the terminal until `check` passes (a generous bound: the machine may be loaded). */
const waitForScreen = async (
  target: Box,
  what: string,
  check: (text: string) => boolean,
): Promise<string> => {
  const deadline = Date.now() + 150_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await screen(target);
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}; the terminal shows:\n${text}`);
};

const keys = (target: Box, ...pressed: string[]): Promise<string> =>
  tmux(target, ['send-keys', '-t', 'e2e', ...pressed]);

/** `hydra <args>` in a tmux session of the given size, in `cwd`, with temp files under the box. */
const start = async (target: Box, size: [number, number], cwd: string, args: string[]): Promise<void> => {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(target.dir, 'home'),
    XDG_CONFIG_HOME: path.join(target.dir, 'home', '.config'),
    TMPDIR: path.join(target.dir, 'tmp'),
    HYDRA_WORKTREE_ROOT: path.join(target.dir, 'worktrees'),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...GIT_ENV,
    ...DEMO_PACE,
  };
  await execa('mkdir', ['-p', env.TMPDIR ?? '', env.HOME ?? ''], { stdin: 'ignore' });
  const assignments = Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  // `env -u CI`: Ink draws nothing live when it thinks it runs in CI.
  const command = `env -u CI -u NO_COLOR -u FORCE_COLOR ${assignments} ${shellQuote(process.execPath)} ${shellQuote(HYDRA)} ${args.map(shellQuote).join(' ')}; echo $? > ${shellQuote(target.exitFile)}; sleep 300`;
  await tmux(target, [
    'new-session',
    '-d',
    '-x',
    String(size[0]),
    '-y',
    String(size[1]),
    '-s',
    'e2e',
    '-c',
    cwd,
    command,
  ]);
};

const waitForExit = async (target: Box): Promise<string> => {
  const deadline = Date.now() + 120_000;
  // The shell makes the file before it writes the code into it: wait for the whole line.
  const written = (): boolean =>
    existsSync(target.exitFile) && readFileSync(target.exitFile, 'utf8').endsWith('\n');
  while (!written() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return readFileSync(target.exitFile, 'utf8').trim();
};

const reviewing = (text: string): boolean => text.includes('reviewing') && text.includes('6 done');

/** The footer: the last non-empty line of the screen. */
const lastLine = (text: string): string =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1) ?? '';

const NAMES = ['Claude Code', 'Codex', 'Cursor Agent', 'Gemini CLI', 'Qwen Code', 'opencode'];

describe('six simulated agents on a real terminal', () => {
  it('at 80×24: the key bar fits with ⏎ detail, the merge dialog leaves every pane its title, and a merge leaves no worktree but the other results’ branches', async () => {
    box = newBox();
    await start(box, [80, 24], box.dir, ['demo']);
    const running = await waitForScreen(box, 'agents running', (text) => text.includes('x stop'));
    // While agents run: no follow-up, rerun or shell is offered (they would be refused).
    expect(lastLine(running)).not.toMatch(/f follow-up|r rerun|s shell/);

    const review = await waitForScreen(box, 'the review', reviewing);
    const footer = lastLine(review);
    expect(footer).toContain('⏎ detail');
    expect(footer).toContain('c compare');
    expect(footer).toContain('f follow-up');
    expect(footer).not.toContain('x stop');
    // Every pane keeps its result, the experimental ones too.
    expect(review.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).toHaveLength(6);

    await keys(box, 'm');
    const dialog = await waitForScreen(box, 'the merge dialog', (text) => text.includes('y merge'));
    NAMES.forEach((name, index) => expect(dialog).toContain(`${index + 1} ${name}`));
    expect(dialog).toContain("Merge Claude Code's result into main?");

    await keys(box, 'y');
    // The final screen is taller than the terminal: its top is in the scrollback.
    await waitForScreen(box, 'the merge', (text) => text.includes('Cleaned up'));
    const merged = await tmux(box, ['capture-pane', '-p', '-S', '-', '-t', 'e2e']);
    expect(merged).toContain("Merged Claude Code's result");
    expect(merged).toContain('Cleaned up 6 worktrees and 1 branch:');
    expect(await waitForExit(box)).toBe('0');

    // The demo's repository: no agent worktree left; the five other results kept on their branches.
    const tmp = path.join(box.dir, 'tmp');
    const base = readdirSync(tmp).find((name) => name.startsWith('hydra-demo-'));
    expect(base).toBeDefined();
    const repo = path.join(tmp, base ?? '', 'greeter');
    expect((await git(repo, ['worktree', 'list'])).split('\n')).toHaveLength(1);
    const branches = (await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/']))
      .split('\n')
      .map((branch) => branch.split('/').at(-1));
    expect(branches.sort()).toEqual(['codex', 'cursor', 'gemini', 'opencode', 'qwen']);
    const worktrees = path.join(tmp, base ?? '', 'worktrees');
    const left = existsSync(worktrees)
      ? (await execa('find', [worktrees, '-mindepth', '2', '-maxdepth', '2'], { stdin: 'ignore' })).stdout
      : '';
    expect(left).toBe('');
  }, 300_000);

  it('at 200×50: a grid of three columns, two rows', async () => {
    box = newBox();
    await start(box, [200, 50], box.dir, ['demo']);
    const review = await waitForScreen(box, 'the review', reviewing);
    const lines = review.split('\n');
    const first = lines.find((line) => line.includes('1 Claude Code')) ?? '';
    const second = lines.find((line) => line.includes('4 Gemini CLI')) ?? '';
    expect(first).toContain('2 Codex');
    expect(first).toContain('3 Cursor Agent');
    expect(second).toContain('5 Qwen Code');
    expect(second).toContain('6 opencode');
    expect(lines.indexOf(second)).toBeGreaterThan(lines.indexOf(first));
    // Three columns of one width (200 does not divide by 3: the last one was a column narrower).
    const border = [...(lines[lines.indexOf(first) - 1] ?? '')];
    const corners = border.flatMap((char, at) => (char === '╭' || char === '┏' ? [at] : []));
    expect(corners).toHaveLength(3);
    expect(corners[1]! - corners[0]!).toBe(corners[2]! - corners[1]!);
    const ends = border.flatMap((char, at) => (char === '╮' || char === '┓' ? [at] : []));
    expect(ends[2]! - corners[2]!).toBe(ends[0]! - corners[0]!);
    await keys(box, 'q');
    await waitForScreen(box, 'the quit dialog', (text) => text.includes('y quit'));
    await keys(box, 'y');
    expect(await waitForExit(box)).toBe('0');
  }, 300_000);
});

describe('hydra demo --here', () => {
  const makeRepo = async (dir: string): Promise<string> => {
    const repo = path.join(dir, 'project');
    await execa('mkdir', ['-p', repo], { stdin: 'ignore' });
    await git(repo, ['init', '-q', '-b', 'main']);
    writeFileSync(path.join(repo, 'notes.txt'), 'committed\n');
    await git(repo, ['add', '.']);
    await git(repo, ['commit', '-q', '-m', 'first']);
    // Uncommitted work of the user's: never touched.
    writeFileSync(path.join(repo, 'notes.txt'), 'committed\nand then edited\n');
    writeFileSync(path.join(repo, 'scratch.txt'), 'untracked\n');
    return repo;
  };

  it('at 120×40: races six simulated agents in the current repository in a grid, marked as simulated, and leaves the user’s work alone', async () => {
    box = newBox();
    const repo = await makeRepo(box.dir);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    await start(box, [120, 40], repo, ['demo', '--here']);
    const review = await waitForScreen(box, 'the review', reviewing);
    expect(review.split('\n')[0]).toContain('hydra [simulated agents] "Create hello.txt');
    const lines = review.split('\n');
    const first = lines.find((line) => line.includes('1 Claude Code')) ?? '';
    expect(first).toContain('2 Codex');
    expect(first).toContain('3 Cursor Agent');
    // The compare view: ↓ moves to the next row as sorted (by score), not to the next pane number.
    await keys(box, 'c');
    const table = await waitForScreen(box, 'the compare view', (text) => text.includes('Compare'));
    const rows = table
      .split('\n')
      .map((line) => /^[▸ ] (\d) /.exec(line)?.[1])
      .filter((index): index is string => index !== undefined);
    expect(rows).toHaveLength(6);
    const focusedRow = (text: string): string | undefined => /^▸ (\d) /m.exec(text)?.[1];
    const at = rows.indexOf(focusedRow(table) ?? '');
    await keys(box, 'Down');
    const expected = rows[(at + 1) % rows.length];
    await waitForScreen(box, `row ${expected} focused`, (text) => focusedRow(text) === expected);
    await keys(box, 'Escape', 'q');
    await waitForScreen(box, 'the quit dialog', (text) => text.includes('y quit'));
    await keys(box, 'y');
    expect(await waitForExit(box)).toBe('0');
    const end = await screen(box);
    expect(end.replace(/\n/g, '')).toContain('those were simulated agents, not AI');

    // The user's checkout: same commit, same uncommitted work; the results on hydra/<run>/*.
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(await git(repo, ['status', '--porcelain'])).toBe('M notes.txt\n?? scratch.txt');
    expect(readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toBe('committed\nand then edited\n');
    const branches = (
      await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/'])
    ).split('\n');
    expect(branches).toHaveLength(6);
    for (const branch of branches) {
      expect(await git(repo, ['merge-base', 'main', branch])).toBe(head);
      expect(await git(repo, ['show', `${branch}:hello.txt`])).not.toBe('');
    }
    expect((await git(repo, ['worktree', 'list'])).split('\n')).toHaveLength(1);
  }, 300_000);

  it('headless: the same race from the repository’s HEAD, nothing installed on PATH', async () => {
    box = newBox();
    const repo = await makeRepo(box.dir);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    const bin = path.join(box.dir, 'bin');
    await execa('mkdir', ['-p', bin, path.join(box.dir, 'tmp')], { stdin: 'ignore' });
    const result = await execa(process.execPath, [HYDRA, 'demo', '--here', '--json'], {
      cwd: repo,
      env: {
        ...GIT_ENV,
        ...DEMO_PACE,
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: path.join(box.dir, 'home'),
        TMPDIR: path.join(box.dir, 'tmp'),
        HYDRA_WORKTREE_ROOT: path.join(box.dir, 'worktrees'),
        CI: 'true',
      },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 150_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('hydra demo --here: simulated');
    expect(result.stderr).toContain('those were simulated agents, not AI');
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
      type: string;
      runId: string;
      agents: Array<{ status: string }>;
    };
    expect(summary.type).toBe('summary');
    expect(summary.agents.map((agent) => agent.status)).toEqual(Array(6).fill('completed'));
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toBe('committed\nand then edited\n');
    // Nothing was put on PATH: the bin directory first on it is still empty.
    expect(readdirSync(bin)).toEqual([]);
    expect(
      await git(repo, ['for-each-ref', '--format=%(refname:short)', `refs/heads/hydra/${summary.runId}/`]),
    ).toContain(`hydra/${summary.runId}/claude`);
  }, 200_000);
});
