/**
 * hydra end to end with the real, pinned Claude Code and Codex CLIs: `hydra doctor`, `hydra race
 * --json`, `hydra merge` and `hydra clean` spawned as processes in a temp repository holding
 * uncommitted user work, the agents pointed at the fake model servers through their environment
 * (and codex's config.toml in CODEX_HOME), as a user's shell would.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/registry.js';
import type { SpawnRequest } from '../../src/adapters/types.js';
import { RECORD_VERSIONS } from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, EDIT_FILE, FINAL_TEXT, probeVendor, userTexts } from './harness.js';
import {
  CONFIGURED_CODEX_PRICE,
  CONFIGURED_MODELS,
  USER_MODIFIED,
  USER_UNTRACKED,
  claudeWorkingDirectory,
  createRaceSandbox,
  hydraResult,
  parseNdjson,
  readIfExists,
  sandboxProcesses,
  summaryAgent,
  waitFor,
  worktreePaths,
} from './race-harness.js';
import type { HydraResult, NdjsonLine, RaceSandbox, SummaryLine } from './race-harness.js';

const AGENTS = ['claude', 'codex'] as const satisfies readonly VendorAgent[];
const PROMPT = 'Create hello.txt containing a short greeting.';
/** Starts with a dash, holds both kinds of quotes, a backslash and shell syntax. */
const DASH_PROMPT = `-v --help fix it "double" 'single' \\back $(id) --`;

/** The usage the fake servers report (fixed per turn; see test/support/), as hydra must normalize it. */
const CODEX_USAGE = { inputTokens: 4400 - 2048, cacheReadTokens: 2048, outputTokens: 74 };

interface DoctorAdapter {
  id: string;
  tier: string;
  status: string;
  binary: string | null;
  version: string | null;
  capabilities: Record<string, unknown> | null;
  command: string[] | null;
  warnings: string[];
  error: { kind: string; message: string; hint: string } | null;
}

interface RunMeta {
  prompt: string;
  agents: Array<{ agent: string; worktree: string; version: string | null; command: string[] }>;
}

/** What went wrong, for failure messages: hydra's stderr and the end of its stdout. */
const explain = (result: HydraResult): string =>
  `hydra exit ${String(result.exitCode)}\n--- stderr ---\n${result.stderr}\n--- stdout (last 3000 chars) ---\n${result.stdout.slice(-3000)}`;

const summaryOf = (lines: NdjsonLine[]): SummaryLine => {
  const last = lines.at(-1);
  if (last?.type !== 'summary')
    throw new Error(`the last NDJSON line is not the summary: ${JSON.stringify(last)}`);
  return last as unknown as SummaryLine;
};

const readMeta = (sandbox: RaceSandbox, runId: string): RunMeta =>
  JSON.parse(readFileSync(join(sandbox.repo, '.hydra', 'runs', runId, 'meta.json'), 'utf8')) as RunMeta;

const hydraBranches = async (sandbox: RaceSandbox): Promise<string[]> =>
  (await sandbox.git(['branch', '--list', 'hydra/*', '--format=%(refname:short)']))
    .split('\n')
    .filter((line) => line !== '');

/** The user's uncommitted work is exactly as it was: the untracked file and the modified README. */
const expectUserWorkIntact = async (sandbox: RaceSandbox): Promise<void> => {
  expect(readIfExists(join(sandbox.repo, USER_UNTRACKED.path))).toBe(USER_UNTRACKED.content);
  expect(readIfExists(join(sandbox.repo, USER_MODIFIED.path))).toBe(USER_MODIFIED.content);
  const status = await sandbox.git(['status', '--porcelain', '--untracked-files=all']);
  expect(status).toContain(` M ${USER_MODIFIED.path}`);
  expect(status).toContain(`?? ${USER_UNTRACKED.path}`);
};

