/**
 * End to end: the real `hydra race` (compiled, dist/cli/main.js) on a real terminal (tmux), in a
 * temp git repository, with fake claude and codex CLIs that replay recorded streams and really
 * edit files. Drives the dashboard with keys as a user would, then checks the repository and the
 * process table. Needs `npm run build` first (npm test does it).
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../support/cli-helpers.js';
import { FAULT_AGENT_SCRIPT, installFaultAgents } from '../../support/fault-bin.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HYDRA = path.join(ROOT, 'dist', 'cli', 'main.js');
const ESC = '\u001B';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@hydra.invalid',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@hydra.invalid',
};

interface Sandbox {
  dir: string;
  repo: string;
  bin: string;
  socket: string;
  exitFile: string;
}

let sandbox: Sandbox | null = null;

const tmux = async (socket: string, args: string[]): Promise<string> =>
  (await execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { stdin: 'ignore' })).stdout;

const capture = async (box: Sandbox, options: { escapes?: boolean } = {}): Promise<string> =>
  tmux(box.socket, ['capture-pane', '-p', ...(options.escapes === true ? ['-e'] : []), '-t', 'e2e']);

/**
 * How long a wait for the terminal, the exit code or the agents may take: a bound for a hang, not a
 * speed check (three test files share two cores in `npm test`, and the machine may be loaded).
 */
const PATIENCE_MS = 90_000;

