/**
 * Issue 22: a sandboxed agent (bubblewrap inside hydra's PID namespace) leaves no process behind
 * however it is stopped: hydra cancelled (SIGTERM), its idle timeout, hydra killed outright
 * (SIGKILL, when no handler of hydra's runs). The real `hydra race --json --sandbox required`, fake
 * agents that hang, one with a grandchild. The sandbox library's own helpers in hydra's process
 * (its socat bridges from a Unix socket to its proxies) end too after a SIGKILL, by the watchdog or
 * by `hydra clean`, and their sockets go (issue 35, case 9).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, processesOfRun } from '../../support/engine-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { raceWithAgentsRunning } from '../../support/fault-race.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, hangAfterLines: 2 },
    codex: { agent: 'codex', delayMs: 5, hangAfterLines: 2, spawnGrandchild: true },
  });
});

afterEach(() => sandbox.cleanup());

/** A headless sandboxed race whose agents are running (the run id is on its first NDJSON line). */
const startRace = (extra: string[] = [], env: NodeJS.ProcessEnv = sandbox.env) =>
  raceWithAgentsRunning(sandbox, repo, ['--sandbox', 'required', ...extra, 'Add a hello.txt file'], 90_000, {
    // Each agent: unshare, its init, bwrap and the agent at least.
    processes: 8,
    withinMs: 45_000,
    what: 'the sandboxed agents to run',
    env,
  });

const summaryOf = (stdout: string) =>
  parseNdjson(stdout).at(-1) as {
    type: string;
    agents: Array<{ agent: string; status: string; sandbox?: string | null }>;
  };

/** The `Seccomp:` field (0: none, 2: a filter) of the fake agents whose scenario is in `binDir`. */
const seccompModes = (binDir: string): string[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!command.includes(`${binDir}/`) || !command.includes('.scenario.json')) return [];
        return [/^Seccomp:\s*(\d)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?'];
      } catch {
        return [];
      }
    });

describe('a sandboxed agent leaves nothing running', () => {
  it('when hydra is cancelled (SIGTERM)', { timeout: 120_000 }, async () => {
    const { child, runId } = await startRace();
    // The bundled sandbox library found the seccomp filter hydra ships (dist/vendor): each agent
    // runs under it (without it, the library would sandbox the agents all the same, only weaker).
    await eventually(() => seccompModes(sandbox.bin).length >= 2, 30_000, 'both fake agents to run');
    expect(new Set(seccompModes(sandbox.bin))).toEqual(new Set(['2']));
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => [agent.status, agent.sandbox])).toEqual([
      ['cancelled', 'bubblewrap'],
      ['cancelled', 'bubblewrap'],
    ]);
    await eventually(() => processesOfRun(runId).length === 0, 15_000, 'every process of the race to end');
  });

  it('when its idle timeout stops it', { timeout: 120_000 }, async () => {
    const { child, runId } = await startRace(['--idle-timeout', '2']);
    const result = await child;
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => agent.status)).toEqual(['timed_out', 'timed_out']);
    await eventually(() => processesOfRun(runId).length === 0, 15_000, 'every process of the race to end');
  });

  it('when hydra is killed outright (SIGKILL)', { timeout: 120_000 }, async () => {
    const { child, runId } = await startRace();
    child.kill('SIGKILL');
    await child;
    await eventually(() => processesOfRun(runId).length === 0, 15_000, 'the sandboxes to end with hydra');
    const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
  });
});

/** The socat processes `pid` started (the sandbox library's bridges) and the Unix sockets they listen on. */
const bridgesOf = (pid: number): Array<{ pid: string; socket: string }> =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((child) => {
      try {
        const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (parent !== pid || !stat.includes('(socat)')) return [];
        const args = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
        const socket = /^UNIX-LISTEN:([^,]+)/.exec(
          args.find((arg) => arg.startsWith('UNIX-LISTEN:')) ?? '',
        )?.[1];
        return socket === undefined ? [] : [{ pid: child, socket }];
      } catch {
        return [];
      }
    });

const running = (pid: string): boolean => {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe("the sandbox library's helpers after hydra is killed outright (SIGKILL)", () => {
  it('end, and their sockets go, by the watchdog', { timeout: 120_000 }, async () => {
    const { child } = await startRace();
    const bridges = bridgesOf(child.pid ?? 0);
    expect(bridges.length).toBeGreaterThan(0);
    expect(bridges.every((bridge) => existsSync(bridge.socket))).toBe(true);
    child.kill('SIGKILL');
    await child;
    await eventually(
      () => bridges.every((bridge) => !running(bridge.pid) && !existsSync(bridge.socket)),
      15_000,
      'the bridges to end and their sockets to go',
    );
  });

  it('end, and their sockets go, by hydra clean when no watchdog ran', { timeout: 120_000 }, async () => {
    const env = { ...sandbox.env, HYDRA_WATCHDOG: '0' };
    const { child, runId } = await startRace([], env);
    const bridges = bridgesOf(child.pid ?? 0);
    expect(bridges.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await child;
    // Nothing ended them: they outlive hydra, as the sandboxes do.
    expect(bridges.every((bridge) => running(bridge.pid) && existsSync(bridge.socket))).toBe(true);
    const cleaned = await hydra(['clean'], { cwd: repo, env });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    await eventually(
      () => bridges.every((bridge) => !running(bridge.pid) && !existsSync(bridge.socket)),
      15_000,
      'the bridges to end and their sockets to go',
    );
    await eventually(() => processesOfRun(runId).length === 0, 15_000, 'every process of the race to end');
  });
});
