/**
 * A container agent's setup commands and checks run in its image, not on this machine: a race on
 * the local engine whose setup and checks pass only where the test image's files are
 * (/opt/hydra-test; this machine has none), one agent whose setup fails (SetupFailed, its log), the
 * baseline's setup and checks in the image too, and a check over its time limit whose container is
 * stopped and removed. Without an engine these tests fail, naming .ci/run's docker set-up
 * (HYDRA_TEST_DOCKER=0 leaves them out on purpose).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { git, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { FaultScenario } from '../../support/fault-bin.js';
import { IMAGE_FAKE_DIR } from '../../support/container-image.js';
import { makeNodeProject, treeState } from '../../support/share-project.js';
import { leftovers, useContainerRepo, writeContainerConfig } from '../../support/container-helpers.js';
import { createProcessRegistry, runLimited } from '../../../src/engine/process/index.js';
import type { StartProcess, Supervised } from '../../../src/engine/process/index.js';
import { containerStarter, DEFAULT_HOST } from '../../../src/engine/container/index.js';

let image = '';
let sandbox: Sandbox;
let repo: string;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));

/** A file only the test image has: a command that needs it works only in a container of the image. */
const IN_IMAGE = `${IMAGE_FAKE_DIR}/package.json`;

type Check = { name: string; status: string; output?: string };
type Summary = {
  agents: Array<{
    agent: string;
    status: string;
    error?: { kind: string; message: string; hint: string } | null;
    checks?: Check[] | null;
  }>;
  baseline?: { status: string; error?: string; checks: Check[] };
};

/** Where a command of the run `runId` runs: a container of the test image on the local engine. */
const targetOf = (runId: string) => ({
  host: DEFAULT_HOST,
  image,
  network: 'none',
  runId,
  agent: 'claude',
  repoRoot: repo,
});

const edits = (file: string) => [{ path: file, content: `${file}\n` }];