/** Polls the terminal until `check` passes (generous bound; no timing is asserted). */
const waitForScreen = async (
  box: Sandbox,
  what: string,
  check: (screen: string) => boolean,
  escapes = false,
): Promise<string> => {
  const deadline = Date.now() + PATIENCE_MS;
  let screen = '';
  while (Date.now() < deadline) {
    screen = await capture(box, { escapes });
    if (check(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${what}; the terminal shows:\n${screen}`);
};

const sendKeys = async (box: Sandbox, ...keys: string[]): Promise<void> => {
  await tmux(box.socket, ['send-keys', '-t', 'e2e', ...keys]);
};

/** Fake agent processes started from this test's bin directory (their scenario files live there). */
const fakeAgentProcesses = async (binDir: string): Promise<string[]> => {
  const { stdout } = await execa('ps', ['-eo', 'pid=,args='], { stdin: 'ignore' });
  return stdout.split('\n').filter((line) => line.includes('fault-agent.js') && line.includes(binDir));
};

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Starts `hydra race [args]` in a new tmux session (160×45) in the sandbox repository; with
 * `promptOnStdin`, the prompt is piped in (`--prompt-file -`).
 */
const startHydra = async (
  box: Sandbox,
  args: string[] = [],
  options: { promptOnStdin?: boolean; command?: string[] } = {},
): Promise<void> => {
  const env: Record<string, string> = {
    PATH: `${box.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: path.join(box.dir, 'home'),
    XDG_CONFIG_HOME: path.join(box.dir, 'home', '.config'),
    HYDRA_WORKTREE_ROOT: path.join(box.dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/system/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    // The dashboard's `s` opens this shell.
    SHELL: '/bin/sh',
    ...GIT_ENV,
  };
  const assignments = Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  // `env -u CI`: Ink draws nothing live when it thinks it runs in CI.
  const hydra = `env -u CI -u NO_COLOR -u FORCE_COLOR ${assignments} ${shellQuote(process.execPath)} ${shellQuote(HYDRA)}`;
  const flags = args.map(shellQuote).join(' ');
  const race =
    options.command !== undefined
      ? `${hydra} ${options.command.map(shellQuote).join(' ')}`
      : options.promptOnStdin === true
        ? `printf %s ${shellQuote('Add a greeting file')} | ${hydra} race ${flags} --prompt-file -`
        : `${hydra} race ${flags} ${shellQuote('Add a greeting file')}`;
  const command = `${race}; echo $? > ${shellQuote(box.exitFile)}; sleep 120`;
  await tmux(box.socket, [
    'new-session',
    '-d',
    '-x',
    '160',
    '-y',
    '45',
    '-s',
    'e2e',
    '-c',
    box.repo,
    command,
  ]);
};

/** Whether `file` holds a whole line (the shell's `echo $? > file` is done writing it). */
const hasLine = (file: string): boolean => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n');

const waitForExitCode = async (box: Sandbox): Promise<string> => {
  const deadline = Date.now() + PATIENCE_MS;
  // The shell makes the file before it writes the code into it: wait for the whole line.
  while (!hasLine(box.exitFile) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return (await readFile(box.exitFile, 'utf8')).trim();
};

/** Waits until the fake agents show up in the process table (so a later "none left" check means something). */
const waitForAgentProcesses = async (box: Sandbox): Promise<boolean> => {
  const deadline = Date.now() + PATIENCE_MS;
  while (Date.now() < deadline) {
    if ((await fakeAgentProcesses(box.bin)).length > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
};

const hydraRefs = async (box: Sandbox): Promise<{ worktrees: string[]; branches: string }> => ({
  worktrees: git(box.repo, ['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((line) => line.startsWith('worktree ')),
  branches: git(box.repo, ['branch', '--list', 'hydra/*']),
});

beforeEach(async () => {
  if (!existsSync(HYDRA) || !existsSync(FAULT_AGENT_SCRIPT)) {
    throw new Error(
      `${HYDRA} or ${FAULT_AGENT_SCRIPT} is missing: run \`npm run build\` before this test (npm test does).`,
    );
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-e2e-dashboard-'));
  const repo = path.join(dir, 'repo');
  const bin = path.join(dir, 'bin');
  await execa('mkdir', ['-p', repo, bin, path.join(dir, 'home'), path.join(dir, 'worktrees')]);
  await writeFile(path.join(repo, 'README.md'), '# e2e\n');
  await writeFile(path.join(repo, 'notes.txt'), 'uncommitted work must survive\n');
  git(repo, ['init', '--quiet', '--initial-branch=main']);
  git(repo, ['add', 'README.md']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'first commit']);
  sandbox = {
    dir,
    repo,
    bin,
    socket: `hydra-e2e-${process.pid}-${Date.now()}`,
    exitFile: path.join(dir, 'exit-code'),
  };
});

afterEach(async () => {
  const box = sandbox;
  sandbox = null;
  if (box === null) return;
  await execa('tmux', ['-L', box.socket, 'kill-server'], { stdin: 'ignore', reject: false });
  // Leave nothing behind even when the test failed half-way.
  await execa('git', ['worktree', 'prune'], { cwd: box.repo, reject: false, stdin: 'ignore' });
  // hydra may still be cleaning up after its terminal went (a SIGHUP from kill-server): retried.
  await rm(box.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

describe('hydra race on a real terminal', () => {
  it('shows the panes, moves focus, opens a diff, merges the chosen agent and keeps the other result', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 150,
        edits: [{ path: 'claude.txt', content: 'written by claude\n' }],
      },
      codex: {
        agent: 'codex',
        delayMs: 150,
        edits: [{ path: 'src/codex.ts', content: 'export const winner = "codex";\n' }],
      },
    });
    await startHydra(box);

    // While they run, the fake agents are in the process table (so the final check can fail).
    expect(await waitForAgentProcesses(box)).toBe(true);

    // Both panes show their agent's events and usage; both agents complete.
    const panes = await waitForScreen(
      box,
      'both agents to complete with a diff',
      (screen) => (screen.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).length >= 2,
    );
    expect(panes.match(/✔ completed \d/g)).toHaveLength(2);
    expect(panes).toContain('Claude Code');
    expect(panes).toContain('Codex');
    expect(panes).toMatch(/⚙ .+/);
    const usageLines =
      panes.match(/in [\d.]+[kM]? out [\d.]+[kM]? cached [\d.]+[kM]? · \d+ turns? · (~?\$\d+\.\d+|n\/a)/g) ??
      [];
    expect(usageLines.length).toBeGreaterThanOrEqual(2);
    expect(panes).toContain('2 done');

    // Focus moves to the second pane (Tab), and back and forth with the arrows.
    const claudeIndex = panes.includes('▸ 1 Claude Code') ? 1 : 2;
    const codexIndex = claudeIndex === 1 ? 2 : 1;
    await sendKeys(box, 'Tab');
    await waitForScreen(box, 'focus on the second pane', (screen) => screen.includes(`▸ 2 `));
    await sendKeys(box, 'Right');
    await waitForScreen(box, 'focus back on the first pane', (screen) => screen.includes(`▸ 1 `));
    await sendKeys(box, String(codexIndex));
    await waitForScreen(box, 'focus on Codex', (screen) => screen.includes(`▸ ${codexIndex} Codex`));

    // The diff of the focused agent, coloured.
    await sendKeys(box, 'd');
    const diff = await waitForScreen(
      box,
      'the codex diff',
      (screen) => screen.includes('diff --git a/src/codex.ts b/src/codex.ts'),
      true,
    );
    expect(diff).toMatch(new RegExp(`${ESC}\\[32m\\+export const winner = "codex";`));
    await sendKeys(box, 'Escape');
    // Nothing runs any more: stopping is not offered.
    const again = await waitForScreen(box, 'the panes again', (screen) => screen.includes('m merge'));
    expect(again).not.toContain('x stop');

    // Merge it: the confirmation says what will happen, y does it.
    await sendKeys(box, 'm');
    const confirm = await waitForScreen(box, 'the merge confirmation', (screen) =>
      screen.includes('y merge'),
    );
    expect(confirm).toContain("Merge Codex's result into main?");
    await sendKeys(box, 'y');
    const merged = await waitForScreen(box, 'the merge result', (screen) =>
      screen.includes("Merged Codex's result"),
    );
    expect(merged).toMatch(/into main: (fast-forward|merge commit)/);

    expect(await waitForExitCode(box)).toBe('0');

    // The winner's change is on main, the loser's is not, the user's uncommitted file survived.
    expect(git(box.repo, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');
    expect(git(box.repo, ['show', 'HEAD:src/codex.ts'])).toBe('export const winner = "codex";');
    expect(await readFile(path.join(box.repo, 'src', 'codex.ts'), 'utf8')).toBe(
      'export const winner = "codex";\n',
    );
    expect(existsSync(path.join(box.repo, 'claude.txt'))).toBe(false);
    expect(await readFile(path.join(box.repo, 'notes.txt'), 'utf8')).toBe('uncommitted work must survive\n');

    // The merge keeps the choice open: Claude Code's result stays on its branch; Codex's went. Every
    // worktree goes as the dashboard ends (issue 24, item 7: one rule; hydra open brings one back).
    const refs = await hydraRefs(box);
    expect(refs.worktrees).toHaveLength(1);
    expect(refs.branches).toMatch(/^\+? *hydra\/[^/]+\/claude$/);
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 120_000);

  it('with the prompt piped in, still ends in the review step and reads keys from the terminal', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: { agent: 'claude', delayMs: 50, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
      codex: { agent: 'codex', delayMs: 50, edits: [{ path: 'codex.txt', content: 'codex\n' }] },
    });
    await startHydra(box, [], { promptOnStdin: true });
    const review = await waitForScreen(
      box,
      'both agents to complete',
      (screen) => (screen.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).length >= 2,
    );
    expect(review).toContain('"Add a greeting file"');
    // The dashboard waits for the user (it did not finish on its own), and takes keys.
    expect(existsSync(box.exitFile)).toBe(false);
    await sendKeys(box, 'q');
    await waitForScreen(box, 'the quit confirmation', (screen) => screen.includes('y quit'));
    await sendKeys(box, 'y');
    const ended = await waitForScreen(box, 'the advice after the race', (screen) =>
      screen.includes('merge one later with'),
    );
    expect(await waitForExitCode(box)).toBe('0');
    // The advice to merge later is given once.
    expect(ended.match(/later/g)).toHaveLength(1);
  }, 120_000);

  it('asks before quitting while agents run, and cancels cleanly on Ctrl-C', async () => {
    const box = sandbox!;
    // Both agents go quiet after a few lines and would run until stopped.
    await installFaultAgents(box.bin, {
      claude: { agent: 'claude', delayMs: 50, hangAfterLines: 3 },
      codex: { agent: 'codex', delayMs: 50, hangAfterLines: 3 },
    });
    await startHydra(box);
    expect(await waitForAgentProcesses(box)).toBe(true);
    await waitForScreen(
      box,
      'both agents running',
      (screen) => (screen.match(/running \d+s · idle/g) ?? []).length >= 2,
    );

    await sendKeys(box, 'q');
    const dialog = await waitForScreen(box, 'the quit confirmation', (screen) => screen.includes('y quit'));
    expect(dialog).toContain('Quit and stop the running agents?');
    expect(dialog).toContain('Stops Claude Code and Codex (still running)');
    await sendKeys(box, 'n');
    await waitForScreen(
      box,
      'the panes again',
      (screen) => !screen.includes('y quit') && screen.includes('x stop'),
    );
    expect(await fakeAgentProcesses(box.bin)).not.toEqual([]);

    await sendKeys(box, 'C-c');
    const ended = await waitForScreen(box, 'the cancelled race', (screen) =>
      screen.includes('Race cancelled; nothing was merged.'),
    );
    expect(ended).toContain('0 completed');
    // Nothing completed: exit code 1.
    expect(await waitForExitCode(box)).toBe('1');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
    expect(await hydraRefs(box)).toEqual({
      worktrees: [`worktree ${git(box.repo, ['rev-parse', '--show-toplevel'])}`],
      branches: '',
    });
    expect(git(box.repo, ['log', '--format=%s'])).toBe('first commit');
  }, 120_000);

  it('races three agents of which two share an adapter: a pane each, named, each with its own model', async () => {
    const box = sandbox!;
    const log = path.join(box.dir, 'argv.jsonl');
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 100,
        logArgvTo: log,
        edits: [{ path: 'claude.txt', content: 'written by claude\n' }],
      },
      codex: {
        agent: 'codex',
        delayMs: 100,
        edits: [{ path: 'src/codex.ts', content: 'export const winner = "codex";\n' }],
      },
    });
    await startHydra(box, ['--agents', 'claude:opus,claude:sonnet,codex']);
    expect(await waitForAgentProcesses(box)).toBe(true);

    const panes = await waitForScreen(
      box,
      'three agents to complete with a diff',
      (screen) => (screen.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).length >= 3,
    );
    expect(panes.match(/✔ completed \d/g)).toHaveLength(3);
    // Each named agent's pane: its name, the CLI it runs, its model.
    expect(panes).toMatch(/\d claude-opus · Claude Code · opus/);
    expect(panes).toMatch(/\d claude-sonnet · Claude Code · sonnet/);
    expect(panes).toContain('Codex');
    expect(panes).toContain('3 done');

    // Each Claude process got its own model, in its own worktree.
    const runs = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { argv: string[]; cwd: string })
      .filter((call) => call.argv.includes('--output-format'));
    expect(
      Object.fromEntries(
        runs.map((call) => [path.basename(call.cwd), call.argv[call.argv.indexOf('--model') + 1]]),
      ),
    ).toEqual({ 'claude-opus': 'opus', 'claude-sonnet': 'sonnet' });

    // Its number key focuses claude-sonnet; m, y merges it by its name.
    const sonnetIndex = /(\d) claude-sonnet/.exec(panes)?.[1] ?? '?';
    await sendKeys(box, sonnetIndex);
    await waitForScreen(box, 'focus on claude-sonnet', (screen) =>
      screen.includes(`▸ ${sonnetIndex} claude-sonnet`),
    );
    await sendKeys(box, 'm');
    const confirm = await waitForScreen(box, 'the merge confirmation', (screen) =>
      screen.includes('y merge'),
    );
    expect(confirm).toContain("Merge claude-sonnet's result into main?");
    expect(confirm).toContain('d merge, drop the others');
    // d: merge, and remove the other results too (y would keep them).
    await sendKeys(box, 'd');
    await waitForScreen(box, 'the merge result', (screen) =>
      screen.includes("Merged claude-sonnet's result"),
    );
    expect(await waitForExitCode(box)).toBe('0');

    expect(git(box.repo, ['show', 'HEAD:claude.txt'])).toBe('written by claude');
    expect(git(box.repo, ['log', '-1', '--format=%B'])).toContain('claude-sonnet');
    expect(existsSync(path.join(box.repo, 'src', 'codex.ts'))).toBe(false);
    expect(await hydraRefs(box)).toEqual({
      worktrees: [`worktree ${git(box.repo, ['rev-parse', '--show-toplevel'])}`],
      branches: '',
    });
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 120_000);

  it("shows each pane's checks and score, and the compare view sorted by score", async () => {
    const box = sandbox!;
    // A suite with one test failing on the base: claude fixes it, codex breaks another test.
    await writeFile(path.join(box.repo, 'package.json'), '{ "type": "module" }\n');
    await writeFile(
      path.join(box.repo, 'lib.js'),
      'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n',
    );
    await writeFile(
      path.join(box.repo, 'lib.test.js'),
      [
        "import { test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "import { add, mul } from './lib.js';",
        "test('adds', () => assert.equal(add(2, 3), 5));",
        "test('multiplies', () => assert.equal(mul(2, 3), 6));",
        '',
      ].join('\n'),
    );
    git(box.repo, ['add', '.']);
    git(box.repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a library with a bug']);
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 100,
        edits: [
          {
            path: 'lib.js',
            content: 'export const add = (a, b) => a + b;\nexport const mul = (a, b) => a * b;\n',
          },
        ],
      },
      codex: {
        agent: 'codex',
        delayMs: 100,
        edits: [
          {
            path: 'lib.js',
            content: 'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a + b;\n',
          },
        ],
      },
    });
    await startHydra(box, ['--check', 'node --test lib.test.js']);

    const panes = await waitForScreen(
      box,
      'both panes scored',
      (screen) => (screen.match(/score \d/g) ?? []).length >= 2,
    );
    expect(panes).toContain('✔ test 2/2 · 1 newly passing');
    expect(panes).toContain('✘ test 0/2 · 1 newly failing');

    await sendKeys(box, 'c');
    const compare = await waitForScreen(box, 'the compare view', (screen) => screen.includes('Compare'));
    const rows = compare.split('\n').filter((line) => /\d (Claude Code|Codex)/.test(line));
    // Sorted by score: the fix first; a column for the check.
    expect(compare).toMatch(/Agent\s+Status\s+Score\s+test\s+Time/);
    expect(rows[0]).toMatch(/Claude Code\s+completed\s+[\d.]+\s+✔ 2\/2/);
    expect(rows[1]).toMatch(/Codex\s+completed\s+[\d.]+\s+✘ 0\/2/);

    await sendKeys(box, 'Escape');
    await sendKeys(box, 'q');
    const ended = await waitForScreen(box, 'hydra to end', (screen) =>
      /nothing was merged|Quit/.test(screen),
    );
    if (ended.includes('y quit')) await sendKeys(box, 'y');
    expect(await waitForExitCode(box)).toBe('0');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
    expect((await hydraRefs(box)).worktrees).toEqual([
      `worktree ${git(box.repo, ['rev-parse', '--show-toplevel'])}`,
    ]);
  }, 120_000);

  it('names the phases after the agents end: checking, then cross-testing, not racing (issue 34)', async () => {
    const box = sandbox!;
    // Each gate waits for a file the test writes once it has seen the phase on the screen.
    const releaseChecks = path.join(box.dir, 'release-checks');
    const releaseCross = path.join(box.dir, 'release-cross');
    const waitFor = (file: string): string =>
      `const { existsSync } = await import('node:fs');\nwhile (!existsSync(${JSON.stringify(file)})) await new Promise((r) => setTimeout(r, 50));\n`;
    await writeFile(path.join(box.repo, 'package.json'), '{ "type": "module" }\n');
    await writeFile(path.join(box.repo, 'lib.js'), 'export const add = (a, b) => a - b;\n');
    await writeFile(
      path.join(box.repo, 'lib.test.js'),
      `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './lib.js';\n${waitFor(releaseChecks)}test('adds', () => assert.equal(add(2, 3), 5));\n`,
    );
    git(box.repo, ['add', '.']);
    git(box.repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a library with a bug']);
    const fixed = 'export const add = (a, b) => a + b;\n';
    // Claude also writes a new test: cross-testing runs it on the base and on codex's result.
    const newTest = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './lib.js';\n${waitFor(releaseCross)}test('adds again', () => assert.equal(add(1, 1), 2));\n`;
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 50,
        edits: [
          { path: 'lib.js', content: fixed },
          { path: 'add.test.js', content: newTest },
        ],
      },
      codex: { agent: 'codex', delayMs: 50, edits: [{ path: 'lib.js', content: fixed }] },
    });
    await startHydra(box, ['--check', 'node --test lib.test.js']);

    const checking = await waitForScreen(box, 'the checking phase', (screen) =>
      /(^|\s)checking · 0 running · 2 done/m.test(screen),
    );
    expect(checking).not.toMatch(/(^|\s)racing · /m);
    await writeFile(releaseChecks, '');
    await waitForScreen(box, 'the cross-testing phase', (screen) =>
      /(^|\s)cross-testing · 0 running/m.test(screen),
    );
    await writeFile(releaseCross, '');
    await waitForScreen(box, 'the review', (screen) => /(^|\s)reviewing · /m.test(screen));

    await sendKeys(box, 'q');
    const ended = await waitForScreen(box, 'hydra to end', (screen) =>
      /nothing was merged|Quit/.test(screen),
    );
    if (ended.includes('y quit')) await sendKeys(box, 'y');
    expect(await waitForExitCode(box)).toBe('0');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 180_000);

  it('names the judging phase while --judge weighs results nothing else separates (issue 34)', async () => {
    const box = sandbox!;
    // The judge is claude's CLI in its read-only mode (`--permission-mode plan`): a gate in front of
    // the fake holds that run until the test has seen the phase on the screen.
    const releaseJudge = path.join(box.dir, 'release-judge');
    await writeFile(path.join(box.repo, 'package.json'), '{ "type": "module" }\n');
    await writeFile(path.join(box.repo, 'lib.js'), 'export const add = (a, b) => a - b;\n');
    await writeFile(
      path.join(box.repo, 'lib.test.js'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './lib.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
    );
    git(box.repo, ['add', '.']);
    git(box.repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a library with a bug']);
    // Two different fixes of the same size: only time and cost tell them apart, so the judge is asked.
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 50,
        edits: [{ path: 'lib.js', content: 'export const add = (a, b) => a + b;\n' }],
      },
      codex: {
        agent: 'codex',
        delayMs: 50,
        edits: [{ path: 'lib.js', content: 'export const add = (a, b) => b + a;\n' }],
      },
    });
    const claude = path.join(box.bin, 'claude');
    await rename(claude, `${claude}-real`);
    await writeFile(
      claude,
      [
        '#!/bin/sh',
        'for arg in "$@"; do',
        `  if [ "$arg" = plan ]; then while [ ! -e ${shellQuote(releaseJudge)} ]; do sleep 0.05; done; fi`,
        'done',
        `exec ${shellQuote(`${claude}-real`)} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await startHydra(box, ['--check', 'node --test lib.test.js', '--judge', 'claude']);

    const judging = await waitForScreen(box, 'the judging phase', (screen) =>
      /(^|\s)judging · 0 running · 2 done/m.test(screen),
    );
    expect(judging).not.toMatch(/(^|\s)(racing|reviewing) · /m);
    await writeFile(releaseJudge, '');
    await waitForScreen(box, 'the review', (screen) => /(^|\s)reviewing · /m.test(screen));

    await sendKeys(box, 'q');
    const ended = await waitForScreen(box, 'hydra to end', (screen) =>
      /nothing was merged|Quit/.test(screen),
    );
    if (ended.includes('y quit')) await sendKeys(box, 'y');
    expect(await waitForExitCode(box)).toBe('0');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 180_000);

  it('sends a follow-up with f, opens a shell with s, and merges a result that has both', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: {
        agent: 'claude',
        delayMs: 60,
        edits: [{ path: 'claude.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'follow-up.txt', content: 'round 2\n' }],
      },
      codex: { agent: 'codex', delayMs: 60, edits: [{ path: 'codex.txt', content: 'codex\n' }] },
    });
    await startHydra(box);
    const panes = await waitForScreen(
      box,
      'both agents to complete with a diff',
      (screen) => (screen.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).length >= 2,
    );
    const claudeIndex = panes.includes('▸ 1 Claude Code') || panes.includes('1 Claude Code') ? 1 : 2;
    await sendKeys(box, String(claudeIndex));
    await waitForScreen(box, 'focus on Claude Code', (screen) =>
      screen.includes(`▸ ${claudeIndex} Claude Code`),
    );
    // A follow-up starts once the race reviews (every agent settled and its result committed): the
    // diffs can show a moment before, and an `f` then is refused with a notice.
    await waitForScreen(box, 'the race to review', (screen) => /^reviewing /m.test(screen));

    // f: a prompt line; what is typed shows in it (y and q are text here, not answers).
    await sendKeys(box, 'f');
    await waitForScreen(box, 'the follow-up prompt', (screen) =>
      screen.includes('Follow-up for Claude Code'),
    );
    await sendKeys(box, '-l', 'Add a test, quickly');
    await waitForScreen(box, 'the typed prompt', (screen) => screen.includes('> Add a test, quickly_'));
    await sendKeys(box, 'Enter');

    // The second round runs in the pane, after a divider, and completes with both rounds' files.
    const second = await waitForScreen(
      box,
      'the second round to complete',
      (screen) => screen.includes('-- round 2: Add a test, quickly --') && /✔ 2 files \+2 -0/.test(screen),
    );
    expect(second).toContain('Claude Code');
    // Usage is the sum of the rounds; each round's cost is shown beside it.
    expect(second).toMatch(/rounds 1 (~?\$\d+\.\d+|n\/a) · 2 (~?\$\d+\.\d+|n\/a)/);

    // s: the dashboard gives the terminal to a shell in the worktree; a file made there joins the result.
    await sendKeys(box, 's');
    await waitForScreen(box, 'the shell', (screen) => screen.includes("a shell in Claude Code's worktree"));
    // Ctrl-C in the shell is the shell's: the race goes on.
    await sendKeys(box, 'C-c');
    await sendKeys(box, '-l', 'echo from-the-shell > shell.txt && exit');
    await sendKeys(box, 'Enter');
    await waitForScreen(
      box,
      'the dashboard after the shell',
      (screen) => screen.includes('Back from the shell') && /✔ 3 files \+3 -0/.test(screen),
    );

    await sendKeys(box, 'm');
    await waitForScreen(box, 'the merge confirmation', (screen) => screen.includes('y merge'));
    await sendKeys(box, 'y');
    await waitForScreen(box, 'the merge result', (screen) => screen.includes("Merged Claude Code's result"));
    expect(await waitForExitCode(box)).toBe('0');

    expect(git(box.repo, ['show', 'HEAD:claude.txt'])).toBe('round 1');
    expect(git(box.repo, ['show', 'HEAD:follow-up.txt'])).toBe('round 2');
    expect(git(box.repo, ['show', 'HEAD:shell.txt'])).toBe('from-the-shell');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 150_000);

  it('keeps a stop pressed before the agents start (2, x, y while hydra probes): Codex never runs', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: { agent: 'claude', delayMs: 40, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
      codex: { agent: 'codex', delayMs: 40, edits: [{ path: 'codex.txt', content: 'codex\n' }] },
    });
    // Claude's probe waits for the test's word: the race stays before its agents start meanwhile.
    const go = path.join(box.dir, 'go');
    await rename(path.join(box.bin, 'claude'), path.join(box.bin, 'claude.real'));
    await writeFile(
      path.join(box.bin, 'claude'),
      [
        '#!/bin/sh',
        `if [ "$1" = --version ]; then while [ ! -f ${shellQuote(go)} ]; do sleep 0.1; done; fi`,
        `exec ${shellQuote(path.join(box.bin, 'claude.real'))} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await startHydra(box);
    await waitForScreen(box, 'the probe', (screen) => screen.includes('probing agents'));
    await sendKeys(box, '2');
    await waitForScreen(box, 'focus on Codex', (screen) => screen.includes('▸ 2 Codex'));
    await sendKeys(box, 'x');
    await waitForScreen(box, 'the stop confirmation', (screen) => screen.includes('y stop'));
    await sendKeys(box, 'y');
    await waitForScreen(box, 'the stop held', (screen) => screen.includes('Stopping Codex'));
    await writeFile(go, '');

    const reviewed = await waitForScreen(
      box,
      'Claude to complete and Codex to be stopped',
      (screen) => /✔ \d+ files? \+\d+ -\d+/.test(screen) && screen.includes('stopped'),
    );
    expect(reviewed).not.toContain('codex.txt');
    await sendKeys(box, 'q');
    await waitForScreen(box, 'the quit confirmation', (screen) => screen.includes('y quit'));
    await sendKeys(box, 'y');
    expect(await waitForExitCode(box)).toBe('0');
    const branches = git(box.repo, ['branch', '--list', 'hydra/*']);
    expect(branches).toContain('/claude');
    expect(branches).not.toContain('/codex');
    expect(await fakeAgentProcesses(box.bin)).toEqual([]);
  }, 150_000);

  it('comes back to a finished race with show last --tui and merges a result there', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: { agent: 'claude', delayMs: 40, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
      codex: { agent: 'codex', delayMs: 40, edits: [{ path: 'codex.txt', content: 'codex\n' }] },
    });
    await startHydra(box);
    await waitForScreen(
      box,
      'both agents to complete with a diff',
      (screen) => (screen.match(/✔ \d+ files? \+\d+ -\d+/g) ?? []).length >= 2,
    );
    // Quit without merging: the results stay on their branches.
    await sendKeys(box, 'q');
    await waitForScreen(box, 'the quit confirmation', (screen) => screen.includes('y quit'));
    await sendKeys(box, 'y');
    await waitForScreen(box, 'the race to end', (screen) =>
      screen.includes('Race ended; nothing was merged.'),
    );
    expect(await waitForExitCode(box)).toBe('0');
    await rm(box.exitFile);
    await tmux(box.socket, ['kill-session', '-t', 'e2e']);
    // A review probes nothing: Codex's CLI gone since the race, its result still reviews and merges.
    await rename(path.join(box.bin, 'codex'), path.join(box.bin, 'codex.gone'));

    await startHydra(box, [], { command: ['show', 'last', '--tui'] });
    const reopened = await waitForScreen(
      box,
      'the reopened race',
      (screen) => (screen.match(/✔ completed/g) ?? []).length >= 2 && screen.includes('m merge'),
    );
    const codexIndex = reopened.includes('1 Codex') ? 1 : 2;
    await sendKeys(box, String(codexIndex));
    await waitForScreen(box, 'focus on Codex', (screen) => screen.includes(`▸ ${codexIndex} Codex`));
    await sendKeys(box, 'm');
    await waitForScreen(box, 'the merge confirmation', (screen) => screen.includes('y merge'));
    await sendKeys(box, 'y');
    await waitForScreen(box, 'the merge result', (screen) => screen.includes("Merged Codex's result"));
    expect(await waitForExitCode(box)).toBe('0');
    expect(git(box.repo, ['show', 'HEAD:codex.txt'])).toBe('codex');
  }, 150_000);

  it('--attempts in the dashboard: a new attempt is a pane of its own, and --auto-merge best merges the one that passed', async () => {
    const box = sandbox!;
    await installFaultAgents(box.bin, {
      claude: { agent: 'claude', delayMs: 40, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
    });
    // The check passes only for the second attempt (its checks run as HYDRA_AGENT=claude-2).
    await startHydra(box, [
      '--agents',
      'claude',
      '--check',
      'test "$HYDRA_AGENT" = claude-2',
      '--attempts',
      '3',
      '--auto-merge',
      'best',
    ]);

    await waitForScreen(box, 'the second attempt as a pane', (screen) => screen.includes('claude-2'));
    expect(await waitForExitCode(box)).toBe('0');
    expect(git(box.repo, ['show', 'HEAD:claude.txt'])).toBe('claude');
    expect(git(box.repo, ['log', '-1', '--format=%B'])).toContain('claude-2');
    const branches = git(box.repo, ['branch', '--list', 'hydra/*']);
    expect(branches).toContain('/claude');
    expect(branches).not.toContain('claude-3');
  }, 150_000);
});