describe('hydra doctor, race, merge and clean with the real claude and codex', () => {
  let sandbox: RaceSandbox;
  let doctor: HydraResult;
  let race: HydraResult;
  let lines: NdjsonLine[];
  let summary: SummaryLine;
  let headBefore: string;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'success-edit', codex: 'success-edit' });
    headBefore = await sandbox.git(['rev-parse', 'HEAD']);
    doctor = await sandbox.hydra(['doctor', '--json']);
    race = await sandbox.hydra(['race', '--json', '--keep-worktrees', PROMPT]);
    lines = parseNdjson(race.stdout);
    summary = summaryOf(lines);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  describe('hydra doctor --json', () => {
    const adapters = (): DoctorAdapter[] =>
      (JSON.parse(doctor.stdout) as { adapters: DoctorAdapter[] }).adapters;
    const report = (id: VendorAgent): DoctorAdapter => {
      const found = adapters().find((adapter) => adapter.id === id);
      if (found === undefined) throw new Error(`doctor reports no ${id}: ${doctor.stdout}`);
      return found;
    };

    it('exits 0 and finds both CLIs ready at the pinned versions, where PATH puts them', () => {
      expect(doctor.exitCode, explain(doctor)).toBe(0);
      for (const agent of AGENTS) {
        const entry = report(agent);
        expect(entry.status, JSON.stringify(entry)).toBe('ready');
        expect(entry.version).toBe(RECORD_VERSIONS[agent]);
        expect(entry.binary).toBe(join(sandbox.dir, 'bin', agent));
        expect(entry.error).toBeNull();
      }
      expect(report('cursor' as VendorAgent).status).toBe('needs-opt-in');
    });

    it('races them under the default containment, a PID namespace per agent with its own /proc', () => {
      // Codex's sandbox (bubblewrap) hung every race in a PID namespace that showed the host's /proc.
      expect((JSON.parse(doctor.stdout) as { processes: unknown }).processes).toEqual({
        containment: 'pid-namespace',
        description: expect.stringContaining('--mount-proc') as unknown,
        summary: expect.stringContaining('--mount-proc') as unknown,
        // The process table from /proc, and the watchdog for a hydra killed with -9 (issue 37).
        table: 'proc',
        watchdog: true,
      });
    });

    it.each(AGENTS)(
      'shows for %s the capabilities and exact command the adapter builds from its own probe',
      async (agent) => {
        const entry = report(agent);
        const adapter = getAdapter(agent);
        if (adapter === undefined) throw new Error(`no adapter for ${agent}`);
        const probed = await probeVendor(agent, RECORD_VERSIONS[agent], sandbox.home);
        const capabilities = { ...probed, binary: join(sandbox.dir, 'bin', agent) };
        const sample: SpawnRequest = {
          prompt: 'Say hello',
          cwd: '<worktree>',
          scratchDir: '<scratch>',
          unsafe: false,
          // As a race here runs it: sandboxed where the sandbox is available (no-approval mode).
          sandboxed: (JSON.parse(doctor.stdout) as { sandbox: { available: boolean } }).sandbox.available,
          extraArgs: [],
          env: {},
        };

        expect(entry.capabilities).toEqual(JSON.parse(JSON.stringify(capabilities)));
        expect(entry.command).toEqual([
          capabilities.binary,
          ...adapter.buildCommand(sample, capabilities).args,
        ]);
        // Independent of the adapter: headless JSON output and the prompt after `--`.
        const command = entry.command ?? [];
        expect(command.slice(-2)).toEqual(['--', 'Say hello']);
        if (agent === 'claude') {
          expect(command).toEqual(
            expect.arrayContaining(['-p', '--output-format', 'stream-json', '--verbose']),
          );
          // Sandboxed, it runs every command without asking; unsandboxed, it only edits.
          expect(command.join(' ')).toContain(
            `--permission-mode ${sample.sandboxed === true ? 'bypassPermissions' : 'acceptEdits'}`,
          );
        } else {
          expect(command[1]).toBe('exec');
          expect(command).toContain('--json');
        }
      },
    );
  });

  describe('hydra race --json', () => {
    it('exits 0 and prints only NDJSON: the race line first, agent events, the summary last', async () => {
      expect(race.exitCode, explain(race)).toBe(0);
      expect(lines[0]).toEqual({
        type: 'race',
        runId: summary.runId,
        baseRef: headBefore,
        agents: ['claude', 'codex'],
        // The sandbox holds uncommitted user work on purpose: hydra says the agents will not see it.
        warnings: [expect.stringContaining('You have 2 uncommitted changes')],
      });
      const middle = lines.slice(1, -1);
      expect(middle.length).toBeGreaterThan(0);
      for (const line of middle) {
        expect(line).toEqual({
          type: 'agent_event',
          agent: expect.stringMatching(/^(claude|codex)$/),
          // Named agents (main): each line also says which CLI the agent runs; here the same name.
          adapter: line.agent,
          event: expect.anything(),
        });
        expect(typeof (line.event as { kind?: unknown }).kind).toBe('string');
      }
      for (const agent of AGENTS) {
        const kinds = middle
          .filter((line) => line.agent === agent)
          .map((line) => (line.event as { kind: string }).kind);
        expect(kinds, `${agent} events`).toContain('tool_call');
        expect(kinds, `${agent} events`).toContain('completed');
      }
    });

    it('ends both agents completed, each with usage, claude with its reported cost', () => {
      for (const agent of AGENTS) {
        const entry = summaryAgent(summary, agent);
        expect(entry, JSON.stringify(entry)).toMatchObject({
          status: 'completed',
          exitCode: 0,
          branch: `hydra/${summary.runId}/${agent}`,
        });
        expect(entry.error).toBeUndefined();
        expect(entry.usage.inputTokens).toBeGreaterThan(0);
        expect(entry.usage.outputTokens).toBeGreaterThan(0);
        expect(entry.diff).toEqual({ filesChanged: 1, insertions: 1, deletions: 0 });
      }
      const claude = summaryAgent(summary, 'claude');
      expect(claude.usage.costSource).toBe('reported');
      expect(claude.usage.costUsd).toBeGreaterThan(0);
      // 1200 + 1300 uncached input tokens over the two turns the fake server answers.
      expect(claude.usage.inputTokens).toBeGreaterThanOrEqual(2500);
      expect(summaryAgent(summary, 'codex').usage).toMatchObject(CODEX_USAGE);
    });

    it('had each agent edit the file in its own worktree, on its own branch, and left the user repository alone', async () => {
      const worktrees = AGENTS.map((agent) => summaryAgent(summary, agent).worktree);
      expect(new Set(worktrees).size).toBe(2);
      for (const [index, agent] of AGENTS.entries()) {
        const worktree = worktrees[index];
        expect(worktree, `${agent} worktree`).toEqual(expect.stringContaining(sandbox.worktreeRoot));
        expect(readIfExists(join(worktree ?? '', EDIT_FILE)), `${agent} edit`).toBe(EDIT_CONTENT);
        expect(await sandbox.git(['show', `hydra/${summary.runId}/${agent}:${EDIT_FILE}`])).toBe(
          EDIT_CONTENT.trimEnd(),
        );
        // The user's uncommitted work is not copied into the agents' worktrees.
        expect(readIfExists(join(worktree ?? '', USER_UNTRACKED.path))).toBeNull();
      }
      // Claude wrote where its own working directory was, which is its worktree.
      const claudeCwd = claudeWorkingDirectory(
        sandbox.servers.claude.requests.find((request) => request.text.includes('working directory')),
      );
      expect(claudeCwd).toBe(summaryAgent(summary, 'claude').worktree);
      expect(readIfExists(join(sandbox.repo, EDIT_FILE))).toBeNull();
      expect(await sandbox.git(['rev-parse', 'HEAD'])).toBe(headBefore);
      await expectUserWorkIntact(sandbox);
    });

    it('ran the very command doctor showed, with the prompt and the worktree filled in', () => {
      const meta = readMeta(sandbox, summary.runId);
      const shown = JSON.parse(doctor.stdout) as { adapters: DoctorAdapter[] };
      expect(meta.prompt).toBe(PROMPT);
      for (const agent of AGENTS) {
        const ran = meta.agents.find((entry) => entry.agent === agent);
        const sample = shown.adapters.find((entry) => entry.id === agent)?.command ?? [];
        const expected = sample.map((arg) =>
          arg === 'Say hello' ? PROMPT : arg.replaceAll('<worktree>', ran?.worktree ?? ''),
        );
        expect(ran?.version).toBe(RECORD_VERSIONS[agent]);
        expect(ran?.command.filter((arg) => !arg.includes('/.scratch/'))).toEqual(
          expected.filter((arg) => !arg.includes('<scratch>')),
        );
      }
    });

    it('left no vendor CLI process running', () => {
      expect(sandboxProcesses(sandbox.dir, [summary.runId])).toEqual([]);
    });
  });

  describe('hydra merge <run-id> claude, then hydra clean', () => {
    let merge: HydraResult;
    let afterMerge: string[];
    let clean: HydraResult;

    beforeAll(async () => {
      merge = await sandbox.hydra(['merge', summary.runId, 'claude']);
      afterMerge = worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']));
      clean = await sandbox.hydra(['clean', summary.runId]);
    }, 120_000);

    it("lands claude's file on the base branch and keeps the user's uncommitted work", async () => {
      expect(merge.exitCode, explain(merge)).toBe(0);
      expect(await sandbox.git(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');
      expect(await sandbox.git(['show', `HEAD:${EDIT_FILE}`])).toBe(EDIT_CONTENT.trimEnd());
      expect(await sandbox.git(['merge-base', '--is-ancestor', headBefore, 'HEAD']).then(() => true)).toBe(
        true,
      );
      expect(readIfExists(join(sandbox.repo, EDIT_FILE))).toBe(EDIT_CONTENT);
      await expectUserWorkIntact(sandbox);
    });

    it("keeps codex's result after the merge, so the choice stays open until hydra clean", () => {
      expect(afterMerge).toHaveLength(2);
      expect(afterMerge[1]).toMatch(/\/codex$/);
    });

    it('hydra clean removes every race worktree (git worktree list shows only the repository)', async () => {
      expect(clean.exitCode, explain(clean)).toBe(0);
      expect(worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([sandbox.repo]);
      expect(await hydraBranches(sandbox), 'codex lost, so its branch goes').not.toContain(
        `hydra/${summary.runId}/codex`,
      );
    });

    it('records the race: hydra runs --json lists it merged, hydra show prints the real events', async () => {
      const runs = await sandbox.hydra(['runs', '--json']);
      const show = await sandbox.hydra(['show', summary.runId]);

      expect(runs.exitCode, explain(runs)).toBe(0);
      const entry = (JSON.parse(runs.stdout) as { runs: Array<Record<string, unknown>> }).runs.find(
        (run) => run.runId === summary.runId,
      );
      expect(entry).toMatchObject({
        state: 'finished',
        prompt: PROMPT,
        merged: { agent: 'claude', commit: await sandbox.git(['rev-parse', 'HEAD']) },
        // Every agent's cost, Codex's estimated from the price table (main counts both now).
        totalCostUsd: expect.closeTo(
          AGENTS.reduce((sum, agent) => sum + (summaryAgent(summary, agent).usage.costUsd ?? 0), 0),
          6,
        ),
      });
      expect((entry?.agents as Array<{ status: string }>).map((agent) => agent.status)).toEqual([
        'completed',
        'completed',
      ]);
      expect(show.exitCode, explain(show)).toBe(0);
      expect(show.stdout).toContain('Write');
      expect(show.stdout).toContain(FINAL_TEXT);
    });

    it('leaves nothing behind after hydra clean: no worktree, no hydra branch, no process', async () => {
      const clean = await sandbox.hydra(['clean']);

      expect(clean.exitCode, explain(clean)).toBe(0);
      expect(worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([sandbox.repo]);
      expect(await hydraBranches(sandbox)).toEqual([]);
      expect(sandboxProcesses(sandbox.dir, [summary.runId])).toEqual([]);
      expect(await sandbox.git(['show', `HEAD:${EDIT_FILE}`])).toBe(EDIT_CONTENT.trimEnd());
      await expectUserWorkIntact(sandbox);
    });
  });
});

describe('hydra race --json when both APIs answer 401', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'auth-failure', codex: 'auth-failure' });
    race = await sandbox.hydra(['race', '--json', PROMPT]);
    summary = summaryOf(parseNdjson(race.stdout));
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('exits 1 with both agents failed as AuthMissing, each with a hint', () => {
    expect(race.exitCode, explain(race)).toBe(1);
    for (const agent of AGENTS) {
      const entry = summaryAgent(summary, agent);
      expect(entry.status, JSON.stringify(entry)).toBe('failed');
      expect(entry.error?.kind, JSON.stringify(entry.error)).toBe('AuthMissing');
      expect(entry.error?.message.length).toBeGreaterThan(0);
      expect(entry.error?.hint.length, `${agent} hint`).toBeGreaterThan(0);
    }
    // The servers really were asked (hydra did not fail before launching the CLIs).
    for (const agent of AGENTS)
      expect(sandbox.servers[agent].requests.length, `${agent} requests`).toBeGreaterThan(0);
  });

  it('removes the worktrees and branches of failed agents, keeps the user work, and leaves no process', async () => {
    expect(worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([sandbox.repo]);
    expect(await hydraBranches(sandbox)).toEqual([]);
    expect(sandboxProcesses(sandbox.dir, [summary.runId])).toEqual([]);
    await expectUserWorkIntact(sandbox);
  });
});

