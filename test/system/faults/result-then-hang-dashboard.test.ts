/**
 * Fault 10.1 through the real `hydra race` on a real terminal (tmux): an agent that printed its
 * result and hangs is shown as completed at once, not as running; after the result grace (3 s by
 * default) its process tree is gone and its result merges with `m`, `y`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { installFaultAgents } from '../../support/fault-bin.js';
import { git } from '../../support/engine-helpers.js';
import { MAIN } from '../../support/cli-helpers.js';

let dir: string | null = null;
const socket = `hydra-fault-linger-${process.pid}-${Date.now()}`;

const tmux = (args: string[]) =>
  execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { stdin: 'ignore', reject: false });

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const screen = async (): Promise<string> => (await tmux(['capture-pane', '-p', '-t', 'race'])).stdout;

/** Polls the terminal; the bound is for a hang, not a speed check (the machine may be loaded). */
const waitForScreen = async (what: string, check: (text: string) => boolean): Promise<string> => {
  const deadline = Date.now() + 60_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await screen();
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; the terminal shows:\n${text}`);
};

const fakeAgents = async (bin: string): Promise<string[]> => {
  const { stdout } = await execa('ps', ['-eo', 'pid=,args='], { stdin: 'ignore' });
  return stdout.split('\n').filter((line) => line.includes('fault-agent.js') && line.includes(bin));
};

afterEach(async () => {
  await tmux(['kill-server']);
  if (dir !== null) await rm(dir, { recursive: true, force: true });
  dir = null;
});

it('shows a lingering agent as completed, stops it after the grace, and merges its result', async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-fault-linger-'));
  const repo = path.join(dir, 'repo');
  const bin = path.join(dir, 'bin');
  await execa('mkdir', ['-p', repo, bin, path.join(dir, 'home'), path.join(dir, 'worktrees')]);
  git(repo, 'init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'README.md'), '# linger\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'first');
  await installFaultAgents(bin, {
    claude: {
      agent: 'claude',
      delayMs: 20,
      hangAfterLines: 10_000,
      edits: [{ path: 'claude.txt', content: 'written by claude\n' }],
    },
  });
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: path.join(dir, 'home'),
    HYDRA_WORKTREE_ROOT: path.join(dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/system/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    GIT_AUTHOR_NAME: 'f',
    GIT_AUTHOR_EMAIL: 'f@hydra.invalid',
    GIT_COMMITTER_NAME: 'f',
    GIT_COMMITTER_EMAIL: 'f@hydra.invalid',
  };
  const assignments = Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const exitFile = path.join(dir, 'exit-code');
  const command = `env -u CI ${assignments} ${shellQuote(process.execPath)} ${shellQuote(MAIN)} race --agents claude ${shellQuote('Add a greeting')}; echo $? > ${shellQuote(exitFile)}; sleep 60`;
  await tmux(['new-session', '-d', '-x', '160', '-y', '45', '-s', 'race', '-c', repo, command]);

  // The result is in while the process still runs: the pane says completed, not running.
  const during = await waitForScreen('the result', (text) => text.includes('✔ completed'));
  expect(await fakeAgents(bin)).not.toEqual([]);
  expect(during).not.toMatch(/running \d+s/);

  // After the grace the process tree is gone, the race reviews, and the result merges.
  await waitForScreen('the race to review', (text) => /✔ \d+ files? \+\d+ -\d+/.test(text));
  expect(await fakeAgents(bin)).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await tmux(['send-keys', '-t', 'race', 'm']);
  await waitForScreen('the merge confirmation', (text) => text.includes('y merge'));
  await tmux(['send-keys', '-t', 'race', 'y']);
  await waitForScreen('the merge result', (text) => text.includes("Merged Claude Code's result"));
  const deadline = Date.now() + 30_000;
  // The shell makes the file before it writes the code into it: wait for the whole line.
  const written = (): boolean => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n');
  while (!written() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await readFile(exitFile, 'utf8')).trim()).toBe('0');
  expect(git(repo, 'show', 'HEAD:claude.txt')).toBe('written by claude\n');
}, 90_000);
