/**
 * The kit's shared machinery that adapters now lean on: line rules, the `lacking` warnings of a
 * probe, per-turn usage sums, per-model cost and the completed event.
 */
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../../src/core/events.js';
import type { AgentEvent } from '../../../../src/core/events.js';
import { clip, MESSAGE_CHARS } from '../../../../src/core/text.js';
import { addUsage, completed, message, str, tagged } from '../../../../src/adapters/kit/events.js';
import { CliParser, rule } from '../../../../src/adapters/kit/parser.js';
import { probeCli } from '../../../../src/adapters/kit/probe.js';
import { costByModel, pricesOf } from '../../../../src/adapters/prices.js';
import type { ProbeRunner } from '../../../../src/adapters/types.js';

const CLI = {
  id: 'acme',
  displayName: 'Acme',
  installHint: 'npm i -g acme',
  signInHint: 'Run `acme login`.',
};
/** hydra.toml `[prices]` naming Acme's model (the price database does not know it). */
const PRICES = pricesOf({ 'acme-1': { inputPerMTok: 1, outputPerMTok: 2 } });

const SayLine = tagged('say', { text: str });

class AcmeParser extends CliParser {
  protected override readonly lines = {
    say: rule(SayLine, (line): AgentEvent[] => [message('assistant', line.text ?? '')]),
  };
}

describe('line rules', () => {
  const parse = (line: unknown): AgentEvent[] => new AcmeParser(CLI, {}).parseLine(JSON.stringify(line));

  it('sends a listed type of the expected shape to its rule', () => {
    expect(parse({ type: 'say', text: 'hi' })).toMatchObject([{ kind: 'message', text: 'hi' }]);
  });

  it('keeps a listed type of another shape, an unlisted type and an Object.prototype name as unknown', () => {
    expect(parse({ type: 'say', text: 3 })).toMatchObject([{ kind: 'unknown', type: 'say' }]);
    expect(parse({ type: 'shout', text: 'hi' })).toMatchObject([{ kind: 'unknown', type: 'shout' }]);
    expect(parse({ type: 'toString' })).toMatchObject([{ kind: 'unknown', type: 'toString' }]);
  });
});

describe('probeCli lacking', () => {
  const runner =
    (help: string): ProbeRunner =>
    (_file, args) =>
      Promise.resolve({
        exitCode: 0,
        stdout: args.includes('--version') ? 'acme 1.2.3' : help,
        stderr: '',
        timedOut: false,
      });
  const probe = probeCli(CLI, {
    flags: {
      json: { flags: ['--json'], means: 'to follow the run' },
      cd: { flags: ['--cd'], means: 'the worktree as its root' },
    },
    requires: [['json']],
    lacking: { cd: 'has no --cd: it runs in its working directory.' },
  });

  it('warns for each optional feature the help does not show, and only for those', async () => {
    const without = await probe('/bin/acme', runner('Options:\n  --json  JSON lines\n'));
    expect(without.capabilities?.warnings).toEqual([
      'Acme 1.2.3 has no --cd: it runs in its working directory.',
    ]);
    const withCd = await probe('/bin/acme', runner('Options:\n  --json  JSON lines\n  --cd <dir>  root\n'));
    expect(withCd.capabilities?.warnings).toEqual([]);
  });
});

describe('usage and cost', () => {
  it('adds a turn to the run so far, a count no turn reported staying unknown', () => {
    const once = addUsage(emptyUsage(), { inputTokens: 10, outputTokens: 2, turns: 1 });
    const twice = addUsage(once, { inputTokens: 5, turns: 1 });
    expect(twice).toMatchObject({ inputTokens: 15, outputTokens: 2, cacheReadTokens: null, turns: 2 });
  });

  it('sums each model priced by its own price, unknown when one model or all are unpriced', () => {
    const usage = { ...emptyUsage(), inputTokens: 1_000_000, outputTokens: 1_000_000 };
    expect(costByModel([['acme-1', usage]], PRICES)).toEqual({ costUsd: 3, costSource: 'estimated' });
    expect(
      costByModel(
        [
          ['acme-1', usage],
          ['acme-1-mini', usage],
        ],
        PRICES,
      ),
    ).toEqual({ costUsd: 6, costSource: 'estimated' });
    expect(costByModel([['other', usage]], PRICES)).toEqual({ costUsd: null, costSource: 'unknown' });
    expect(costByModel([], PRICES)).toEqual({ costUsd: null, costSource: 'unknown' });
  });

  it('clips the completed result and leaves out what is not known', () => {
    const long = 'x'.repeat(MESSAGE_CHARS + 50);
    const event = completed(long);
    expect(event.result).toBe(clip(long, MESSAGE_CHARS));
    expect(event.result).not.toBe(long);
    expect(event).not.toHaveProperty('usage');
    expect(completed(undefined)).not.toHaveProperty('result');
  });
});