describe('hydra race -- "<prompt starting with a dash>"', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'reply-text', codex: 'reply-text' });
    race = await sandbox.hydra(['race', '--json', '--', DASH_PROMPT]);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it.each(AGENTS)('delivers the prompt to %s byte for byte (the fake server logged it)', (agent) => {
    expect(race.exitCode, explain(race)).toBe(0);
    expect(userTexts(agent, sandbox.servers[agent].requests)).toContain(DASH_PROMPT);
    const summary = summaryOf(parseNdjson(race.stdout));
    expect(summaryAgent(summary, agent).status).toBe('completed');
    const result = parseNdjson(race.stdout).find(
      (line) => line.agent === agent && (line.event as { kind?: string }).kind === 'completed',
    );
    expect((result?.event as { result?: string } | undefined)?.result).toBe(FINAL_TEXT);
  });
});

describe('hydra race --json with the agents set up only in a hydra config file', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'success-edit', codex: 'success-edit' }, 'hydra-toml');
    race = await sandbox.hydra(['race', '--json', '--config', sandbox.configPath ?? '', PROMPT]);
    summary = summaryOf(parseNdjson(race.stdout));
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('runs the configured binaries with the configured env, extra_args and models; both complete', () => {
    expect(race.exitCode, explain(race)).toBe(0);
    for (const agent of AGENTS) {
      expect(summaryAgent(summary, agent), agent).toMatchObject({
        status: 'completed',
        diff: { filesChanged: 1 },
      });
      const models = sandbox.servers[agent].requests.map(
        (request) => (request.json as { model?: unknown } | undefined)?.model,
      );
      expect(models, `${agent} request models`).toContain(CONFIGURED_MODELS[agent]);
    }
  });

  it("prices codex's tokens with the configured price for the configured model", () => {
    const { usage } = summaryAgent(summary, 'codex');
    const perToken = (perMillion: number): number => perMillion / 1_000_000;
    const expected =
      usage.inputTokens * perToken(CONFIGURED_CODEX_PRICE.input_per_mtok) +
      usage.cacheReadTokens * perToken(CONFIGURED_CODEX_PRICE.cache_read_per_mtok) +
      usage.outputTokens * perToken(CONFIGURED_CODEX_PRICE.output_per_mtok);

    expect(usage).toMatchObject({ ...CODEX_USAGE, costSource: 'estimated' });
    expect(usage.costUsd).toBeCloseTo(expected, 6);
    expect(summaryAgent(summary, 'claude').usage.costSource).toBe('reported');
  });
});

