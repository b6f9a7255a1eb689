/**
 * End to end on a real terminal (tmux): agent text with emoji, CJK and combining marks keeps the
 * panes' borders in line and is cut, not wrapped (hydra measures as Ink does, with string-width);
 * and agent text and file names with bidi overrides, zero-width characters and line breaks reach
 * neither the dashboard nor `hydra show` raw (issue 21, case 19). Needs `npm run build` first.
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import stringWidth from 'string-width';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installFaultAgents } from '../../support/fault-bin.js';
import { git, ROOT } from '../../support/cli-helpers.js';
import { claudeStreamSaying } from '../../support/security-helpers.js';

const HYDRA = path.join(ROOT, 'dist', 'cli', 'main.js');
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@hydra.invalid',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@hydra.invalid',
};
const COLUMNS = 120;

/** Characters tmux and string-width agree on (tmux 3.3 draws ❤️ one column wide, Ink two). */
const WIDE = `✅ tests pass ☕ ✅ ☕ ✅ ☕ 日本語のテキストです e\u0301 👨‍👩‍👧‍👦 ${'✅ 漢字 '.repeat(10)}`;

/** Every character a terminal would not show as itself: bidi, zero-width, format, controls but LF. */
const RAW_INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/u;

interface Box {
  dir: string;
  repo: string;
  bin: string;
  socket: string;
  env: Record<string, string>;
}

let box: Box | null = null;

const tmux = async (socket: string, args: string[]): Promise<string> =>
  (await execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { stdin: 'ignore' })).stdout;

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

beforeEach(async () => {
  if (!existsSync(HYDRA))
    throw new Error(`${HYDRA} is missing: run \`npm run build\` first (npm test does).`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-e2e-wide-'));
  const repo = path.join(dir, 'repo');
  const bin = path.join(dir, 'bin');
  for (const sub of [repo, bin, path.join(dir, 'home'), path.join(dir, 'worktrees')])
    await mkdir(sub, { recursive: true });
  await writeFile(path.join(repo, 'README.md'), '# e2e\n');
  git(repo, ['init', '--quiet', '--initial-branch=main']);
  git(repo, ['add', 'README.md']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'first commit']);
  const env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'home', '.config'),
    HYDRA_WORKTREE_ROOT: path.join(dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/system/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...GIT_ENV,
  };
  box = { dir, repo, bin, socket: `hydra-e2e-wide-${process.pid}-${Date.now()}`, env };
});

