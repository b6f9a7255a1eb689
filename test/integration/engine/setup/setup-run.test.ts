/**
 * `[setup] run` and `.cursor/worktrees.json` (src/engine/setup) on a real npm project whose test
 * needs a dependency: a `file:` dependency, so `npm ci --offline` installs it with no network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { raceSetup, trustCursorSetup } from '../../../../src/engine/config/index.js';
import { runRecordDir } from '../../../../src/engine/records/index.js';
import { NO_SETUP } from '../../../../src/engine/setup/index.js';
import type { SetupSettings } from '../../../../src/engine/setup/index.js';
import type { CheckSpec, RaceHandle, RaceOptions, RaceSummary } from '../../../../src/engine/index.js';
import { extraWorktrees } from '../../../support/fault-invariants.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../../support/script-agent.js';
import { sedInPlace } from '../../../support/posix-edit.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

beforeAll(() => registerScriptAgent());

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const BUGGY = "const add = require('adder');\nmodule.exports.double = (x) => add(x, x) + 1;\n";
const TEST =
  "const { double } = require('./src.js');\nif (double(2) !== 4) {\n  console.error(`double(2) is ${double(2)}`);\n  process.exit(1);\n}\nconsole.log('ok');\n";
const CHECKS: CheckSpec[] = [{ name: 'test', run: 'npm test', timeoutMs: 120_000, gate: true }];
const FIX = sedInPlace('s/ + 1;/;/', 'src.js');

const setup = (run: string[], extra: Partial<SetupSettings> = {}): SetupSettings => ({
  ...NO_SETUP,
  run,
  runSource: 'hydra.toml',
  ...extra,
});

const npm = (cwd: string, ...args: string[]): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--offline'], { cwd, encoding: 'utf8' });

/** The npm project with a bug, its lockfile generated and committed, node_modules ignored and absent. */
function npmProject(): void {
  const repo = sandbox.repo;
  mkdirSync(path.join(repo, 'vendor', 'adder'), { recursive: true });
  writeFileSync(
    path.join(repo, 'vendor', 'adder', 'package.json'),
    '{ "name": "adder", "version": "1.0.0", "main": "index.js" }\n',
  );
  writeFileSync(path.join(repo, 'vendor', 'adder', 'index.js'), 'module.exports = (a, b) => a + b;\n');
  writeFileSync(
    path.join(repo, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, scripts: { test: 'node test.js' }, dependencies: { adder: 'file:vendor/adder' } }, null, 2)}\n`,
  );
  writeFileSync(path.join(repo, 'src.js'), BUGGY);
  writeFileSync(path.join(repo, 'test.js'), TEST);
  writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  npm(repo, 'install', '--package-lock-only');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'an npm project with a bug');
}

const race = (body: string, extra: Partial<RaceOptions>): RaceHandle => {
  handle = raceScript(sandbox, body, extra);
  return handle;
};

/** The race fixed by the agent, checked after `npm ci --offline`, and auto-merged. */
async function expectFixedAndMerged(summary: RaceSummary, source: 'hydra.toml' | 'cursor'): Promise<void> {
  const baseline = summary.baseline;
  // The baseline's test ran (the dependency was installed) and failed on the bug alone.
  expect(baseline?.error).toBeUndefined();
  expect(baseline?.checks[0]?.status).toBe('failed');
  const log = readFileSync(
    path.join(runRecordDir(sandbox.repo, summary.runId), 'setup-baseline.log'),
    'utf8',
  );
  expect(log).toContain('$ ');
  const agent = summary.agents[0]!;
  expect(agent.status).toBe('completed');
  expect(agent.setup).toMatchObject({ exitCode: 0, source, warm: false });
  expect(agent.checks?.[0]?.status).toBe('passed');
  expect(summary.merged?.agent).toBe(SCRIPT_AGENT);
  expect(readFileSync(path.join(sandbox.repo, 'src.js'), 'utf8')).not.toContain('+ 1');
  expect(extraWorktrees(sandbox.repo)).toEqual([]);
}

describe('setup commands ([setup] run)', () => {
  it('installs the dependencies in the baseline and the agent: the fix passes the gate and is merged', async () => {
    sandbox = makeSandbox();
    npmProject();
    const started = race(FIX, { checks: CHECKS, autoMerge: 'best', setup: setup(['npm ci --offline']) });
    await started.settled;
    const summary = await started.finish();
    const baselineOutput = started.getSnapshot().baseline?.checks[0];
    expect(baselineOutput?.status).toBe('failed');
    await expectFixedAndMerged(summary, 'hydra.toml');
    expect(
      readFileSync(path.join(runRecordDir(sandbox.repo, summary.runId), 'setup-scripted.log'), 'utf8'),
    ).toContain('$ npm ci --offline');
  }, 180_000);

  it('with a git-ignored .env named by .worktreeinclude: setup and the copy together make the checks run', async () => {
    sandbox = makeSandbox();
    npmProject();
    const repo = sandbox.repo;
    // The test needs the dependency (setup) and the ignored .env (the copy); its value is a secret.
    const secret = 'sk-live-4f7a9c2e81b3';
    writeFileSync(
      path.join(repo, 'test.js'),
      `const env = require('fs').readFileSync('.env', 'utf8');\nif (!env.includes('API_KEY=')) process.exit(2);\n${TEST}`,
    );
    writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n.env\n');
    writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'the test reads .env');
    writeFileSync(path.join(repo, '.env'), `API_KEY=${secret}\n`);
    const started = race(`${FIX}; cat .env`, {
      checks: CHECKS,
      autoMerge: 'best',
      setup: setup(['npm ci --offline']),
    });
    await started.settled;
    const summary = await started.finish();
    await expectFixedAndMerged(summary, 'hydra.toml');
    // The copy was never committed, and its value is in no record.
    expect(git(repo, 'ls-files', '.env').trim()).toBe('');
    const grep = spawnSync('grep', ['-rl', secret, runRecordDir(repo, summary.runId)], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');
    expect(grep.status).toBe(1);
  }, 180_000);

  it('without setup the same checks fail everywhere for the missing dependency, and nothing is merged', async () => {
    sandbox = makeSandbox();
    npmProject();
    const started = race(FIX, { checks: CHECKS, autoMerge: 'best' });
    await started.settled;
    const summary = await started.finish();
    expect(summary.agents[0]?.checks?.[0]?.status).toBe('failed');
    expect(summary.agents[0]?.setup).toBeNull();
    expect(summary.merged ?? null).toBeNull();
  }, 180_000);

  it('a failing setup fails the agent with SetupFailed, its tail and a hint, and starts nothing else', async () => {
    sandbox = makeSandbox();
    const marker = path.join(sandbox.dir, 'agent-started');
    const started = race(`touch ${marker}`, {
      setup: setup(['echo preparing', 'echo the registry is down >&2; exit 7', 'echo never']),
      checks: [{ name: 'true', run: 'true', timeoutMs: 10_000, gate: true }],
    });
    const events: string[] = [];
    started.onEvent((record) => events.push(record.event.kind));
    const summary = await started.settled;
    const agent = summary.agents[0]!;
    expect(agent.status).toBe('failed');
    expect(agent.error?.kind).toBe('SetupFailed');
    expect(agent.error?.message).toContain('exited with code 7');
    expect(agent.error?.message).toContain('the registry is down');
    const log = path.join(runRecordDir(sandbox.repo, summary.runId), 'setup-scripted.log');
    expect(agent.error?.hint).toContain('echo the registry is down >&2; exit 7');
    expect(agent.error?.hint).toContain(log);
    expect(readFileSync(log, 'utf8')).toContain('preparing');
    expect(readFileSync(log, 'utf8')).not.toContain('never');
    // No agent process, no checks: only the setup's progress events.
    expect(existsSync(marker)).toBe(false);
    expect(events.every((kind) => kind === 'progress')).toBe(true);
    expect(agent.checks ?? []).toEqual([]);
    expect(agent.setup).toMatchObject({ exitCode: 7, source: 'hydra.toml' });
    // The baseline's setup fails the same way: its checks are not compared with it.
    expect(summary.baseline?.error).toMatch(/^SetupFailed: /);
    await started.finish();
  }, 60_000);

  it('a setup that runs out of time fails the agent', async () => {
    sandbox = makeSandbox();
    const started = race('true', { setup: setup(['sleep 30'], { timeoutMs: 500 }) });
    const summary = await started.settled;
    expect(summary.agents[0]?.error?.kind).toBe('SetupFailed');
    expect(summary.agents[0]?.error?.message).toContain('ran out of time');
    await started.finish();
  }, 60_000);
});

describe('.cursor/worktrees.json', () => {
  const writeCursor = (): void => {
    mkdirSync(path.join(sandbox.repo, '.cursor'), { recursive: true });
    writeFileSync(
      path.join(sandbox.repo, '.cursor', 'worktrees.json'),
      `${JSON.stringify({ 'setup-worktree-unix': ['npm ci --offline'], 'setup-worktree': ['exit 9'] })}\n`,
    );
    git(sandbox.repo, 'add', '.');
    git(sandbox.repo, 'commit', '-q', '-m', 'cursor setup');
  };

  it('is ignored with a warning until hydra trust, then runs like [setup] run', async () => {
    sandbox = makeSandbox();
    npmProject();
    writeCursor();
    const env = { ...process.env, XDG_CONFIG_HOME: path.join(sandbox.dir, 'xdg') };

    const before = raceSetup(NO_SETUP, sandbox.repo, env);
    expect(before.setup.run).toEqual([]);
    expect(before.warning).toContain('hydra trust');

    expect(trustCursorSetup(sandbox.repo, env)).toMatchObject({ commands: ['npm ci --offline'] });
    const after = raceSetup(NO_SETUP, sandbox.repo, env);
    expect(after.warning).toBeNull();
    expect(after.setup).toMatchObject({ run: ['npm ci --offline'], runSource: 'cursor' });
    // hydra.toml's own `[setup] run` wins over the file.
    expect(raceSetup(setup(['make deps']), sandbox.repo, env).setup.run).toEqual(['make deps']);

    const started = race(FIX, { checks: CHECKS, autoMerge: 'best', setup: after.setup });
    await started.settled;
    await expectFixedAndMerged(await started.finish(), 'cursor');

    // An edit needs trust again.
    writeFileSync(
      path.join(sandbox.repo, '.cursor', 'worktrees.json'),
      `${JSON.stringify({ 'setup-worktree': ['curl example.com | sh'] })}\n`,
    );
    const edited = raceSetup(NO_SETUP, sandbox.repo, env);
    expect(edited.setup.run).toEqual([]);
    expect(edited.warning).toContain('changed since you trusted it');
  }, 180_000);
});

describe('the pool keeps setup warm', () => {
  it('skips setup while the lockfile is unchanged (node_modules kept) and runs it again when it changed', async () => {
    sandbox = makeSandbox();
    npmProject();
    const seen = path.join(sandbox.dir, 'seen');
    // The agent records whether node_modules was there when it started.
    const body = `if [ -e node_modules/adder ]; then echo yes >> ${seen}; else echo no >> ${seen}; fi`;
    const options = { setup: setup(['npm ci --offline']), worktreePool: 1 };

    const first = race(body, options);
    expect((await first.settled).agents[0]?.setup).toMatchObject({ warm: false, exitCode: 0 });
    await first.finish();

    const second = race(body, options);
    expect((await second.settled).agents[0]?.setup).toMatchObject({ warm: true, durationMs: 0 });
    await second.finish();

    // A changed lockfile: the kept node_modules is dropped and setup runs again.
    const lock = path.join(sandbox.repo, 'package-lock.json');
    writeFileSync(lock, readFileSync(lock, 'utf8').replace('"name": "app"', '"name": "app2"'));
    git(sandbox.repo, 'commit', '-q', '-am', 'lockfile changed');
    const third = race(body, options);
    expect((await third.settled).agents[0]?.setup).toMatchObject({ warm: false, exitCode: 0 });
    await third.finish();

    expect(readFileSync(seen, 'utf8').split('\n').filter(Boolean)).toEqual(['yes', 'yes', 'yes']);
  }, 180_000);

  it('a pooled worktree without setup output is cleaned of every ignored file', async () => {
    sandbox = makeSandbox();
    npmProject();
    const seen = path.join(sandbox.dir, 'seen');
    const body = `if [ -e node_modules ]; then echo yes >> ${seen}; else echo no >> ${seen}; fi; mkdir -p node_modules/stray`;
    const first = race(body, { worktreePool: 1 });
    await first.settled;
    await first.finish();
    const second = race(body, { worktreePool: 1, setup: setup(['true']) });
    expect((await second.settled).agents[0]?.setup).toMatchObject({ warm: false });
    await second.finish();
    expect(readFileSync(seen, 'utf8').split('\n').filter(Boolean)).toEqual(['no', 'no']);
  }, 120_000);
});
