/**
 * Issue 10.5: an agent that floods stdout with short non-JSON lines before its result. The race
 * keeps up, its record stays small (runs of noise are merged into counted events, each agent's
 * events are bounded), and the result is kept: completed and mergeable.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hydra } from '../../support/cli-helpers.js';
import {
  expectAgentsSettled,
  expectFaultSurvived,
  faultSandbox,
  raceFault,
} from '../../support/fault-race.js';
import type { FaultSandbox } from '../../support/fault-race.js';

const FLOOD_LINES = 100_000;

let sandbox: FaultSandbox;

afterEach(() => sandbox.cleanup());

const eventsFileBytes = (runId: string): number =>
  statSync(path.join(sandbox.repo, '.hydra', 'runs', runId, 'events.jsonl')).size;

/** How many lines the parse_error events of the headless output stand for. */
const unparsedLines = (lines: Array<Record<string, unknown>>): number =>
  lines
    .map((line) => line.event as { kind?: string; lines?: number } | undefined)
    .filter((event) => event?.kind === 'parse_error')
    .reduce((sum, event) => sum + (event?.lines ?? 1), 0);

describe('an agent that prints 100,000 short non-JSON lines, then its result', () => {
  it('completes, keeps a bounded record and a short headless stream, and its result merges', async () => {
    sandbox = await faultSandbox();

    const race = await raceFault(sandbox, { claude: { floodLines: FLOOD_LINES, delayMs: 0 } }, [], 120_000);

    expectAgentsSettled(race, ['claude']);
    expect(race.agents[0]).toMatchObject({ status: 'completed', diff: { filesChanged: 1 } });
    expect(race.exitCode, race.stderr).toBe(0);
    // Every flood line is accounted for, in far fewer events than lines.
    expect(unparsedLines(race.lines)).toBe(FLOOD_LINES);
    expect(race.lines.length).toBeLessThan(1_000);
    // 100,000 lines are 1.2 MB of output; before the fix the record held 17 MB for them.
    expect(eventsFileBytes(race.runId)).toBeLessThan(200 * 1024);
    // Loose: a few seconds here; before the fix it took about 30 s on the same machine.
    expect(race.wallMs).toBeLessThan(60_000);

    const merge = await hydra(['merge', race.runId, 'claude'], { cwd: sandbox.repo, env: sandbox.env });
    expect(merge.exitCode, merge.stderr).toBe(0);
  });

  it('leaves nothing behind: no process, readable records, the user state as it was, all removable', async () => {
    sandbox = await faultSandbox();

    const race = await raceFault(sandbox, {
      claude: { floodLines: FLOOD_LINES, delayMs: 0 },
      cursor: { floodLines: FLOOD_LINES, delayMs: 0 },
    });

    expectAgentsSettled(race, ['claude', 'cursor']);
    // Cursor's plain text lines are progress events; a run of them is merged the same way.
    expect(race.lines.length).toBeLessThan(2_000);
    await expectFaultSurvived(sandbox, race);
  });
});
