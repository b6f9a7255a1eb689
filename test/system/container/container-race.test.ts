/**
 * Races of fake agents in containers, end to end through the real CLI (dist/), on this machine's
 * engine: bind-mounted worktrees on the local socket; a bundle through a volume on the same daemon
 * reached over tcp:// (no bind mount); two hosts in one race; a follow-up resuming in a container;
 * a missing image and an unreachable engine as clear errors. Without an engine these tests fail,
 * naming .ci/run's docker set-up (HYDRA_TEST_DOCKER=0 leaves them out on purpose).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { git, hydra, installFakes, MAIN, parseNdjson } from '../../support/cli-helpers.js';
import type { FaultScenario } from '../../support/fault-bin.js';
import type { CheckSummary, NewTestsSummary } from '../../../src/engine/index.js';
import { IMAGE_FAKE_DIR } from '../../support/container-image.js';
import { makeNodeProject, treeState } from '../../support/share-project.js';
import {
  closedPort,
  leftovers,
  SOCKET,
  readFromVolume,
  startEngineProxy,
  useContainerRepo,
  watchMounts,
  writeContainerConfig,
} from '../../support/container-helpers.js';

let image = '';
let sandbox: Sandbox;
let repo: string;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));

type Summary = {
  type: string;
  error: { kind: string; message: string; hint: string } | null;
  agents: Array<Record<string, unknown>>;
};

const summaryOf = (stdout: string): Summary => parseNdjson(stdout).at(-1) as unknown as Summary;
const runIdOf = (stdout: string): string => String(parseNdjson(stdout)[0]?.['runId']);
const filesOn = (branch: string): string[] => git(repo, ['ls-tree', '-r', '--name-only', branch]).split('\n');

/**
 * Fakes on the host and the same scenarios in the config (the containers); `imageOnly` agents' fakes
 * are only in the image (their CLI is probed there).
 */
async function setUp(
  scenarios: Record<string, FaultScenario>,
  extra: { hosts?: string[]; image?: string; maxAgents?: number; toml?: string[]; imageOnly?: string[] } = {},
): Promise<string> {
  const onHost = Object.entries(scenarios).filter(([agent]) => !(extra.imageOnly ?? []).includes(agent));
  await installFakes(sandbox.bin, Object.fromEntries(onHost));
  return writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), {
    image: extra.image ?? image,
    scenarios,
    ...(extra.hosts === undefined ? {} : { hosts: extra.hosts }),
    ...(extra.maxAgents === undefined ? {} : { maxAgents: extra.maxAgents }),
    ...(extra.toml === undefined ? {} : { extra: extra.toml }),
  });
}

const race = (config: string, ...more: string[]) =>
  hydra(['race', '--json', '--config', config, ...more, 'Add a hello file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 240_000,
  });

const edits = (file: string) => [{ path: file, content: `${file}\n` }];

/** A test file (node --test) that passes only in the test image, in a tree with the copied .env and the setup's file. */
const IMAGE_ONLY_TEST = `const fs = require('node:fs');\nfor (const file of ['${IMAGE_FAKE_DIR}/package.json', '.env', 'from-setup.txt']) fs.accessSync(file);\n`;

/** The value of a copied .env: redacted from every record. */
const REMOTE_TOKEN = 'rt-7f3a9c2e5b1d4a60';

