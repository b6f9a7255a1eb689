/**
 * Issue 22: the sandbox library's proxies run in hydra's own process (a listening server keeps
 * Node's event loop alive), and a race keeps them started from its support check to its end, so
 * its agents do not start them again (runtime.ts's holdSandbox). This holds them no longer than
 * that: a race starts them once and stops them at its end, leaving no listening socket; the
 * support check alone (`hydra doctor`'s) lets its process end; so does a race that fails before any
 * agent spawned, whether the trial still runs or an agent's command was already wrapped ahead.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import { agentWorktreeDir, runWorktreesDir } from '../../../src/engine/records/index.js';
import type { SandboxSettings } from '../../../src/engine/index.js';
import type { RaceOptions } from '../../../src/engine/index.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { createRepo, createSandbox, hydra } from '../../support/cli-helpers.js';

const ENGINE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/engine/index.js');

const SANDBOXED: SandboxSettings = { mode: 'required', allowHosts: [], allowWrite: [] };

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = makeSandbox();
  await installAgents(sandbox, { claude: { delayMs: 50 }, codex: { delayMs: 50 } });
});

afterEach(() => {
  vi.restoreAllMocks();
  sandbox.cleanup();
});

/** Whether something accepts connections on the loopback `port`. */
const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** This process's children that are socat (the library's bridges from its Unix socket to its proxy). */
const socatChildren = (): string[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[1]) === process.pid && stat.includes('(socat)') ? [pid] : [];
      } catch {
        return [];
      }
    });

/**
 * Runs `body` (an ES module importing the built engine as `engine`) in a node process of its own,
 * which never calls process.exit: it ends only once nothing keeps its event loop alive.
 */
const runAlone = (
  body: string,
  timeoutMs = 90_000,
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> => {
  const script = path.join(sandbox.dir, `alone-${Date.now()}.mjs`);
  writeFileSync(script, `import * as engine from ${JSON.stringify(ENGINE)};\n${body}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], {
      cwd: sandbox.repo,
      env: { ...process.env, HYDRA_SANDBOX: 'required' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
};

/** A race's options as the stand-in process takes them (JSON). */
const optionsJson = (extra: Partial<RaceOptions>): string =>
  JSON.stringify(
    raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')], { sandbox: SANDBOXED, ...extra }),
  );

describe("the sandbox library's proxies", () => {
  // First in the file: the support check (and its trial run) is made once per process.
  it(
    'start once for a race (its support check and its agents) and stop at its end',
    { timeout: 120_000 },
    async () => {
      const initialize = vi.spyOn(SandboxManager, 'initialize');
      const reset = vi.spyOn(SandboxManager, 'reset');
      const handle = startRace(
        raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')], { sandbox: SANDBOXED }),
      );
      // Where the proxies listen, read while the agents run.
      let port: number | undefined;
      let socketPath: string | undefined;
      const off = handle.subscribe((snapshot) => {
        if (!snapshot.agents.some((agent) => agent.status === 'running')) return;
        port ??= SandboxManager.getProxyPort();
        socketPath ??= SandboxManager.getLinuxHttpSocketPath();
      });
      const summary = await handle.settled;
      off();
      expect(summary.error).toBeNull();
      expect(summary.agents.map((agent) => [agent.status, agent.sandbox])).toEqual([
        ['completed', 'bubblewrap'],
        ['completed', 'bubblewrap'],
      ]);
      // Started by the support check's trial and kept for the agents ...
      expect(initialize).toHaveBeenCalledTimes(1);
      expect(port).toBeGreaterThan(0);
      expect(socketPath).toBeDefined();
      // ... and stopped once the race was over: nothing of theirs listens any more.
      await vi.waitFor(
        async () => {
          expect(reset).toHaveBeenCalledTimes(1);
          expect(existsSync(socketPath ?? '')).toBe(false);
          expect(await accepting(port ?? 0)).toBe(false);
          expect(socatChildren()).toEqual([]);
        },
        { timeout: 10_000, interval: 100 },
      );
    },
  );

  it(
    'let a process that only checks the machine (hydra doctor) end by itself',
    { timeout: 120_000 },
    async () => {
      const result = await runAlone(
        'const support = await engine.prepareSandbox();\nconsole.log(JSON.stringify(support.available));',
      );
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('true');
    },
  );

  it(
    'let a race that fails before any agent spawned end its process by itself',
    { timeout: 120_000 },
    async () => {
      // Refused while the support check's trial may still run: the worktree root is inside the repository.
      const result = await runAlone(
        `const handle = engine.startRace(${optionsJson({ worktreeRoot: path.join(sandbox.repo, 'worktrees') })});
const summary = await handle.settled;
console.log(summary.error?.kind);`,
      );
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.stdout.trim()).toBe('InvalidConfig');
    },
  );

  it(
    'let a race that fails after wrapping an agent ahead end its process by itself',
    { timeout: 120_000 },
    async () => {
      // codex's worktree directory is there already: its preparation fails, while claude's command
      // was wrapped ahead (and its worktree made) once the sandbox was known to work.
      const runId = '20261126-000000-abcd';
      const runDir = runWorktreesDir(sandbox.worktreeRoot, realpathSync(sandbox.repo), runId);
      mkdirSync(agentWorktreeDir(runDir, 'codex'), { recursive: true });
      const result = await runAlone(
        `const handle = engine.startRace(${optionsJson({ runId })});
const summary = await handle.settled;
console.log(summary.error?.message);`,
      );
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.stdout).toContain('already exists');
      // What claude's preparation made was rolled back.
      expect(git(sandbox.repo, 'branch', '--list', 'hydra/*')).toBe('');
    },
  );
});

describe('hydra doctor with the sandbox on', () => {
  it('says the sandbox works, and exits', { timeout: 120_000 }, async () => {
    const cli = createSandbox();
    try {
      const repo = await createRepo(cli.dir);
      const result = await hydra(['doctor'], {
        cwd: repo,
        env: { ...cli.env, HYDRA_SANDBOX: 'auto' },
        timeoutMs: 90_000,
      });
      // Ended by itself (a timeout would leave no exit code), whatever it says of the agents.
      expect(result.exitCode, result.stderr).toBeGreaterThanOrEqual(0);
      expect(result.stdout + result.stderr).toContain('bubblewrap per agent');
    } finally {
      cli.cleanup();
    }
  });
});