describe.runIf(enabled)('setup and checks of container agents', { timeout: 300_000 }, () => {
  it('run in the image: setup before the agent, checks and the baseline in clean checkouts, a failing setup is SetupFailed; each sees the shared node_modules', async () => {
    // `[setup] share`: the checkout's ignored node_modules, seen by every setup and check container.
    makeNodeProject(repo);
    const userCopy = treeState(path.join(repo, 'node_modules'));
    const scenarios: Record<string, FaultScenario> = {
      claude: { agent: 'claude', delayMs: 5, edits: edits('claude.txt') },
      codex: { agent: 'codex', delayMs: 5, edits: edits('codex.txt') },
    };
    await installFakes(sandbox.bin, scenarios);
    const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), {
      image,
      scenarios,
      extra: [
        '[setup]',
        `run = ${JSON.stringify(
          `test -f ${IN_IMAGE} || { echo not in the image; exit 9; }; ` +
            'test -f node_modules/leftpad/index.js || { echo not shared; exit 8; }; ' +
            'echo "setup of $HYDRA_AGENT" > node_modules/from-setup.txt; ' +
            'if [ "$HYDRA_AGENT" = codex ]; then echo "no toolchain for $HYDRA_AGENT"; exit 3; fi; echo made > from-setup.txt',
        )}`,
        'share = ["node_modules"]',
        '',
        '[[checks]]',
        'name = "image"',
        `run = ${JSON.stringify(`cat ${IN_IMAGE} && test -f from-setup.txt && cat node_modules/leftpad/index.js`)}`,
        '',
      ],
    });
    const result = await hydra(['race', '--json', '--config', config, 'Add a hello file'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 240_000,
    });

    const events = parseNdjson(result.stdout);
    const runId = String(events[0]?.['runId']);
    const summary = events.at(-1) as unknown as Summary;
    const [claude, codex] = summary.agents;
    // Its setup ran in its worktree, in the image, before it started: the file is in its result.
    expect(claude, result.stderr).toMatchObject({ agent: 'claude', status: 'completed' });
    expect(git(repo, ['ls-tree', '-r', '--name-only', `hydra/${runId}/claude`]).split('\n')).toEqual(
      expect.arrayContaining(['claude.txt', 'from-setup.txt']),
    );
    // Its checks, in the image, in a clean checkout set up there: the image's file is in the output.
    const inImage = claude?.checks?.find((check) => check.name === 'image');
    expect(inImage?.status, inImage?.output).toBe('passed');
    // Its output (the run record keeps it): the image's file.
    const recorded = JSON.parse(
      readFileSync(path.join(repo, '.hydra', 'runs', runId, 'summary.json'), 'utf8'),
    ) as Summary;
    expect(
      recorded.agents
        .find((agent) => agent.agent === 'claude')
        ?.checks?.find((check) => check.name === 'image')?.output,
    ).toContain('hydra-test-fakes');
    // The check's container saw the shared node_modules (its clean checkout has none of its own).
    expect(
      recorded.agents
        .find((agent) => agent.agent === 'claude')
        ?.checks?.find((check) => check.name === 'image')?.output,
    ).toContain("module.exports = () => 'ok';");
    // The baseline's setup and checks ran where the agents' did.
    expect(summary.baseline?.error ?? null).toBeNull();
    expect(summary.baseline?.checks.map((check) => [check.name, check.status])).toEqual([
      ['image', 'passed'],
    ]);
    // A setup that fails in the image: SetupFailed naming the command, its output in the log.
    expect(codex?.status).toBe('failed');
    expect(codex?.error?.kind).toBe('SetupFailed');
    expect(codex?.error?.message).toContain('exited with code 3');
    expect(codex?.error?.hint).toContain('HYDRA_AGENT');
    const log = path.join(repo, '.hydra', 'runs', runId, 'setup-codex.log');
    expect(existsSync(log)).toBe(true);
    // Past `test -f` of the image's file: it ran in the image.
    expect(readFileSync(log, 'utf8')).toContain('\nno toolchain for codex\n[exit code 3]');
    // Every container (the agents', the setups', the checks') is gone, and the share's volumes with them.
    expect(leftovers(repo).containers).toEqual([]);
    expect(leftovers(repo).volumes.filter((volume) => !volume.endsWith('-home'))).toEqual([]);
    // What the setups wrote into node_modules went into their worktrees' layers: the user's copy is as it was.
    expect(treeState(path.join(repo, 'node_modules'))).toEqual(userCopy);
  });

  it('a command over its time limit: its container is stopped and removed, its output kept', async () => {
    const processes = createProcessRegistry();
    const target = targetOf('r-limit');
    const started = Date.now();
    // The limit's stop reaches the container once it has printed (a busy engine can take longer
    // than the limit to start it: the stop before then is the next test's).
    const inContainer = containerStarter(target);
    const starter: StartProcess = (spec, callbacks, registry) => {
      let printed: () => void = () => undefined;
      const ran = new Promise<void>((resolve) => (printed = resolve));
      const handle = inContainer?.(
        spec,
        {
          ...callbacks,
          onLine: (line) => {
            callbacks.onLine(line);
            if (line === 'has-the-image-file') printed();
          },
        },
        registry,
      );
      if (handle === undefined) throw new Error('no container starter');
      void handle.exited.then(printed);
      return {
        get pid() {
          return handle.pid;
        },
        terminate: () => void ran.then(() => handle.terminate()),
        kill: () => void ran.then(() => handle.kill()),
        hasExited: () => handle.hasExited(),
        exited: handle.exited,
      };
    };

    const run = await runLimited(
      {
        file: 'sh',
        args: ['-c', `echo "in $HYDRA_WHERE"; test -f ${IN_IMAGE} && echo has-the-image-file; sleep 300`],
        cwd: repo,
        env: { HYDRA_WHERE: 'a container' },
        runId: 'r-limit',
        agent: 'check:claude:slow',
        graceMs: 1000,
      },
      processes,
      { timeoutMs: 3000, graceMs: 1000, outputBytes: 64 * 1024 },
      starter,
    );

    expect(run.timedOut).toBe(true);
    expect(run.exit.exitCode).toBeNull();
    expect(run.output).toContain('in a container');
    expect(run.output).toContain('has-the-image-file');
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(leftovers(repo).containers).toEqual([]);
  });

  it('a stop asked before the engine has made the container is not lost: it is asked again until the container ends', async () => {
    const processes = createProcessRegistry();
    const target = targetOf('r-early');
    const held: { handle?: Supervised | undefined } = {};
    const started = Date.now();
    // Stopped as soon as the docker CLI runs, before `docker run` has created the container
    // (the engine copies the image first): that `docker stop` finds no container.
    const handle = containerStarter(target)?.(
      {
        file: 'sh',
        args: ['-c', 'echo started; sleep 300'],
        cwd: repo,
        env: {},
        runId: 'r-early',
        agent: 'check:claude:early',
        graceMs: 1000,
      },
      { onSpawn: () => held.handle?.terminate(), onLine: () => undefined, onOversizeLine: () => undefined },
      processes,
    );
    held.handle = handle;
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      handle?.exited,
      new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 90_000))),
    ]);
    clearTimeout(timer);

    expect(exit).not.toBe('hung');
    expect(exit).toMatchObject({ exitCode: null });
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(leftovers(repo).containers).toEqual([]);
  });
});