describe.runIf(enabled)('agents in containers', { timeout: 300_000 }, () => {
  // One race serves both: a follow-up needs a finished container race, and a merge a result.
  it('races two agents in containers on the local engine (codex only in the image); their results are committed, a follow-up resumes in a container with the session store kept on the agent volume, and one merges', async () => {
    const config = await setUp(
      {
        claude: {
          agent: 'claude',
          delayMs: 5,
          logArgvTo: '/hydra/home/argv.jsonl',
          edits: edits('claude.txt'),
          resumedEdits: edits('second.txt'),
        },
        codex: { agent: 'codex', delayMs: 5, edits: edits('codex.txt') },
      },
      { imageOnly: ['codex'] },
    );
    const mounts = watchMounts(repo);
    sandbox.env['HYDRA_TRACE'] = '1';

    const result = await race(config);

    const seen = mounts.stop();
    expect(result.exitCode, result.stderr).toBe(0);
    // Each container was made and started while its worktree was made, and its agent's start
    // attached to it (the go: precreate.ts).
    expect(result.stderr).toMatch(/agent claude: container started ahead/);
    expect(result.stderr).toMatch(/agent claude: docker attach on/);
    expect(result.stderr).toMatch(/agent codex: docker attach on/);
    const runId = runIdOf(result.stdout);
    const summary = summaryOf(result.stdout);
    expect(
      summary.agents.map((agent) => [agent['agent'], agent['status'], agent['runner'], agent['host']]),
    ).toEqual([
      ['claude', 'completed', 'container', 'default'],
      ['codex', 'completed', 'container', 'default'],
    ]);
    expect(filesOn(`hydra/${runId}/claude`)).toContain('claude.txt');
    expect(filesOn(`hydra/${runId}/codex`)).toContain('codex.txt');
    // codex's CLI is only in the image: the record has the version its probe there read.
    const meta = JSON.parse(readFileSync(path.join(repo, '.hydra', 'runs', runId, 'meta.json'), 'utf8')) as {
      agents: Array<{ agent: string; version: string | null }>;
    };
    expect(meta.agents.find((agent) => agent.agent === 'codex')?.version).toMatch(/\d/);
    // The local engine: the worktree bind-mounted at its own path.
    const claudeMounts = seen[`hydra-${runId}-claude`] ?? [];
    expect(
      claudeMounts.some((mount) => mount.Type === 'bind' && mount.Destination.endsWith(`/${runId}/claude`)),
    ).toBe(true);
    // Its git writes its own repository; the shared git directory (hooks, config, refs) is read-only.
    expect(claudeMounts.find((mount) => mount.Destination.endsWith('/.git'))?.RW).toBe(false);
    expect(claudeMounts.find((mount) => mount.Destination.endsWith('/.git-private/claude'))?.RW).toBe(true);
    // The agents' containers are gone once the race is over.
    expect(leftovers(repo).containers).toEqual([]);

    // A follow-up resumes claude in a container, with the session store kept on the agent volume.
    const next = await hydra(['continue', runId, 'claude', 'Now add a test', '--json', '--config', config], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 240_000,
    });

    expect(next.exitCode, next.stderr).toBe(0);
    expect(filesOn(`hydra/${runId}/claude`)).toEqual(expect.arrayContaining(['claude.txt', 'second.txt']));
    const runs = readFromVolume(image, `hydra-${runId}-claude-home`, 'argv.jsonl')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { argv: string[] }).argv);
    expect(runs).toHaveLength(2);
    expect(runs[0]).not.toContain('--resume');
    expect(runs[1]?.slice(runs[1].indexOf('--resume'), runs[1].indexOf('--resume') + 2)).toEqual([
      '--resume',
      '00000000-0000-4000-8000-000000000001',
    ]);

    const merged = await hydra(['merge', runId, 'claude'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(filesOn('main')).toContain('claude.txt');
  });

  it('races on a remote engine (tcp://) with no bind mount: the base, the scratch directory and the copied files go in, the result comes back as commits, checks and the baseline run there; [setup] share does not reach it, and the race says so', async () => {
    const proxy = await startEngineProxy();
    try {
      // An ignored node_modules here, which that engine cannot see.
      makeNodeProject(repo);
      // An ignored .env that .worktreeinclude names: copied into every tree, the remote volume's too.
      writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n.env\n');
      writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
      git(repo, ['add', '.gitignore', '.worktreeinclude']);
      git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'copy .env']);
      writeFileSync(path.join(repo, '.env'), `REMOTE_TOKEN=${REMOTE_TOKEN}\n`);
      // Codex, as it writes its last message into its scratch directory, which must be in the container.
      // It appends its argv to .env: the volume's .env then holds the copy and the agent's line.
      const config = await setUp(
        {
          codex: {
            agent: 'codex',
            delayMs: 15,
            // A new test that passes only in the image, in a checkout with the copies and the setup's file.
            edits: [...edits('remote.txt'), { path: 'remote.test.js', content: IMAGE_ONLY_TEST }],
            logArgvTo: '.env',
          },
        },
        {
          hosts: [proxy.host],
          toml: [
            // Runs in the image, in the volume's clone, before the agent: only the image has the
            // file, only a copy has .env. Again in the checks' checkouts (the agent's, the baseline's).
            '[setup]',
            `run = "test -f ${IMAGE_FAKE_DIR}/package.json && test -f .env && echo made > from-setup.txt"`,
            'share = ["node_modules"]',
            '',
            // Only in the image on the remote engine, in a checkout with the copied .env (redacted in
            // the record); it writes a tracked file, which the read of the volume's checkout reports.
            '[[checks]]',
            'name = "image"',
            `run = "test -f ${IMAGE_FAKE_DIR}/package.json && test -f from-setup.txt && cat .env && echo x >> README.md"`,
          ],
        },
      );
      const mounts = watchMounts(repo);

      const result = await race(config);

      const seen = mounts.stop();
      expect(result.exitCode, result.stderr).toBe(0);
      const runId = runIdOf(result.stdout);
      expect(summaryOf(result.stdout).agents[0], result.stderr).toMatchObject({
        status: 'completed',
        runner: 'container',
        host: proxy.host,
      });
      expect(filesOn(`hydra/${runId}/codex`)).toEqual(expect.arrayContaining(['README.md', 'remote.txt']));
      expect(filesOn(`hydra/${runId}/codex`)).toContain('from-setup.txt');
      const agentMounts = seen[`hydra-${runId}-codex`];
      expect(agentMounts, 'the agent container was not seen running').toBeDefined();
      expect(agentMounts?.map((mount) => mount.Type)).toEqual(['volume', 'volume']);
      // The result commit was made in the container, as hydra.
      expect(git(repo, ['log', '-1', '--format=%an %s', `hydra/${runId}/codex`])).toMatch(
        /^hydra hydra: codex result/,
      );
      expect(filesOn(`hydra/${runId}/codex`)).not.toContain('.env');
      // The agent ran where its setup found the copied .env: it appended to that file.
      const volumeEnv = readFromVolume(image, `hydra-${runId}-codex-work`, 'codex/.env');
      expect(volumeEnv).toMatch(new RegExp(`^REMOTE_TOKEN=${REMOTE_TOKEN}\\n\\{"argv":`));
      // Its checks and the baseline's ran in the image on the remote engine; the copy's value is redacted.
      const summary = summaryOf(result.stdout) as unknown as {
        agents: Array<{
          checks: Array<CheckSummary>;
          newTests?: NewTestsSummary;
        }>;
        baseline: { error?: string | null; checks: CheckSummary[] };
      };
      const check = summary.agents[0]?.checks[0];
      expect(check?.status, check?.output).toBe('passed');
      // Its output as recorded: the copied value redacted.
      const recorded = readFileSync(path.join(repo, '.hydra', 'runs', runId, 'summary.json'), 'utf8');
      expect(recorded).toContain('REMOTE_TOKEN=[redacted');
      expect(recorded).not.toContain(REMOTE_TOKEN);
      // What the check wrote in its checkout, read in the volume there.
      expect((JSON.parse(recorded) as typeof summary).agents[0]?.checks[0]?.checkoutChanged).toEqual([
        'README.md',
      ]);
      expect(summary.baseline.error ?? null, JSON.stringify(summary.baseline)).toBeNull();
      expect(summary.baseline.checks.map((run) => [run.name, run.status])).toEqual([['image', 'passed']]);
      // Each check says where it ran: in the image on the remote engine.
      expect([check, ...summary.baseline.checks].map((run) => [run?.where, run?.engine])).toEqual([
        ['container', proxy.host],
        ['container', proxy.host],
      ]);
      // Its new test was cross-tested where its checks ran (it passes only in the image there): on its
      // result and on the base, each in a checkout in a volume on that engine.
      const newTests = summary.agents[0]?.newTests;
      expect(newTests?.tests.map((test) => [test.file, test.onBase, test.onSelf])).toEqual([
        ['remote.test.js', 'passed', 'passed'],
      ]);
      const remoteWhere = { where: 'container', engine: proxy.host };
      expect(newTests?.where).toEqual({ base: remoteWhere, self: remoteWhere, others: {} });
      const shown = await hydra(['show', runId], { cwd: repo, env: sandbox.env });
      expect(shown.stdout).toContain(`(in a container on ${proxy.host})`);
      // The checks' volumes went with their checkouts; no ref was made for their bundles.
      expect(leftovers(repo).volumes.filter((volume) => volume.includes('-checks-'))).toEqual([]);
      expect(git(repo, ['for-each-ref', 'refs/hydra'])).toBe('');
      expect(result.stderr).toContain(
        `[setup] share: node_modules not shared with codex on ${proxy.host}: a remote engine cannot see this machine's files; their setup commands run there and must make it.`,
      );
    } finally {
      await proxy.close();
    }
  });

  it('spreads the agents of one race over two hosts', async () => {
    const proxy = await startEngineProxy();
    try {
      const config = await setUp(
        {
          claude: { agent: 'claude', delayMs: 5, edits: edits('claude.txt') },
          codex: { agent: 'codex', delayMs: 5, edits: edits('codex.txt') },
        },
        { hosts: ['unix:///var/run/docker.sock', proxy.host], maxAgents: 50 },
      );

      const result = await race(config);

      expect(result.exitCode, result.stderr).toBe(0);
      const runId = runIdOf(result.stdout);
      const agents = summaryOf(result.stdout).agents;
      expect(agents.map((agent) => agent['status'])).toEqual(['completed', 'completed']);
      expect(new Set(agents.map((agent) => agent['host']))).toEqual(
        new Set(['unix:///var/run/docker.sock', proxy.host]),
      );
      expect(filesOn(`hydra/${runId}/claude`)).toContain('claude.txt');
      expect(filesOn(`hydra/${runId}/codex`)).toContain('codex.txt');
    } finally {
      await proxy.close();
    }
  });

  it('stops an idle agent: its container is stopped and removed', async () => {
    const config = await setUp({ claude: { agent: 'claude', delayMs: 5, hangAfterLines: 2 } });
    const started = Date.now();

    const result = await race(config, '--idle-timeout', '3');

    expect(result.exitCode).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(summaryOf(result.stdout).agents[0]).toMatchObject({ status: 'timed_out', runner: 'container' });
    expect(leftovers(repo).containers).toEqual([]);
  });

  it('fails fast and clearly when the image is not on the engine', async () => {
    const config = await setUp(
      { claude: { agent: 'claude', delayMs: 5 } },
      { image: 'hydra-test-missing:none' },
    );
    const started = Date.now();

    const result = await race(config);

    expect(result.exitCode).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const summary = summaryOf(result.stdout);
    const error = summary.error ?? (summary.agents[0]?.['error'] as Summary['error']);
    expect(error).toMatchObject({ kind: 'SpawnFailed' });
    expect(error?.message).toContain('hydra-test-missing:none');
    expect(error?.hint).toMatch(/docker build|docker pull/);
  });

  it('fails fast and clearly when the engine cannot be reached', async () => {
    const host = `tcp://127.0.0.1:${await closedPort()}`;
    const config = await setUp({ claude: { agent: 'claude', delayMs: 5 } }, { hosts: [host] });

    const result = await race(config);

    expect(result.exitCode).not.toBe(0);
    const summary = summaryOf(result.stdout);
    const error = summary.error ?? (summary.agents[0]?.['error'] as Summary['error']);
    expect(error).toMatchObject({ kind: 'SpawnFailed' });
    expect(error?.message).toContain(host);
    expect(error?.hint).toContain(host);
  });
});

