/**
 * hydra itself going away: a signal stops every agent; a hydra killed outright leaves a dead run
 * that `cleanRuns` recovers, touching nothing it did not create.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanRuns, listRuns, mergeRun, readRun, startRace } from '../../../../src/engine/index.js';
import {
  eventually,
  git,
  installAgents,
  makeSandbox,
  plan,
  processesOfRun,
  raceOptions,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { liveProcesses } from '../../../support/processes.js';

const ENGINE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../dist/engine/index.js');

let sandbox: Sandbox;
let child: ChildProcess | null = null;
let runIds: string[] = [];

afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
  // Never leave a fake agent behind, whatever a failing test did.
  for (const runId of runIds) for (const pid of processesOfRun(runId)) process.kill(pid, 'SIGKILL');
  runIds = [];
  sandbox.cleanup();
});

/** Runs a race in a separate node process (a stand-in for the hydra binary); prints the run id once every agent is producing output. */
function spawnHydra(
  options: object,
  env: NodeJS.ProcessEnv = process.env,
): {
  process: ChildProcess;
  running: Promise<string>;
  exited: Promise<{ code: number | null; signal: string | null }>;
} {
  const script = path.join(sandbox.dir, 'hydra-stand-in.mjs');
  writeFileSync(
    script,
    `import { startRace } from ${JSON.stringify(ENGINE)};
const handle = startRace(${JSON.stringify(options)});
const off = handle.subscribe((s) => {
  if (s.agents.every((a) => a.lastOutputAt !== null)) { off(); console.log(JSON.stringify({ runId: handle.runId })); }
});
await handle.settled;
console.log(JSON.stringify({ settled: handle.getSnapshot().phase }));
`,
  );
  const proc = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const running = new Promise<string>((resolve, reject) => {
    let buffer = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /\{"runId":"([^"]+)"\}/.exec(buffer);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    proc.once('exit', () => reject(new Error(`hydra stand-in exited early: ${buffer}`)));
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child = proc;
  return { process: proc, running, exited };
}

describe('when hydra itself is stopped', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} stops every agent before hydra exits`, async () => {
      sandbox = makeSandbox();
      await installAgents(sandbox, {
        claude: { hangAfterLines: 1, spawnGrandchild: true },
        codex: { hangAfterLines: 1, ignoreSigterm: true },
      });
      const hydra = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
      const runId = await hydra.running;
      runIds.push(runId);
      expect(processesOfRun(runId).length).toBeGreaterThanOrEqual(3);

      hydra.process.kill(signal);
      const exit = await hydra.exited;

      expect(exit.signal).toBe(signal);
      expect(processesOfRun(runId)).toEqual([]);
      const record = await readRun(sandbox.repo, runId);
      expect(record.summary?.agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled']);
      expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    });
  }
});

/** Watchdog processes of a run, from their command lines. */
const watchdogsOf = (runId: string): number[] =>
  liveProcesses((cmdline) => cmdline.includes('\0hydra-watchdog\0') && cmdline.includes(`\0${runId}\0`));

describe('a hydra killed outright (SIGKILL)', () => {
  // The watchdog stops them; in PID namespaces (the default here) each namespace's init does too.
  for (const containment of ['pid-namespace', 'process-group'] as const) {
    const env =
      containment === 'process-group' ? { ...process.env, HYDRA_CONTAINMENT: 'group' } : process.env;
    const stopper = containment === 'process-group' ? 'the watchdog' : 'the watchdog and the namespace init';

    it(`${containment}: has ${stopper} stop every agent, SIGKILL for one that ignores SIGTERM, and then nothing of the run is left`, async () => {
      sandbox = makeSandbox();
      await installAgents(sandbox, {
        claude: { hangAfterLines: 1 },
        codex: { hangAfterLines: 1, spawnGrandchild: true, ignoreSigterm: true },
      });
      const hydra = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]), env);
      const runId = await hydra.running;
      runIds.push(runId);
      expect(processesOfRun(runId).length).toBeGreaterThanOrEqual(3);
      expect(watchdogsOf(runId)).toHaveLength(1);

      hydra.process.kill('SIGKILL');
      await hydra.exited;

      await eventually(() => processesOfRun(runId).length === 0, 10_000, `${stopper} to stop every agent`);
      await eventually(() => watchdogsOf(runId).length === 0, 5000, 'the watchdog to end');
    });
  }

  it('has the watchdog stop the shell of `s` too (it runs outside any namespace), then end', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    const token = `hydra-shell-${String(process.pid)}-${String(Date.now())}`;
    const shell = path.join(sandbox.dir, 'fake-shell');
    writeFileSync(shell, `#!/bin/sh\necho "${token}"\nexec sleep 600\n`, { mode: 0o755 });
    const script = path.join(sandbox.dir, 'hydra-with-shell.mjs');
    writeFileSync(
      script,
      `import { startRace } from ${JSON.stringify(ENGINE)};
const handle = startRace(${JSON.stringify(raceOptions(sandbox, [plan(sandbox, 'claude')]))});
await handle.settled;
console.log(JSON.stringify({ runId: handle.runId }));
await handle.runShell({ agent: 'claude', shell: ${JSON.stringify(shell)}, env: process.env });
`,
    );
    const proc = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    let output = '';
    proc.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => output.includes(token), 20_000, 'the shell to start');
    const runId = /"runId":"([^"]+)"/.exec(output)?.[1] ?? '';
    runIds.push(runId);
    expect(processesOfRun(runId)).toHaveLength(1);
    expect(watchdogsOf(runId)).toHaveLength(1);

    proc.kill('SIGKILL');
    await eventually(() => processesOfRun(runId).length === 0, 10_000, 'the watchdog to stop the shell');
    await eventually(() => watchdogsOf(runId).length === 0, 5000, 'the watchdog to end');
  });

  it('ends the watchdog with the race when hydra finishes normally', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    const hydra = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude')]), {
      ...process.env,
      HYDRA_CONTAINMENT: 'group',
    });
    const runId = await hydra.running;
    runIds.push(runId);
    await hydra.exited;
    await eventually(() => watchdogsOf(runId).length === 0, 5000, 'the watchdog to end');
  });
});

