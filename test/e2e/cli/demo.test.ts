/** `hydra demo`: a real race of simulated agents in a throwaway repository, needing nothing installed. */
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { execa } from 'execa';
import { shellQuote } from '../../../src/cli/shell-quote.js';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAdapters } from '../../../src/adapters/registry.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createSandbox, git, hydra, MAIN, parseNdjson, ROOT } from '../../support/cli-helpers.js';

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = createSandbox();
});

afterEach(() => sandbox.cleanup());

describe("the demo's last line", () => {
  it('names hydra itself when it is on PATH, and npx hydra inside the checkout when it is not', async () => {
    symlinkSync(MAIN, path.join(sandbox.bin, 'hydra'));
    const installed = await hydra(['demo', '--json'], {
      cwd: sandbox.dir,
      env: sandbox.env,
      timeoutMs: 90_000,
    });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stderr).toMatch(/merge one with: cd \S+ && hydra merge /);
    expect(installed.stderr.trimEnd().split('\n').at(-1)).toContain('hydra doctor, then hydra race');

    rmSync(path.join(sandbox.bin, 'hydra'));
    const checkout = await hydra(['demo', '--json'], { cwd: ROOT, env: sandbox.env, timeoutMs: 90_000 });
    expect(checkout.exitCode, checkout.stderr).toBe(0);
    expect(checkout.stderr.trimEnd().split('\n').at(-1)).toBe(
      'hydra demo: hydra is not on your PATH; from this checkout run npx hydra doctor, or install it with: npm install -g .',
    );
  }, 120_000);
});

describe('hydra demo --json', () => {
  it('races a fake of every adapter with a demo profile in a temp repository and says where it is', async () => {
    // No fake agents on PATH and an empty bin dir: the demo brings its own.
    const result = await hydra(['demo', '--json'], { cwd: sandbox.dir, env: sandbox.env, timeoutMs: 90_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = parseNdjson(result.stdout);
    const simulated = listAdapters()
      .filter((adapter) => adapter.demo !== undefined)
      .map((adapter) => adapter.id);
    expect(simulated).toEqual(
      expect.arrayContaining(['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode']),
    );
    expect(lines[0]).toMatchObject({ type: 'race', agents: simulated });
    const summary = lines.at(-1) as {
      type: string;
      runId: string;
      agents: Array<{
        agent: string;
        status: string;
        diff: { filesChanged: number };
        usage: Record<string, unknown>;
      }>;
    };
    expect(summary.type).toBe('summary');
    for (const agent of summary.agents) {
      expect(agent.status, agent.agent).toBe('completed');
      expect(agent.diff.filesChanged, agent.agent).toBeGreaterThan(0);
    }

    const repo = /a throwaway repository at (\S+),/.exec(result.stderr)?.[1];
    expect(repo).toBeDefined();
    expect(repo?.startsWith(sandbox.env.TMPDIR ?? '')).toBe(true);
    expect(existsSync(path.join(repo ?? '', '.git'))).toBe(true);
    expect(git(repo ?? '', ['branch', '--list', `hydra/${summary.runId}/*`])).toContain('claude');
    // hydra is not on PATH here: the suggestion runs this hydra by its path, and works as printed.
    const suggested = /merge one with: (.+)$/m.exec(result.stderr)?.[1] ?? '';
    expect(suggested).toContain(`node ${shellQuote(MAIN)} merge ${summary.runId} `);
    const merged = await execa('sh', ['-c', suggested], {
      env: sandbox.env,
      extendEnv: false,
      reject: false,
    });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `hydra demo: hydra is not on your PATH; install it with: npm install -g ${shellQuote(ROOT)} (then hydra doctor)`,
    );
    // Cursor's recorded edit call changed README.md besides writing hello.txt.
    expect(summary.agents.find((item) => item.agent === 'cursor')?.diff.filesChanged).toBe(2);

    // Cursor reports no usage: null in the JSON, n/a in hydra show; Claude's counts are numbers.
    const usageOf = (agent: string) => summary.agents.find((item) => item.agent === agent)?.usage;
    expect(usageOf('cursor')).toMatchObject({
      inputTokens: null,
      outputTokens: null,
      turns: null,
      costUsd: null,
    });
    expect(usageOf('claude')?.inputTokens).toEqual(expect.any(Number));
    // Gemini CLI's default models (gemini-3.5-flash-lite, gemini-3.8-flash) are priced by the
    // price database, which the engine loads before the agents start.
    expect(usageOf('gemini')).toMatchObject({ costSource: 'estimated', costUsd: expect.any(Number) });
    const record = JSON.parse(
      readFileSync(path.join(repo ?? '', '.hydra', 'runs', summary.runId, 'summary.json'), 'utf8'),
    ) as typeof summary;
    expect(record.agents.find((item) => item.agent === 'cursor')?.usage).toMatchObject({ inputTokens: null });
    const shown = await hydra(['show', summary.runId], { cwd: repo ?? '', env: sandbox.env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const cursorPart = shown.stdout.slice(shown.stdout.indexOf('\ncursor '));
    // TERM=dumb in the sandbox: ASCII symbols, so "-" is the separator.
    expect(cursorPart).toContain('  usage   tokens n/a (none reported) - cost n/a');
  });
});
