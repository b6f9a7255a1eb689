/**
 * This machine's engine reached as `ssh://` through an sshd on 127.0.0.1 (test/support/sshd.ts:
 * .ci/run's, or one this file starts), end to end through the real CLI (dist/): a race of two agents
 * opens one SSH connection for the whole race (never one per docker call) and leaves nothing behind
 * once hydra ends, also after a `kill -9` (the watchdog still removes the containers over ssh);
 * a server that refuses the forward leaves each call to connect on its own, as before; and
 * `hydra doctor` checks the engine as it does a tcp:// one. Without sshd or an ssh client the file is
 * skipped, saying so; without an engine it fails as every container test does.
 */

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { git, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import { eventually } from '../../support/engine-helpers.js';
import type { FaultScenario } from '../../support/fault-bin.js';
import { docker } from '../../../src/engine/container/index.js';
import { sshConnectionNote } from '../../../src/engine/process/index.js';
import {
  closedPort,
  leftovers,
  raceInBackground,
  useContainerRepo,
  writeContainerConfig,
} from '../../support/container-helpers.js';
import type { SshEngine } from '../../support/sshd.js';
import { logSshCalls, sshCalls, startSshEngine } from '../../support/sshd.js';
import { dockerSync } from '../../support/docker-cli.js';

let image = '';
let sandbox: Sandbox;
let repo: string;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));
const started = enabled ? startSshEngine() : { skip: 'no Docker engine (HYDRA_TEST_DOCKER=0)' };
const engine: SshEngine | undefined = 'skip' in started ? undefined : started;
afterAll(() => engine?.stop());

const edits = (file: string) => [{ path: file, content: `${file}\n` }];

/**
 * Fakes on the host, a config racing them on the ssh:// engine (`[container] hosts`, or with host
 * `default` the environment's engine), and the ssh logger first on PATH.
 */
async function setUp(
  scenarios: Record<string, FaultScenario>,
  host: string,
): Promise<{ config: string; log: string }> {
  await installFakes(sandbox.bin, scenarios);
  const log = path.join(sandbox.dir, 'ssh-calls.log');
  if (engine !== undefined) logSshCalls(sandbox.bin, engine, log);
  const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), {
    image,
    scenarios,
    ...(host === 'default' ? {} : { hosts: [host] }),
  });
  return { config, log };
}

/** The private directories of hydra's SSH connections left in the sandbox's TMPDIR. */
const connectionDirs = (): string[] =>
  readdirSync(String(sandbox.env['TMPDIR'])).filter((name) => name.startsWith('hydra-ssh-'));