/**
 * `max_agents` queues instead of refusing, and a user other than root gets their own files: hydra
 * runs as uid 1001 (with the docker socket's group, its only way to the engine here) when the tests
 * run as root, or as the tests' own user otherwise. Two agents on a host with room for one: one
 * waits (a `queued` progress event), both complete, their results are committed by hydra as that
 * user, and the files the agent wrote in its worktree are that user's. With `[setup] share =
 * ["node_modules"]`: the agent reads a file of the checkout's node_modules in its container and
 * writes and deletes there; the user's copy is unchanged, the writes are in the agent's layer (its
 * own, not the other agent's), the overlay's volume is gone with the container, and `hydra clean`
 * as that user removes the layers with the worktrees.
 */
describe.runIf(enabled)(
  'agents in containers: room on a host, a user other than root',
  { timeout: 400_000 },
  () => {
    it("queues past max_agents, and runs a non-root user's agents as that user", async () => {
      makeNodeProject(repo);
      const userCopy = treeState(path.join(repo, 'node_modules'));
      const config = await setUp(
        {
          claude: {
            agent: 'claude',
            delayMs: 5,
            edits: [
              ...edits('claude.txt'),
              // Read, then written: a replacement only where the shared file is there to read.
              {
                path: 'node_modules/leftpad/index.js',
                content: '',
                replace: { old: "'ok'", new: "'claude'" },
              },
              { path: 'node_modules/claude-wrote.txt', content: 'claude\n' },
              { path: 'node_modules/leftpad/extra.txt', content: '', remove: true },
            ],
          },
          codex: { agent: 'codex', delayMs: 5, edits: edits('codex.txt') },
        },
        {
          maxAgents: 1,
          // Setup and checks in the image run as that user too (exec.ts): what they write is theirs.
          toml: [
            '[setup]',
            'run = "echo made > from-setup.txt"',
            'share = ["node_modules"]',
            '',
            '[[checks]]',
            'name = "owner"',
            'run = "echo checked > by-check.txt && ls -n by-check.txt"',
            '',
          ],
        },
      );
      const asOther = process.getuid?.() === 0;
      const uid = asOther ? 1001 : (process.getuid?.() ?? 0);
      const gid = asOther ? statSync(SOCKET).gid : (process.getgid?.() ?? 0);
      if (asOther) execFileSync('chown', ['-R', `${uid}:${gid}`, sandbox.dir]);
      const result = await execa(
        process.execPath,
        [MAIN, 'race', '--json', '--keep-worktrees', '--config', config, 'Add a hello file'],
        {
          cwd: repo,
          env: sandbox.env,
          extendEnv: false,
          reject: false,
          timeout: 300_000,
          stdin: 'ignore',
          ...(asOther ? { uid, gid } : {}),
        },
      );
      const stdout = String(result.stdout);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const runId = runIdOf(stdout);
      expect(summaryOf(stdout).agents.map((agent) => [agent['agent'], agent['status']])).toEqual([
        ['claude', 'completed'],
        ['codex', 'completed'],
      ]);
      // One of them waited for room, and said so.
      const queued = parseNdjson(stdout).filter((line) => JSON.stringify(line).includes('"stage":"queued"'));
      expect(queued.length, stdout).toBeGreaterThan(0);
      expect(
        queued.some((line) => JSON.stringify(line).includes('1/1 agents running there')),
        stdout,
      ).toBe(true);
      // Committed by hydra as that user.
      const asRoot = (args: string[]) =>
        execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd: repo, encoding: 'utf8' });
      expect(asRoot(['ls-tree', '-r', '--name-only', `hydra/${runId}/claude`])).toContain('claude.txt');
      expect(asRoot(['ls-tree', '-r', '--name-only', `hydra/${runId}/codex`])).toContain('codex.txt');
      // What the agent wrote in its bind-mounted worktree is the user's, not root's.
      const worktree = String(summaryOf(stdout).agents[0]?.['worktree']);
      expect(statSync(path.join(worktree, 'claude.txt')).uid).toBe(uid);
      // And what its setup wrote there; and what its check wrote in its checkout (`ls -n`: uid gid).
      expect(statSync(path.join(worktree, 'from-setup.txt')).uid).toBe(uid);
      const recorded = JSON.parse(
        readFileSync(path.join(repo, '.hydra', 'runs', runId, 'summary.json'), 'utf8'),
      ) as {
        agents: Array<{ agent: string; checks?: Array<{ name: string; status: string; output?: string }> }>;
      };
      const owner = recorded.agents.find((agent) => agent.agent === 'claude')?.checks?.[0];
      expect(owner?.status, owner?.output).toBe('passed');
      expect(owner?.output).toMatch(new RegExp(`\\s${uid}\\s+${gid}\\s.*by-check\\.txt`));
      // The shared node_modules: the user's copy as it was; the agent's writes (made from what it
      // read) in its own layer, as that user; none in the other agent's; the mount only in the container.
      expect(treeState(path.join(repo, 'node_modules'))).toEqual(userCopy);
      const layers = path.join(path.dirname(worktree), '.share');
      const claudeUpper = path.join(layers, 'claude', '0', 'upper');
      expect(readFileSync(path.join(claudeUpper, 'leftpad', 'index.js'), 'utf8')).toBe(
        "module.exports = () => 'claude';\n",
      );
      expect(statSync(path.join(claudeUpper, 'claude-wrote.txt')).uid).toBe(uid);
      expect(readdirSync(path.join(layers, 'codex', '0', 'upper'))).toEqual([]);
      expect(readdirSync(path.join(worktree, 'node_modules'))).toEqual([]);
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(layers);
      // The overlay volumes went with their containers; the session stores stay for follow-ups.
      expect(leftovers(repo).volumes.filter((volume) => !volume.endsWith('-home'))).toEqual([]);
      // The layers go with the worktrees, removed by that user (the daemon's root-owned work directory cleared).
      const clean = await execa(process.execPath, [MAIN, 'clean', runId], {
        cwd: repo,
        env: sandbox.env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        ...(asOther ? { uid, gid } : {}),
      });
      expect(clean.exitCode, String(clean.stderr)).toBe(0);
      expect(existsSync(layers), String(clean.stdout)).toBe(false);
    });
  },
);