describe('hydra race --json stopped with SIGTERM while both real CLIs wait on the model', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let runId: string;
  let whileRunning: string[];

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'hang', codex: 'hang' });
    const running = sandbox.spawnHydra(['race', '--json', PROMPT]);
    try {
      await waitFor(
        () =>
          AGENTS.every((agent) =>
            sandbox.servers[agent].requests.some((request) => request.method === 'POST'),
          ),
        'both CLIs to send a model request to the servers that never answer',
      );
      runId = readdirSync(join(sandbox.repo, '.hydra', 'runs'))[0] ?? '';
      whileRunning = sandboxProcesses(sandbox.dir, [runId]);
    } finally {
      // A plain SIGTERM, as a user's `kill` sends: execa's own kill() adds a SIGKILL 5 s later
      // (forceKillAfterDelay), shorter than the agents' own 5 s grace plus the clean-up, which
      // killed hydra mid-cancel (exit code null, the CLIs left to the watchdog).
      if (running.pid !== undefined) process.kill(running.pid, 'SIGTERM');
    }
    race = await hydraResult(running);
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('saw the vendor CLIs running before the signal (so the checks below can fail)', () => {
    expect(
      whileRunning.some((line) => line.includes(join(sandbox.dir, 'bin', 'claude'))),
      whileRunning.join('\n'),
    ).toBe(true);
    expect(
      whileRunning.some((line) => line.includes(join(sandbox.dir, 'bin', 'codex'))),
      whileRunning.join('\n'),
    ).toBe(true);
  });

  it('exits 130 after printing the summary with both agents cancelled', () => {
    expect(race.exitCode, explain(race)).toBe(130);
    const summary = summaryOf(parseNdjson(race.stdout));
    expect(summary.runId).toBe(runId);
    for (const agent of AGENTS) expect(summaryAgent(summary, agent).status, agent).toBe('cancelled');
  });

  it('leaves no vendor CLI process (nor a child of one), no worktree and no branch behind', async () => {
    expect(sandboxProcesses(sandbox.dir, [runId])).toEqual([]);
    expect(worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([sandbox.repo]);
    expect(await hydraBranches(sandbox)).toEqual([]);
    await expectUserWorkIntact(sandbox);
  });
});