if (engine === undefined) {
  describe('agents on an ssh:// engine', () => {
    // Only a machine with no sshd or ssh client skips it; where .ci/run started one, it must run.
    it('needs an sshd and an ssh client on this machine', (context) => {
      const why = 'skip' in started ? started.skip : '';
      if (process.env['HYDRA_TEST_SSHD_DIR'] !== undefined)
        throw new Error(`CI started an sshd, yet: ${why}`);
      context.skip(why);
    });
  });
} else {
  const host = engine.host;
  describe('agents on an ssh:// engine', { timeout: 300_000 }, () => {
    it('races two agents over one SSH connection for the whole race, and leaves no connection behind', async () => {
      const { config, log } = await setUp(
        {
          claude: { agent: 'claude', delayMs: 5, edits: edits('claude.txt') },
          codex: { agent: 'codex', delayMs: 5, edits: edits('codex.txt') },
        },
        host,
      );

      const result = await hydra(['race', '--json', '--config', config, 'Add a hello file'], {
        cwd: repo,
        env: sandbox.env,
        timeoutMs: 240_000,
      });

      expect(result.exitCode, result.stderr).toBe(0);
      const events = parseNdjson(result.stdout);
      const runId = String(events[0]?.['runId']);
      const agents = (events.at(-1) as { agents: Array<Record<string, unknown>> }).agents;
      expect(agents.map((agent) => [agent['status'], agent['host']])).toEqual([
        ['completed', host],
        ['completed', host],
      ]);
      expect(git(repo, ['ls-tree', '-r', '--name-only', `hydra/${runId}/claude`])).toContain('claude.txt');
      expect(git(repo, ['ls-tree', '-r', '--name-only', `hydra/${runId}/codex`])).toContain('codex.txt');
      const calls = sshCalls(log);
      // One login (the master), then commands over it; no docker call made a connection of its own.
      expect(calls.filter((call) => /(^| )-M( |$)/.test(call))).toHaveLength(1);
      expect(calls.filter((call) => call.includes('dial-stdio'))).toEqual([]);
      expect(calls.length).toBeLessThanOrEqual(3);
      // hydra has exited: its connection's keeper stopped the master and removed its directory.
      await eventually(() => connectionDirs().length === 0, 10_000, 'the connection’s directory to go');
    });

    it('after a kill -9 of hydra, the watchdog removes the containers over ssh and the connection goes', async () => {
      const scenarios = {
        claude: { agent: 'claude' as const, delayMs: 5, hangAfterLines: 2 },
        codex: { agent: 'codex' as const, delayMs: 5, hangAfterLines: 2 },
      };
      const { config } = await setUp(scenarios, host);
      const child = raceInBackground({ sandbox, repo }, config, { forceKillAfterDelay: false });
      const running = (): number => leftovers(repo).containers.length;
      await eventually(() => running() === 2, 120_000, 'both agents’ containers to start');
      expect(connectionDirs()).toHaveLength(1);

      child.kill('SIGKILL');
      await child;

      await eventually(() => running() === 0, 60_000, 'the watchdog to remove the run’s containers');
      await eventually(() => connectionDirs().length === 0, 10_000, 'the connection’s directory to go');
    });

    it('hydra doctor checks the ssh:// engine (DOCKER_HOST) as a tcp:// one: it answers, has the image, hands back the output, over one connection', async () => {
      const { config, log } = await setUp({ claude: { agent: 'claude' } }, 'default');

      const result = await hydra(['doctor', '--json', '--config', config], {
        cwd: repo,
        env: { ...sandbox.env, DOCKER_HOST: host },
        timeoutMs: 180_000,
      });

      const report = JSON.parse(result.stdout) as {
        image?: { host: string; problems: unknown[]; engines: unknown[] };
      };
      expect(report.image?.problems).toEqual([]);
      expect(report.image?.host).toBe('default');
      expect(report.image?.engines).toEqual([
        {
          host: 'default',
          version: expect.stringMatching(/^\d+\.\d+/),
          connection: 'one SSH connection for every docker call (a forwarded socket)',
        },
      ]);
      // The engine's checks and the probe of the CLI in the image went over it too.
      expect(sshCalls(log).filter((call) => call.includes('dial-stdio'))).toEqual([]);
    });

    it('an ssh:// engine chosen with `docker context use` (DOCKER_HOST unset) also goes over one connection', async () => {
      const { config, log } = await setUp({ claude: { agent: 'claude' } }, 'default');
      const dockerConfig = path.join(sandbox.dir, 'docker-config');
      const contextEnv: NodeJS.ProcessEnv = { ...sandbox.env, DOCKER_CONFIG: dockerConfig };
      delete contextEnv['DOCKER_HOST'];
      delete contextEnv['DOCKER_CONTEXT'];
      for (const args of [
        ['context', 'create', 'over-ssh', '--docker', `host=${host}`],
        ['context', 'use', 'over-ssh'],
      ])
        if (dockerSync(args, { env: contextEnv }).status !== 0)
          throw new Error(`docker ${args.join(' ')} failed`);

      const result = await hydra(['doctor', '--json', '--config', config], {
        cwd: repo,
        env: contextEnv,
        timeoutMs: 180_000,
      });

      const report = JSON.parse(result.stdout) as { image?: { problems: unknown[]; engines: unknown[] } };
      expect(report.image?.problems).toEqual([]);
      expect(report.image?.engines).toEqual([
        {
          host: 'default',
          version: expect.stringMatching(/^\d+\.\d+/),
          connection: 'one SSH connection for every docker call (a forwarded socket)',
        },
      ]);
      expect(sshCalls(log).filter((call) => call.includes('dial-stdio'))).toEqual([]);
    });

    it('a server that refuses the forward: each docker call connects on its own, and doctor would say why', async () => {
      const refusing = startSshEngine(['AllowStreamLocalForwarding no']);
      if ('skip' in refusing) throw new Error(refusing.skip);
      vi.stubEnv('PATH', `${refusing.bin}${path.delimiter}${process.env['PATH'] ?? ''}`);
      try {
        const result = await docker(refusing.host, ['version', '--format', '{{.Server.Version}}']);

        expect(result.exitCode, result.stderr).toBe(0);
        expect(sshConnectionNote(refusing.host)).toBe(
          "an SSH connection per docker call: the engine's socket could not be reached through the forward",
        );
        // The test's engine, with its own ssh first on PATH: its connection is shared.
        vi.stubEnv('PATH', `${engine.bin}${path.delimiter}${process.env['PATH'] ?? ''}`);
        await docker(host, ['version']);
        expect(sshConnectionNote(host)).toBe('one SSH connection for every docker call (a forwarded socket)');
      } finally {
        vi.unstubAllEnvs();
        refusing.stop();
      }
    });

    it('hydra doctor names an ssh:// engine that cannot be reached, with how to check the login', async () => {
      const closed = host.replace(/:\d+$/, `:${await closedPort()}`);
      const { config } = await setUp({ claude: { agent: 'claude' } }, closed);

      const result = await hydra(['doctor', '--config', config], {
        cwd: repo,
        env: sandbox.env,
        timeoutMs: 180_000,
      });

      expect(result.exitCode).toBe(1);
      expect(result.stdout).toContain(`The container engine at ${closed} cannot be reached`);
      expect(result.stdout).toContain('ssh -p');
    });
  });
}
