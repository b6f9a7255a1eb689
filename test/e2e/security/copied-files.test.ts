/**
 * Issue 23, "Copy": a git-ignored `.env` named by `.worktreeinclude` is in every worktree hydra
 * makes (the agent's, a pooled one, a rerun's, the baseline's and the checks' checkouts), its value
 * never reaches a record, and a result that commits the file or pastes its value is refused at merge.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeRun, startRace } from '../../../src/engine/index.js';
import { EngineError } from '../../../src/engine/errors.js';
import { worktreePoolDir } from '../../../src/engine/records/index.js';
import type { CheckSpec, RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import {
  createRepo,
  createSandbox as createCliSandbox,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import { claudeStreamSaying } from '../../support/security-helpers.js';
import { git, makeSandbox, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScript, raceScripts, registerScriptAgent, SCRIPT_AGENT } from '../../support/script-agent.js';

/** A value of no recognisable shape: only the copy makes it a secret. */
const SECRET = 'plain-but-private-7f3a9c';

const ENV_CHECK: CheckSpec = {
  name: 'env',
  // The check prints the file, so its recorded output must be redacted.
  run: 'sh -c "cat .env; test -f .env && grep -q API_KEY= .env"',
  timeoutMs: 20_000,
  gate: true,
};

/** The agent notes whether it found .env, echoes it (its output), and changes a tracked file. */
const SEES_ENV = `if test -f .env && grep -q API_KEY= .env; then echo yes > saw-env.txt; else echo no > saw-env.txt; fi
echo 'line 3' >> app.txt`;

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void = () => undefined;