describe('hydra race --json --idle-timeout with both real CLIs stuck on the model', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'hang', codex: 'hang' });
    race = await sandbox.hydra(['race', '--json', '--idle-timeout', '3', PROMPT]);
    summary = summaryOf(parseNdjson(race.stdout));
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('stops both as timed out with a hint and exits 1', () => {
    expect(race.exitCode, explain(race)).toBe(1);
    for (const agent of AGENTS) {
      const entry = summaryAgent(summary, agent);
      expect(entry.status, JSON.stringify(entry)).toBe('timed_out');
      expect(entry.error?.kind, JSON.stringify(entry.error)).toBe('TimedOut');
      expect(entry.error?.hint.length, `${agent} hint`).toBeGreaterThan(0);
    }
  });

  it('leaves no vendor CLI process, no worktree and no branch behind', async () => {
    expect(sandboxProcesses(sandbox.dir, [summary.runId])).toEqual([]);
    expect(worktreePaths(await sandbox.git(['worktree', 'list', '--porcelain']))).toEqual([sandbox.repo]);
    expect(await hydraBranches(sandbox)).toEqual([]);
  });
});

describe('hydra race --json --unsafe with the real CLIs', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'success-edit', codex: 'success-edit' });
    race = await sandbox.hydra(['race', '--json', '--unsafe', PROMPT]);
    summary = summaryOf(parseNdjson(race.stdout));
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it("runs the vendors' bypass modes with a warning, and both complete (Claude Code even as root)", () => {
    expect(race.exitCode, explain(race)).toBe(0);
    expect(race.stderr.toLowerCase()).toContain('unsafe');
    const meta = readMeta(sandbox, summary.runId);
    const command = (agent: VendorAgent): string[] =>
      meta.agents.find((entry) => entry.agent === agent)?.command ?? [];
    expect(command('claude').join(' ')).toContain('--permission-mode bypassPermissions');
    expect(command('codex')).toContain('--dangerously-bypass-approvals-and-sandbox');
    for (const agent of AGENTS) {
      expect(summaryAgent(summary, agent), agent).toMatchObject({
        status: 'completed',
        diff: { filesChanged: 1 },
      });
    }
  });
});