afterEach(async () => {
  const current = box;
  box = null;
  if (current === null) return;
  await execa('tmux', ['-L', current.socket, 'kill-server'], { stdin: 'ignore', reject: false });
  await execa('git', ['worktree', 'prune'], { cwd: current.repo, reject: false, stdin: 'ignore' });
  // hydra may still be cleaning up after its terminal went (a SIGHUP from kill-server): retried.
  await rm(current.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

/** `hydra race` in a new tmux session of COLUMNS × 30, started in the repository. */
const startDashboard = async (current: Box, prompt: string): Promise<void> => {
  const assignments = Object.entries(current.env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const hydra = `env -u CI -u NO_COLOR -u FORCE_COLOR ${assignments} ${shellQuote(process.execPath)} ${shellQuote(HYDRA)}`;
  const exitFile = path.join(current.dir, 'exit-code');
  const command = `${hydra} race --agents claude,codex ${shellQuote(prompt)}; echo $? > ${shellQuote(exitFile)}; sleep 120`;
  await tmux(current.socket, [
    'new-session',
    '-d',
    '-x',
    String(COLUMNS),
    '-y',
    '30',
    '-s',
    'e2e',
    '-c',
    current.repo,
    command,
  ]);
};

const waitForScreen = async (
  current: Box,
  what: string,
  check: (screen: string) => boolean,
): Promise<string> => {
  const deadline = Date.now() + 30_000;
  let screen = '';
  while (Date.now() < deadline) {
    screen = await tmux(current.socket, ['capture-pane', '-p', '-t', 'e2e']);
    if (check(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${what}; the terminal shows:\n${screen}`);
};

/** The columns of a row where box-drawing border glyphs are, counted as the terminal draws them. */
const borderColumns = (row: string, glyphs: RegExp): number[] => {
  const columns: number[] = [];
  let column = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(row)) {
    if (glyphs.test(segment)) columns.push(column);
    column += stringWidth(segment);
  }
  return columns;
};

/** Codex's recorded stream with `message` as its first message. */
const codexStreamSaying = (message: string): string[] =>
  readFileSync(path.join(ROOT, 'fixtures', 'adapters', 'codex', 'streams', 'success-edit.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace('"text":"I will create the file."', `"text":${JSON.stringify(message)}`));

describe('the dashboard on a real terminal', () => {
  it('keeps pane borders in line and cuts emoji and CJK lines to the pane', async () => {
    const current = box!;
    await installFaultAgents(current.bin, {
      claude: { agent: 'claude', delayMs: 50, hangAfterLines: 4, lines: claudeStreamSaying(WIDE, 'done') },
      codex: { agent: 'codex', delayMs: 50, hangAfterLines: 4, lines: codexStreamSaying(WIDE) },
    });
    await startDashboard(current, `✅ 日本語 👨‍👩‍👧‍👦 ${'☕'.repeat(70)}`);
    const screen = await waitForScreen(
      current,
      'both panes showing the message',
      (text) => (text.match(/tests pass/g) ?? []).length >= 2 && text.includes('╰'),
    );
    const rows = screen.split('\n');
    const top = rows.findIndex((row) => /[╭┏]/.test(row));
    const bottom = rows.findIndex((row) => /[╰┗]/.test(row));
    expect(top, screen).toBeGreaterThan(0);
    expect(bottom, screen).toBeGreaterThan(top + 3);
    // The header is one row above the counts row: the long prompt did not wrap.
    // (tmux's capture keeps only part of a ZWJ sequence, though it draws it two columns wide.)
    expect(rows[0], screen).toMatch(/^hydra "✅ 日本語 .*☕…\s+run \S+ · main@/);
    expect(rows[1], screen).toMatch(/racing|running/);
    const corners = borderColumns(rows[top] ?? '', /[╭╮┏┓]/);
    expect(corners).toHaveLength(4);
    expect(corners.at(-1)).toBe(COLUMNS - 1);
    for (const row of rows.slice(top + 1, bottom))
      expect(borderColumns(row, /[│┃]/), screen).toEqual(corners);
    expect(borderColumns(rows[bottom] ?? '', /[╰╯┗┛]/)).toEqual(corners);
    // Each message is cut on its own row, ending in the ellipsis, not wrapped onto the next row.
    expect(screen.match(/tests pass[^│┃]*…\s*[│┃]/g), screen).toHaveLength(2);
  }, 60_000);

  it('shows bidi, zero-width and control characters of agent text and file names as escapes', async () => {
    const current = box!;
    const said = 'done\u202Egnp.exe \u2066hidden\u2069 pass\u200Bword \uFEFFbom';
    const file = 'evil\u202Etxt.exe\nfake';
    await installFaultAgents(current.bin, {
      claude: {
        agent: 'claude',
        delayMs: 20,
        lines: claudeStreamSaying(said, said),
        edits: [{ path: file, content: 'x\n' }],
      },
      codex: {
        agent: 'codex',
        delayMs: 20,
        lines: codexStreamSaying(said),
        edits: [{ path: 'ok.txt', content: 'y\n' }],
      },
    });
    await startDashboard(current, `prompt \u202Eevil`);
    const panes = await waitForScreen(
      current,
      'both agents done',
      (text) => (text.match(/✔ completed/g) ?? []).length >= 2,
    );
    expect(panes).not.toMatch(RAW_INVISIBLE);
    expect(panes).toContain('done\\u202Egnp.exe');
    // The detail view of the focused (first) agent lists its files.
    await tmux(current.socket, ['send-keys', '-t', 'e2e', 'Enter']);
    const detail = await waitForScreen(current, 'the detail view', (text) => text.includes('txt.exe'));
    expect(detail).not.toMatch(RAW_INVISIBLE);
    await tmux(current.socket, ['send-keys', '-t', 'e2e', 'q']);
    await waitForScreen(current, 'the quit dialog', (text) => text.includes('y quit'));
    await tmux(current.socket, ['send-keys', '-t', 'e2e', 'y']);
    const deadline = Date.now() + 30_000;
    while (!existsSync(path.join(current.dir, 'exit-code')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));

    const show = await execa(process.execPath, [HYDRA, 'show', 'last'], {
      cwd: current.repo,
      env: current.env,
      extendEnv: false,
      stdin: 'ignore',
    });
    expect(show.stdout).toContain('done\\u202Egnp.exe');
    expect(show.stdout).toContain('pass\\u200Bword');
    expect(show.stdout).not.toMatch(RAW_INVISIBLE);
    const json = await execa(process.execPath, [HYDRA, 'show', '--json', 'last'], {
      cwd: current.repo,
      env: current.env,
      extendEnv: false,
      stdin: 'ignore',
    });
    expect(json.stdout).not.toMatch(RAW_INVISIBLE);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('done\u202egnp.exe');
  }, 90_000);
});
