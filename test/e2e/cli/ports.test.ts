/**
 * Port blocks across hydra processes (docs/setup-ports.md): two races, each its own hydra on its
 * own repository, running at once, never share a block; each agent's HYDRA_PORT is the one its
 * summary names; a cancelled race's leases are gone.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRepo,
  createSandbox,
  git,
  installFakes,
  MAIN,
  parseNdjson,
} from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { processTable } from '../../support/processes.js';

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = createSandbox();
});

afterEach(() => sandbox.cleanup());

/** The sandbox's lease directory (TMPDIR/hydra-<uid>/ports): both hydras share it. */
const leaseDir = (): string => path.join(sandbox.env.TMPDIR ?? '', `hydra-${process.getuid?.()}`, 'ports');

const leases = (): Array<{ port: number; command: string }> => {
  const dir = leaseDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.lease'))
    .flatMap((name) => {
      try {
        const holder = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { command: string };
        return [{ port: Number(name.replace('.lease', '')), command: holder.command }];
      } catch {
        return [];
      }
    });
};

/** HYDRA_PORT of every live process marked with a run of this sandbox's hydras, by run. */
const agentPorts = (): Map<string, Set<string>> => {
  const ports = new Map<string, Set<string>>();
  for (const { environ } of processTable({ environment: true })) {
    const value = (name: string) =>
      environ.find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
    const runId = value('HYDRA_RUN_ID');
    const port = value('HYDRA_PORT');
    if (runId === undefined || port === undefined || value('HOME') !== sandbox.home) continue;
    ports.set(runId, (ports.get(runId) ?? new Set()).add(port));
  }
  return ports;
};

const until = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('two hydra processes racing at once', () => {
  it('get disjoint port blocks, named in their summaries, and give them back when cancelled', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, hangAfterLines: 2 },
      codex: { agent: 'codex', delayMs: 5, hangAfterLines: 2 },
    });
    // A range of the test's own (any file may set it): 4 agents need 4 of its 10 blocks.
    const first = 30_000 + 10 * Math.floor(Math.random() * 990);
    const repos = await Promise.all(['one', 'two'].map((name) => createRepo(sandbox.dir, { name })));
    for (const repo of repos) {
      writeFileSync(path.join(repo, 'hydra.toml'), `[race]\nport_range = [${first}, ${first + 99}]\n`);
      git(repo, ['add', 'hydra.toml']);
      git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'config']);
    }
    const children = repos.map((repo) =>
      execa(process.execPath, [MAIN, 'race', '--json', '--agents', 'claude,codex', 'Add a hello.txt file'], {
        cwd: repo,
        env: sandbox.env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
      }),
    );
    try {
      await until(() => [...agentPorts().values()].flatMap((set) => [...set]).length === 4, 'four agents');
      const byRun = agentPorts();
      expect(byRun.size).toBe(2);
      const ports = [...byRun.values()].flatMap((set) => [...set]).map(Number);
      expect(new Set(ports).size).toBe(4);
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(first);
        expect(port).toBeLessThanOrEqual(first + 99);
      }
      // One lease per agent, each naming its run and agent.
      expect(
        leases()
          .map((lease) => lease.port)
          .sort(),
      ).toEqual([...ports].sort());
      for (const [runId, runPorts] of byRun)
        for (const port of runPorts)
          expect(leases().find((lease) => lease.port === Number(port))?.command).toMatch(
            new RegExp(`^hydra run ${runId} agent (claude|codex)$`),
          );
    } finally {
      for (const child of children) child.kill('SIGINT');
    }
    const results = await Promise.all(children);
    const summaries = results.map((result) => {
      const lines = parseNdjson(String(result.stdout));
      return lines.at(-1) as { type: string; runId: string; agents: Array<{ agent: string; port?: number }> };
    });
    for (const summary of summaries) {
      expect(summary.type).toBe('summary');
      for (const agent of summary.agents) expect(typeof agent.port).toBe('number');
    }
    expect(new Set(summaries.flatMap((summary) => summary.agents.map((agent) => agent.port))).size).toBe(4);
    expect(leases()).toEqual([]);
  }, 90_000);
});
