/**
 * `--notify` on a real terminal (tmux): the bell, OSC 9 and OSC 777 reach the terminal when the
 * dashboard's race waits for a decision and when a headless race ends, and never the NDJSON of
 * `--json`. tmux's pipe-pane keeps every byte the pane was sent (capture-pane shows no OSC).
 * Needs `npm run build` first.
 */
/* eslint-disable no-control-regex -- the sequences under test are control characters */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installFaultAgents } from '../../support/fault-bin.js';
import { git, ROOT } from '../../support/cli-helpers.js';

const HYDRA = path.join(ROOT, 'dist', 'cli', 'main.js');
const OSC_9 = /\u001B\]9;hydra: race \d{8}-\d{6}-[0-9a-f]{4} /;
const OSC_777 = /\u001B\]777;notify;hydra;race \d{8}-\d{6}-[0-9a-f]{4} /;

interface Box {
  dir: string;
  repo: string;
  bin: string;
  socket: string;
  /** Every byte the pane was sent. */
  raw: string;
  go: string;
  exitFile: string;
}

let box: Box | null = null;

const tmux = async (socket: string, args: string[]): Promise<string> =>
  (await execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { stdin: 'ignore' })).stdout;

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

beforeEach(async () => {
  if (!existsSync(HYDRA))
    throw new Error(`${HYDRA} is missing: run \`npm run build\` first (npm test does).`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-e2e-notify-'));
  const repo = path.join(dir, 'repo');
  const bin = path.join(dir, 'bin');
  for (const sub of [repo, bin, path.join(dir, 'home')]) await mkdir(sub, { recursive: true });
  await writeFile(path.join(repo, 'README.md'), '# e2e\n');
  git(repo, ['init', '--quiet', '--initial-branch=main']);
  git(repo, ['add', 'README.md']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'first commit']);
  await installFaultAgents(bin, { claude: { agent: 'claude', delayMs: 5 } });
  box = {
    dir,
    repo,
    bin,
    socket: `hydra-e2e-notify-${process.pid}-${Date.now()}`,
    raw: path.join(dir, 'pane.raw'),
    go: path.join(dir, 'go'),
    exitFile: path.join(dir, 'exit-code'),
  };
});

