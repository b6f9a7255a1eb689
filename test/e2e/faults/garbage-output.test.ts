/**
 * Garbage on stdout: random bytes, NULs and invalid UTF-8 between an agent's JSON lines, and a
 * 50 MB line with no newline after its result. The agent's result still counts, hydra's own
 * headless output stays one JSON object per line, the records read back, and the huge line is
 * skipped with its size instead of being held in memory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectAgentsSettled,
  expectFaultSurvived,
  faultSandbox,
  raceFault,
} from '../../support/fault-race.js';
import type { FaultSandbox } from '../../support/fault-race.js';

let sandbox: FaultSandbox;

afterEach(() => sandbox.cleanup());

const parseErrors = (lines: Array<Record<string, unknown>>): Array<{ raw: string; reason: string }> =>
  lines
    .map((line) => line.event as { kind?: string; raw: string; reason: string } | undefined)
    .filter((event): event is { kind: string; raw: string; reason: string } => event?.kind === 'parse_error');

describe('binary noise between the JSON lines', () => {
  it('is reported as unparsed output; both agents complete; the headless output stays valid NDJSON', async () => {
    sandbox = await faultSandbox();

    // raceFault parses every stdout line as a JSON object and fails the test otherwise.
    const race = await raceFault(sandbox, { claude: { noiseBytes: 300 }, codex: { noiseBytes: 300 } });

    expectAgentsSettled(race, ['claude', 'codex']);
    expect(race.agents.map((agent) => agent.status)).toEqual(['completed', 'completed']);
    const errors = parseErrors(race.lines);
    expect(errors.length).toBeGreaterThan(0);
    // Invalid UTF-8 arrives as replacement characters, NULs as escapes: nothing that breaks a reader.
    expect(errors.some((error) => error.raw.includes('\uFFFD'))).toBe(true);
    await expectFaultSurvived(sandbox, race);
  });
});

describe('a 50 MB line without a newline after the result', () => {
  it('is skipped with its size, the result stands, and hydra never holds the line in memory', async () => {
    sandbox = await faultSandbox();
    const bytes = 50 * 1024 * 1024;

    const race = await raceFault(sandbox, { claude: { hugeLineBytes: bytes } });

    expectAgentsSettled(race, ['claude']);
    expect(race.agents[0]?.status).toBe('completed');
    // Holding the line would take 50 MB of buffers plus its 100 MB decoded copy; hydra's own peak
    // stays far below that (about 100 MB measured).
    expect(race.peakRssKb).toBeGreaterThan(0);
    expect(race.peakRssKb / 1024).toBeLessThan(180);
    expect(parseErrors(race.lines).map((error) => error.reason)).toContainEqual(
      expect.stringMatching(new RegExp(`line of ${bytes} bytes is over the \\d+ byte limit`)),
    );
    await expectFaultSurvived(sandbox, race);
  });
});