/**
 * Every CLI the vendor suite installs, raced together: the tier-1 ones and the experimental ones
 * (opted in). One entry per line, so another CLI joins the list with a line of its own.
 */
// prettier-ignore
const ALL_AGENTS: VendorAgent[] = [
  'claude',
  'codex',
  'gemini',
  'qwen',
  'opencode',
];

describe('hydra race --json with every vendor CLI together', () => {
  let sandbox: RaceSandbox;
  let doctor: HydraResult;
  let race: HydraResult;
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({
      claude: 'success-edit',
      codex: 'success-edit',
      gemini: 'success-edit',
      qwen: 'success-edit',
      opencode: 'success-edit',
    });
    doctor = await sandbox.hydra(['doctor', '--json', '--allow-experimental-adapters']);
    race = await sandbox.hydra([
      'race',
      '--json',
      '--allow-experimental-adapters',
      '--agents',
      ALL_AGENTS.join(','),
      PROMPT,
    ]);
    summary = summaryOf(parseNdjson(race.stdout));
  }, 300_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('finds every CLI ready at its pinned version (hydra doctor --allow-experimental-adapters)', () => {
    const adapters = (JSON.parse(doctor.stdout) as { adapters: DoctorAdapter[] }).adapters;
    for (const agent of ALL_AGENTS) {
      const entry = adapters.find((adapter) => adapter.id === agent);
      expect(entry?.status, JSON.stringify(entry)).toBe('ready');
      expect(entry?.version).toBe(RECORD_VERSIONS[agent]);
    }
  });

  it('completes every agent with usage, each having called the model', () => {
    expect(race.exitCode, explain(race)).toBe(0);
    expect(summary.agents.map((entry) => entry.agent).sort()).toEqual([...ALL_AGENTS].sort());
    for (const agent of ALL_AGENTS) {
      const entry = summaryAgent(summary, agent);
      expect(entry, JSON.stringify(entry)).toMatchObject({ status: 'completed', exitCode: 0 });
      expect(entry.usage.outputTokens, `${agent} output tokens`).toBeGreaterThan(0);
      expect(sandbox.servers[agent].requests.length, `${agent} requests`).toBeGreaterThan(0);
    }
  });

  it("leaves each agent's file on its own branch and the user's work untouched", async () => {
    for (const agent of ALL_AGENTS) {
      const branch = `hydra/${summary.runId}/${agent}`;
      expect(summaryAgent(summary, agent)).toMatchObject({
        branch,
        diff: { filesChanged: 1, insertions: 1, deletions: 0 },
      });
      expect(await sandbox.git(['show', `${branch}:${EDIT_FILE}`]), agent).toBe(EDIT_CONTENT.trimEnd());
    }
    expect(readIfExists(join(sandbox.repo, EDIT_FILE))).toBeNull();
    await expectUserWorkIntact(sandbox);
  });

  it('left no vendor CLI process running', () => {
    expect(sandboxProcesses(sandbox.dir, [summary.runId])).toEqual([]);
  });
});