afterEach(async () => {
  const current = box;
  box = null;
  if (current === null) return;
  await execa('tmux', ['-L', current.socket, 'kill-server'], { stdin: 'ignore', reject: false });
  await execa('git', ['worktree', 'prune'], { cwd: current.repo, reject: false, stdin: 'ignore' });
  await rm(current.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

/**
 * `hydra <args>` in a new tmux session whose every byte goes to `box.raw`: the command waits for
 * the pipe to be in place before it starts; `before`: a hydra command run first, its output to
 * /dev/null (the race a round reopens).
 */
const startInTmux = async (current: Box, args: string, redirect = '', before?: string): Promise<void> => {
  const env = {
    PATH: `${current.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: path.join(current.dir, 'home'),
    XDG_CONFIG_HOME: path.join(current.dir, 'home', '.config'),
    HYDRA_WORKTREE_ROOT: path.join(current.dir, 'worktrees'),
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    GIT_AUTHOR_NAME: 'e2e',
    GIT_AUTHOR_EMAIL: 'e2e@hydra.invalid',
    GIT_COMMITTER_NAME: 'e2e',
    GIT_COMMITTER_EMAIL: 'e2e@hydra.invalid',
  };
  const assignments = Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const hydra = `env -u CI -u NO_COLOR -u FORCE_COLOR ${assignments} ${shellQuote(process.execPath)} ${shellQuote(HYDRA)}`;
  const first = before === undefined ? '' : `${hydra} ${before} > /dev/null 2>&1; `;
  const command = `while [ ! -e ${shellQuote(current.go)} ]; do sleep 0.05; done; ${first}${hydra} ${args} ${redirect}; echo $? > ${shellQuote(current.exitFile)}; sleep 120`;
  await tmux(current.socket, [
    'new-session',
    '-d',
    '-x',
    '160',
    '-y',
    '40',
    '-s',
    'e2e',
    '-c',
    current.repo,
    command,
  ]);
  await tmux(current.socket, ['pipe-pane', '-o', '-t', 'e2e', `cat >> ${shellQuote(current.raw)}`]);
  await writeFile(current.go, '');
};

/** Polls `read` until `check` passes (a bound for a hang, not a speed check). */
const waitFor = async (
  what: string,
  read: () => string,
  check: (text: string) => boolean,
): Promise<string> => {
  const deadline = Date.now() + 90_000;
  let text = '';
  while (Date.now() < deadline) {
    text = read();
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${what}; got:\n${JSON.stringify(text.slice(-2000))}`);
};

/** Polls the pane's screen until `check` passes. */
const waitForScreen = async (current: Box, check: (screen: string) => boolean): Promise<void> => {
  const deadline = Date.now() + 90_000;
  let screen = '';
  while (Date.now() < deadline) {
    screen = await tmux(current.socket, ['capture-pane', '-p', '-t', 'e2e']);
    if (check(screen)) return;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for the screen; it shows:\n${screen}`);
};

const rawOf = (current: Box) => (): string =>
  existsSync(current.raw) ? readFileSync(current.raw, 'latin1') : '';

describe('--notify on a terminal', () => {
  it('rings and notifies when the dashboard race waits for a decision', async () => {
    const current = box!;
    await startInTmux(current, `race --notify --agents claude ${shellQuote('Add a hello.txt file')}`);

    const raw = await waitFor('the notification', rawOf(current), (text) => OSC_777.test(text));

    expect(raw).toMatch(OSC_9);
    expect(raw).toMatch(/\u0007\u001B\]9;hydra: race \S+ is ready for review \(1 completed\)\u0007/);
    expect(raw).toMatch(/\u001B\]777;notify;hydra;race \S+ is ready for review \(1 completed\)\u0007/);
    await tmux(current.socket, ['send-keys', '-t', 'e2e', 'q']);
    // The dashboard asks before it ends a race nobody merged from.
    await waitForScreen(current, (screen) => screen.includes('y quit'));
    await tmux(current.socket, ['send-keys', '-t', 'e2e', 'y']);
    await waitFor(
      'hydra to end',
      () => (existsSync(current.exitFile) ? readFileSync(current.exitFile, 'utf8') : ''),
      (text) => text.endsWith('\n'),
    );
    // Once the user ended the race they were shown, nothing more rings.
    expect(rawOf(current)().match(/\u001B\]9;/g)).toHaveLength(1);
  }, 180_000);

  it('notifies on the terminal when a headless race ends, never into its NDJSON', async () => {
    const current = box!;
    const ndjson = path.join(current.dir, 'out.ndjson');
    await startInTmux(
      current,
      `race --json --notify --agents claude ${shellQuote('Add a hello.txt file')}`,
      `> ${shellQuote(ndjson)}`,
    );

    const raw = await waitFor('the notification', rawOf(current), (text) => OSC_777.test(text));

    expect(raw).toMatch(/\u001B\]9;hydra: race \S+ finished \(1 completed\)\u0007/);
    await waitFor(
      'hydra to end',
      () => (existsSync(current.exitFile) ? readFileSync(current.exitFile, 'utf8') : ''),
      (text) => text.endsWith('\n'),
    );
    const out = readFileSync(ndjson, 'utf8');
    expect(out).toContain('"type":"summary"');
    expect(out).not.toContain('\u001B');
    expect(out).not.toContain('\u0007');
  }, 180_000);
});

describe('--notify on a round (hydra continue, hydra rerun)', () => {
  const RACE = `race --json --agents claude ${shellQuote('Add a hello.txt file')}`;
  const ended = (current: Box) =>
    waitFor(
      'hydra to end',
      () => (existsSync(current.exitFile) ? readFileSync(current.exitFile, 'utf8') : ''),
      (text) => text.endsWith('\n'),
    );

  it('a headless hydra continue --notify notifies on the terminal when its round ends, never into its NDJSON', async () => {
    const current = box!;
    const ndjson = path.join(current.dir, 'out.ndjson');
    await startInTmux(
      current,
      `continue --json --notify last claude ${shellQuote('Say hello too')}`,
      `> ${shellQuote(ndjson)}`,
      RACE,
    );

    const raw = await waitFor('the notification', rawOf(current), (text) => OSC_777.test(text));

    expect(raw).toMatch(/\u001B\]9;hydra: race \S+ finished \(1 completed\)\u0007/);
    await ended(current);
    const out = readFileSync(ndjson, 'utf8');
    expect(out).toContain('"type":"summary"');
    expect(out).not.toMatch(/[\u001B\u0007]/);
    // Only the round notified: the race before it wrote to /dev/null, no terminal.
    expect(rawOf(current)().match(/\u001B\]9;/g)).toHaveLength(1);
  }, 180_000);

  it('hydra rerun follows [ui] notify in hydra.toml, to the terminal only', async () => {
    const current = box!;
    await writeFile(path.join(current.repo, 'hydra.toml'), '[ui]\nnotify = true\n');
    const ndjson = path.join(current.dir, 'out.ndjson');
    await startInTmux(current, 'rerun --json last claude', `> ${shellQuote(ndjson)}`, RACE);

    const raw = await waitFor('the notification', rawOf(current), (text) => OSC_777.test(text));

    expect(raw).toMatch(/\u001B\]777;notify;hydra;race \S+ finished \(2 completed\)\u0007/);
    await ended(current);
    expect(readFileSync(ndjson, 'utf8')).not.toMatch(/[\u001B\u0007]/);
    expect(rawOf(current)().match(/\u001B\]9;/g)).toHaveLength(1);
  }, 180_000);

  it('hydra rerun --notify sends nothing when its stderr is a pipe', async () => {
    const current = box!;
    const out = path.join(current.dir, 'out.txt');
    await startInTmux(current, 'rerun --json --notify last claude', `2>&1 | cat > ${shellQuote(out)}`, RACE);

    await ended(current);

    const text = readFileSync(out, 'utf8');
    expect(text).toContain('"type":"summary"');
    expect(text).not.toMatch(/[\u001B\u0007]/);
    expect(rawOf(current)()).not.toMatch(/\u001B\]9;|\u001B\]777;|\u0007/);
  }, 180_000);
});
