/**
 * `HYDRA_INSPECT=<file>`: a race through the real CLI writes its actors' inspection events to the
 * file as small JSON lines (the race machine, each agent machine and the actors they invoke).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

describe('HYDRA_INSPECT', () => {
  it('appends the race’s inspection events as JSON lines: actors, events, state values', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'a.txt', content: 'a\n' }] },
    });
    const file = path.join(sandbox.dir, 'inspect.jsonl');

    const result = await hydra(['race', '--json', '--agents', 'claude', 'Add a file'], {
      cwd: repo,
      env: { ...sandbox.env, HYDRA_INSPECT: file },
      timeoutMs: 90_000,
    });

    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
    const raw = readFileSync(file, 'utf8').trim().split('\n');
    const lines = raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    // Small lines: no context, no agent output.
    expect(Math.max(...raw.map((line) => line.length))).toBeLessThan(500);
    expect(lines.every((line) => typeof line['type'] === 'string' && typeof line['actor'] === 'string')).toBe(
      true,
    );
    const values = lines
      .filter((line) => line['type'] === '@xstate.snapshot' && typeof line['value'] === 'string')
      .map((line) => line['value']);
    for (const state of ['checkingRepo', 'probing', 'creatingWorktrees', 'racing', 'reviewing', 'done'])
      expect(values).toContain(state);
    // The agent machine is inspected too, by its id in the race.
    expect(
      lines.some((line) => line['actor'] === 'agent:claude' && line['type'] === '@xstate.snapshot'),
    ).toBe(true);
    expect(lines.some((line) => line['type'] === '@xstate.event' && line['event'] === 'AGENT.SETTLED')).toBe(
      true,
    );
  });
});
