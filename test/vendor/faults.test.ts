/**
 * The real CLIs against model servers that misbehave, through the real `hydra race --json`:
 * - a server that stops answering mid-stream: hydra's idle timeout stops each CLI, and its whole
 *   process tree is gone;
 * - a CLI whose shell tool leaves a background child running after the result: the result is
 *   kept, and the child is gone once the race is over;
 * - a server that keeps the final response open after its last event. Neither pinned CLI lingers
 *   after printing its result here: Codex exits at once, and Claude Code waits for the response to
 *   end before it prints its result at all, so it meets the idle timeout like a stalled server
 *   (nor does it linger when its side requests are never answered, or when its tool leaves a child).
 *   A CLI that does print its result and hang is covered with the fake agents
 *   (test/e2e/faults/, the result grace).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import {
  createRaceSandbox,
  hydraResult,
  parseNdjson,
  sandboxProcesses,
  summaryAgent,
  worktreePaths,
} from './race-harness.js';
import type { HydraResult, RaceSandbox, RaceScenarios, SummaryLine } from './race-harness.js';

const AGENTS: VendorAgent[] = ['claude', 'codex'];
const PROMPT = 'Create hello.txt containing a short greeting.';

const explain = (result: HydraResult): string =>
  `hydra exit ${String(result.exitCode)}\n--- stderr ---\n${result.stderr}\n--- stdout (last 3000 chars) ---\n${result.stdout.slice(-3000)}`;

const summaryOf = (result: HydraResult): SummaryLine => {
  const last = parseNdjson(result.stdout).at(-1);
  if (last?.type !== 'summary')
    throw new Error(`the last NDJSON line is not the summary:\n${explain(result)}`);
  return last as unknown as SummaryLine;
};

const hydraBranches = async (sandbox: RaceSandbox): Promise<string[]> =>
  (await sandbox.git(['branch', '--list', 'hydra/*', '--format=%(refname:short)']))
    .split('\n')
    .filter((line) => line !== '');

interface FaultRun {
  sandbox: RaceSandbox;
  race: HydraResult;
  summary: SummaryLine;
  /** Every process of the sandbox seen while hydra ran (polled every 100 ms), as `pid args (cwd)`. */
  seen: Set<string>;
}

/** Races both real CLIs against the given servers, watching the sandbox's processes meanwhile. */
const raceAgainst = async (scenarios: RaceScenarios, args: string[]): Promise<FaultRun> => {
  const sandbox = await createRaceSandbox(scenarios);
  const seen = new Set<string>();
  const watch = setInterval(() => {
    for (const line of sandboxProcesses(sandbox.dir, [])) seen.add(line);
  }, 100);
  try {
    const race = await hydraResult(sandbox.spawnHydra(['race', '--json', ...args, PROMPT]));
    return { sandbox, race, summary: summaryOf(race), seen };
  } finally {
    clearInterval(watch);
  }
};

/** No process of the race, no worktree and no hydra branch once `hydra clean` ran. */
const expectNothingLeft = async (run: FaultRun): Promise<void> => {
  expect(sandboxProcesses(run.sandbox.dir, [run.summary.runId])).toEqual([]);
  const clean = await run.sandbox.hydra(['clean']);
  expect(clean.exitCode, explain(clean)).toBe(0);
  expect(worktreePaths(await run.sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([
    run.sandbox.repo,
  ]);
  expect(await hydraBranches(run.sandbox)).toEqual([]);
};

describe('hydra race --json when both model servers stop answering mid-stream', () => {
  let run: FaultRun;

  beforeAll(async () => {
    // Longer than a CLI's silent start: at load 10 Claude Code printed nothing and sent no request
    // for its first 5 s, so a 5 s limit stopped it before the stall this is about.
    run = await raceAgainst({ claude: 'stall-mid-stream', codex: 'stall-mid-stream' }, [
      '--idle-timeout',
      '20',
    ]);
  }, 300_000);

  afterAll(async () => {
    await run?.sandbox.cleanup();
  });

  it('the servers began a stream for each CLI, and the CLIs ran (so the checks below can fail)', () => {
    for (const agent of AGENTS) {
      expect(
        run.sandbox.servers[agent].requests.some((request) => request.method === 'POST'),
        agent,
      ).toBe(true);
      expect(
        [...run.seen].some((line) => line.includes(`/bin/${agent}`)),
        [...run.seen].join('\n'),
      ).toBe(true);
    }
  });

  it('stops both CLIs as timed out (idle), each with a hint, and exits 1', () => {
    expect(run.race.exitCode, explain(run.race)).toBe(1);
    for (const agent of AGENTS) {
      const entry = summaryAgent(run.summary, agent);
      expect(entry.status, JSON.stringify(entry)).toBe('timed_out');
      expect(entry.error?.kind).toBe('TimedOut');
      expect(entry.error?.message).toMatch(/idle timeout/);
      expect(entry.error?.hint.length).toBeGreaterThan(0);
    }
  });

  it('leaves no process of either CLI (nor a child of one), no worktree and no branch', async () => {
    await expectNothingLeft(run);
  });
});

describe("hydra race --json --unsafe when each CLI's shell tool leaves a background child", () => {
  let run: FaultRun;

  beforeAll(async () => {
    run = await raceAgainst({ claude: 'bash-leaves-child', codex: 'shell-leaves-child' }, [
      '--unsafe',
      '--idle-timeout',
      '30',
    ]);
  }, 300_000);

  afterAll(async () => {
    await run?.sandbox.cleanup();
  });

  it('keeps both results: completed with the file, exit 0', () => {
    expect(run.race.exitCode, explain(run.race)).toBe(0);
    for (const agent of AGENTS)
      expect(summaryAgent(run.summary, agent), agent).toMatchObject({
        status: 'completed',
        diff: { filesChanged: 1 },
      });
  });

  it('the background child really ran, and is gone after the race', async () => {
    const children = [...run.seen].filter((line) => line.includes('sleep 313'));
    expect(children.length, [...run.seen].join('\n')).toBeGreaterThan(0);
    const alive = sandboxProcesses(run.sandbox.dir, []).filter((line) => line.includes('sleep 313'));
    expect(alive).toEqual([]);
    await expectNothingLeft(run);
  });
});

describe('hydra race --json when the model servers keep the final response open after its last event', () => {
  let run: FaultRun;

  beforeAll(async () => {
    run = await raceAgainst({ claude: 'hold-open-after-result', codex: 'hold-open-after-result' }, [
      '--idle-timeout',
      '5',
    ]);
  }, 300_000);

  afterAll(async () => {
    await run?.sandbox.cleanup();
  });

  it('codex completes and exits; claude, which waits for the response to end, is stopped as idle', () => {
    expect(summaryAgent(run.summary, 'codex')).toMatchObject({
      status: 'completed',
      diff: { filesChanged: 1 },
    });
    expect(summaryAgent(run.summary, 'claude')).toMatchObject({
      status: 'timed_out',
      error: { kind: 'TimedOut' },
    });
    expect(run.race.exitCode, explain(run.race)).toBe(0);
  });

  it('leaves no process of either CLI behind', async () => {
    await expectNothingLeft(run);
  });
});