describe('a run record that is damaged', () => {
  it('is listed as damaged with what is wrong (not hidden), and cleanRuns removes its branches and record', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    const handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await handle.settled;
    await handle.finish();
    runIds.push(handle.runId);
    const recordDir = path.join(sandbox.repo, '.hydra', 'runs', handle.runId);
    writeFileSync(path.join(recordDir, 'meta.json'), '{"runId": "trunc');

    const runs = await listRuns(sandbox.repo);
    expect(runs.find((run) => run.runId === handle.runId)).toMatchObject({
      state: 'damaged',
      problem: 'meta.json is not valid JSON',
      prompt: expect.stringContaining('hydra clean` removes it'),
    });

    await expect(readRun(sandbox.repo, handle.runId)).rejects.toThrow(/is damaged/);

    const report = await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot });
    expect(report.removedBranches).toContain(`hydra/${handle.runId}/claude`);
    expect(existsSync(recordDir)).toBe(false);
    expect(await listRuns(sandbox.repo)).toEqual([]);
  });
});

describe('recovering from a hydra that was killed', () => {
  it('lists the run as dead, and cleanRuns removes its processes, worktrees, branches and record, and nothing else', async () => {
    sandbox = makeSandbox();
    // Things hydra did not create and must not touch.
    git(sandbox.repo, 'branch', 'hydra-mine');
    git(sandbox.repo, 'branch', 'hydra/not-a-run/claude');
    const userWorktree = path.join(sandbox.dir, 'user-worktree');
    git(sandbox.repo, 'worktree', 'add', '-q', '-b', 'feature', userWorktree);

    // A finished run whose completed result was kept as a branch.
    await installAgents(sandbox, { claude: {} });
    const finished = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const finishedId = await finished.running;
    await finished.exited;
    // A run whose hydra is killed outright while its agents are busy.
    await installAgents(sandbox, {
      claude: { hangAfterLines: 1 },
      codex: { hangAfterLines: 1, spawnGrandchild: true },
    });
    // Without its watchdog (killed too, or turned off) the agents outlive hydra: cleanRuns stops them.
    const hydra = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]), {
      ...process.env,
      HYDRA_WATCHDOG: '0',
    });
    const deadId = await hydra.running;
    runIds.push(deadId, finishedId);
    hydra.process.kill('SIGKILL');
    await hydra.exited;
    expect(processesOfRun(deadId).length).toBeGreaterThanOrEqual(3);

    const runs = await listRuns(sandbox.repo);
    expect(runs.find((run) => run.runId === deadId)?.state).toBe('dead');
    // A dead run has no summary, but still says which agents it raced.
    expect(runs.find((run) => run.runId === deadId)).toMatchObject({
      agents: [],
      agentIds: ['claude', 'codex'],
    });
    expect(runs.find((run) => run.runId === finishedId)?.state).toBe('finished');
    const deadRecord = await readRun(sandbox.repo, deadId);
    expect(deadRecord.summary).toBeNull();
    await expect(mergeRun(sandbox.repo, deadId, 'claude')).rejects.toThrow(/did not finish/);

    const dry = await cleanRuns(sandbox.repo, { dryRun: true, worktreeRoot: sandbox.worktreeRoot });
    expect(dry.removedBranches.sort()).toEqual(
      [`hydra/${deadId}/claude`, `hydra/${deadId}/codex`, `hydra/${finishedId}/claude`].sort(),
    );
    // The finished run's stand-in never called finish(), so its worktree is left too.
    expect(dry.removedWorktrees).toHaveLength(3);
    expect(processesOfRun(deadId).length).toBeGreaterThanOrEqual(3);
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim().split('\n')).toHaveLength(4);

    const report = await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot });

    expect(report.killedProcesses.length).toBeGreaterThanOrEqual(3);
    await eventually(() => processesOfRun(deadId).length === 0, 5000, 'left-over agents to die');
    expect(report.removedRecords).toHaveLength(2);
    expect(existsSync(path.join(sandbox.repo, '.hydra', 'runs', deadId))).toBe(false);
    for (const dir of dry.removedWorktrees) expect(existsSync(dir)).toBe(false);
    expect(
      git(sandbox.repo, 'branch', '--list')
        .split('\n')
        .map((line) => line.replace(/^[*+ ]+/, '').trim())
        .filter(Boolean)
        .sort(),
    ).toEqual(['feature', 'hydra-mine', 'hydra/not-a-run/claude', 'main'].sort());
    const worktrees = git(sandbox.repo, 'worktree', 'list', '--porcelain');
    expect(worktrees).toContain(`worktree ${userWorktree}`);
    expect(worktrees.match(/^worktree /gm)).toHaveLength(2);
    expect(await listRuns(sandbox.repo)).toEqual([]);
  });

  it('skips a run whose hydra is still alive', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { hangAfterLines: 1 } });
    const hydra = spawnHydra(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const runId = await hydra.running;
    runIds.push(runId);

    const report = await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot });

    expect(report.skipped).toEqual([{ runId, reason: expect.stringMatching(/still in use by hydra/) }]);
    expect(report.killedProcesses).toEqual([]);
    expect(processesOfRun(runId).length).toBeGreaterThan(0);
    expect((await listRuns(sandbox.repo))[0]?.state).toBe('running');
    hydra.process.kill('SIGTERM');
    await hydra.exited;
    expect(processesOfRun(runId)).toEqual([]);
  });
});