beforeEach(() => {
  sandbox = makeSandbox();
  writeFileSync(path.join(sandbox.repo, '.gitignore'), '.env\n');
  writeFileSync(path.join(sandbox.repo, '.worktreeinclude'), '.env\n');
  git(sandbox.repo, 'add', '-A');
  git(sandbox.repo, 'commit', '-q', '-m', 'ignore .env');
  writeFileSync(path.join(sandbox.repo, '.env'), `API_KEY=${SECRET}\nNODE_ENV=development\n`);
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const recordText = (runId: string): string => {
  const dir = path.join(sandbox.repo, '.hydra', 'runs', runId);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
};

const raceAndFinish = async (
  body: string,
  checks: CheckSpec[] = [],
): Promise<{ runId: string; summary: RaceSummary }> => {
  handle = raceScript(sandbox, body, { checks });
  const summary = await handle.settled;
  const runId = handle.runId;
  await handle.finish();
  handle = null;
  return { runId, summary };
};

const branchFile = (runId: string, agent: string, file: string): string =>
  git(sandbox.repo, 'show', `hydra/${runId}/${agent}:${file}`);

describe('copied files (issue 23)', () => {
  it('are in the agent’s worktree, the baseline’s and the checks’ checkouts; never committed by hydra, never recorded', async () => {
    // The agent prints the file and reports its value: its output enters hydra's events.
    const binary = path.join(sandbox.dir, 'leaky-agent');
    writeFileSync(
      binary,
      `#!/bin/sh\n${SEES_ENV}\ncat .env\necho "{\\"type\\":\\"done\\",\\"result\\":\\"the key is $(sed -n 's/^API_KEY=//p' .env)\\"}"\n`,
    );
    chmodSync(binary, 0o755);
    handle = startRace(
      raceOptions(
        sandbox,
        [{ adapterId: SCRIPT_AGENT, binary, extraArgs: [], env: {}, idleTimeoutMs: 20_000 }],
        {
          checks: [ENV_CHECK],
        },
      ),
    );
    const summary = await handle.settled;
    const runId = handle.runId;
    await handle.finish();
    handle = null;
    const agent = summary.agents.find((item) => item.agent === SCRIPT_AGENT);
    expect(agent?.status).toBe('completed');
    expect(branchFile(runId, SCRIPT_AGENT, 'saw-env.txt').trim()).toBe('yes');
    // hydra's own `git add -A` leaves the ignored copy out of the result.
    expect(git(sandbox.repo, 'ls-tree', '-r', '--name-only', `hydra/${runId}/${SCRIPT_AGENT}`)).not.toMatch(
      /^\.env$/m,
    );
    // The checks found it in the clean checkout of the result and of the base.
    expect(agent?.checks?.map((check) => [check.name, check.status])).toEqual([['env', 'passed']]);
    expect(summary.baseline?.checks.map((check) => [check.name, check.status])).toEqual([['env', 'passed']]);
    expect(agent?.checks?.[0]?.output).toContain('[redacted: env API_KEY from .env]');
    // Recorded: the path and a hash, never the value; the agent's output says what was removed.
    const records = recordText(runId);
    expect(records).not.toContain(SECRET);
    expect(records).toContain('the key is [redacted: env API_KEY from .env]');
    const copied = JSON.parse(
      readFileSync(path.join(sandbox.repo, '.hydra/runs', runId, 'copied.json'), 'utf8'),
    ) as { files: Array<{ path: string }> };
    expect(copied.files.map((file) => file.path)).toEqual(['.env']);
    // hydra show prints from the record.
    const shown = await hydra(['show', runId], { cwd: sandbox.repo, env: { ...process.env, NO_COLOR: '1' } });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain(SECRET);
    // A clean result merges.
    const merged = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT);
    expect(merged.method).not.toBe('nothing-to-merge');
  });

  it('a result that commits the copied file (`git add -f .env`) is refused at merge, naming it and the fix', async () => {
    const { runId } = await raceAndFinish(
      `git add -f .env\ngit commit -q -m 'add env'\necho 'line 3' >> app.txt`,
    );
    expect(branchFile(runId, SCRIPT_AGENT, '.env')).toContain(SECRET);
    const mainBefore = git(sandbox.repo, 'rev-parse', 'main');
    const refused = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EngineError);
    const error = refused as EngineError;
    expect(error.kind).toBe('Refused');
    expect(error.message).toContain('commits .env, which hydra copied from your checkout');
    expect(error.hint).toContain('git rm --cached .env');
    expect(error.hint).toContain('--only');
    expect(git(sandbox.repo, 'rev-parse', 'main')).toBe(mainBefore);
    // The CLI says the same, and exits non-zero.
    const cli = await hydra(['merge', runId, SCRIPT_AGENT], {
      cwd: sandbox.repo,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(cli.exitCode).not.toBe(0);
    expect(cli.stderr).toContain('commits .env');
    expect(cli.stderr).not.toContain(SECRET);
  });

  it('a result that committed the file and removed it later is refused too (the squash merges)', async () => {
    const { runId } = await raceAndFinish(
      `git add -f .env\ngit commit -q -m 'add env'\ngit rm -q --cached .env\ngit commit -q -m 'drop env'\necho 'line 3' >> app.txt`,
    );
    const refused = (await mergeRun(sandbox.repo, runId, SCRIPT_AGENT).catch(
      (error: unknown) => error,
    )) as EngineError;
    expect(refused.kind).toBe('Refused');
    expect(refused.message).toMatch(/commit [0-9a-f]{12} \("add env"\) commits \.env/);
    expect(refused.hint).toContain('--squash');
    const squashed = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT, { squash: true });
    expect(squashed.method).toBe('squash');
    expect(git(sandbox.repo, 'log', '-p', 'main')).not.toContain(SECRET);
  });

  it('a result that pastes a copied value into a tracked file is refused at merge', async () => {
    const { runId } = await raceAndFinish(
      `echo "const key = '$(sed -n 's/^API_KEY=//p' .env)';" > config.js`,
    );
    expect(branchFile(runId, SCRIPT_AGENT, 'config.js')).toContain(SECRET);
    const refused = (await mergeRun(sandbox.repo, runId, SCRIPT_AGENT).catch(
      (error: unknown) => error,
    )) as EngineError;
    expect(refused).toBeInstanceOf(EngineError);
    expect(refused.kind).toBe('Refused');
    expect(refused.message).toContain('the value of API_KEY from .env in config.js');
    expect(refused.message).not.toContain(SECRET);
    // Still found when the user's .env changed since the race: by the recorded hash.
    writeFileSync(path.join(sandbox.repo, '.env'), 'API_KEY=rotated-value-0000\n');
    const again = (await mergeRun(sandbox.repo, runId, SCRIPT_AGENT).catch(
      (error: unknown) => error,
    )) as EngineError;
    expect(again.message).toContain('the value of API_KEY from .env in config.js');
  });

  it('--auto-merge best refuses a best result that holds a copied value, and merges nothing', async () => {
    handle = raceScript(sandbox, `echo "const key = '$(sed -n 's/^API_KEY=//p' .env)';" > config.js`, {
      checks: [ENV_CHECK],
      autoMerge: 'best',
    });
    await handle.settled;
    const summary = await handle.finish();
    handle = null;
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toBe(
      `--auto-merge best could not merge: ${SCRIPT_AGENT}'s result adds what looks like a secret: the value of API_KEY from .env in config.js.`,
    );
    expect(existsSync(path.join(sandbox.repo, 'config.js'))).toBe(false);
  });

  it('a pooled worktree and a rerun’s get the file again', async () => {
    const first = raceScript(sandbox, SEES_ENV, { worktreePool: 1 });
    handle = first;
    await first.settled;
    await first.finish();
    handle = null;
    // The pool holds the first race's worktree, without its ignored files (clean -ffdx).
    expect(readdirSync(worktreePoolDir(sandbox.worktreeRoot, sandbox.repo))).toHaveLength(1);
    handle = raceScripts(sandbox, { [SCRIPT_AGENT]: SEES_ENV }, { worktreePool: 1 });
    await handle.settled;
    const runId = handle.runId;
    expect(branchFile(runId, SCRIPT_AGENT, 'saw-env.txt').trim()).toBe('yes');
    const rerun = await handle.startRound({ kind: 'rerun', agent: SCRIPT_AGENT });
    const second = rerun.agents.find((item) => item.agent === `${SCRIPT_AGENT}-2`);
    expect(second?.status).toBe('completed');
    expect(branchFile(runId, `${SCRIPT_AGENT}-2`, 'saw-env.txt').trim()).toBe('yes');
    await handle.finish();
    handle = null;
  });
});

describe('copied values in headless output (issue 23)', () => {
  it('are redacted from `hydra race --json`, the record and `hydra show`', async () => {
    const cli = createCliSandbox();
    try {
      const repo = await createRepo(cli.dir);
      writeFileSync(path.join(repo, '.gitignore'), '.env\n');
      writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'ignore .env');
      writeFileSync(path.join(repo, '.env'), `API_KEY=${SECRET}\n`);
      // A fake Claude that "read" the file: it says the value as it works and in its result.
      await installFakes(cli.bin, {
        claude: {
          agent: 'claude',
          delayMs: 2,
          lines: claudeStreamSaying(`I found API_KEY=${SECRET} in .env`, `Done; the key was ${SECRET}.`),
        },
      });
      const result = await hydra(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], {
        cwd: repo,
        env: cli.env,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      const runId = (parseNdjson(result.stdout)[0] as { runId: string }).runId;
      const show = await hydra(['show', runId], { cwd: repo, env: cli.env });
      const events = readFileSync(path.join(repo, '.hydra', 'runs', runId, 'events.jsonl'), 'utf8');
      for (const [where, text] of Object.entries({
        stdout: result.stdout,
        stderr: result.stderr,
        events,
        show: show.stdout,
      }))
        expect(text.includes(SECRET), `${where} holds the copied value`).toBe(false);
      expect(result.stdout).toContain('[redacted: env API_KEY from .env]');
    } finally {
      cli.cleanup();
    }
  });
});
