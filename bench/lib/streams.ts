/**
 * Synthetic agent streams of any length, made from the recorded fixtures: the first line (the
 * session start) once, the middle lines repeated with fresh ids on each repetition (so parsers that
 * de-duplicate by id still emit every event), and the terminal line once at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AdapterId } from '../../src/adapters/types.js';
import { packageRoot } from '../../src/demo/fake-bin.js';

export const PACKAGE_ROOT = packageRoot();

export const fixtureStream = (agent: AdapterId, name = 'success-edit'): string[] => {
  const file = path.join(PACKAGE_ROOT, 'fixtures', 'adapters', agent, 'streams', `${name}.jsonl`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
};

const ID_FIELD = /"(id|tool_use_id|call_id|item_id|uuid)":"([^"]*)"/g;

/** The same line with every id suffixed, so repetition `round` looks like new messages and tools. */
export const withFreshIds = (line: string, round: number): string =>
  line.replace(ID_FIELD, (_match, key: string, value: string) => `"${key}":"${value}-r${round}"`);

/** Exactly `count` lines (at least 2): head, repeated middle with fresh ids, terminal line. */
export const syntheticStream = (lines: string[], count: number): string[] => {
  const head = lines[0];
  const tail = lines.at(-1);
  const middle = lines.slice(1, -1);
  if (head === undefined || tail === undefined || middle.length === 0 || count < 2) {
    throw new Error(
      'bench: a synthetic stream needs a fixture with at least three lines and a count of at least 2',
    );
  }
  const out: string[] = [head];
  for (let round = 0; out.length < count - 1; round += 1) {
    for (const line of middle) {
      if (out.length >= count - 1) break;
      out.push(withFreshIds(line, round));
    }
  }
  out.push(tail);
  return out;
};

/** Writes a synthetic stream of `count` lines for `agent` and returns the file. */
export const writeSyntheticStream = (dir: string, agent: AdapterId, count: number): string => {
  const file = path.join(dir, `${agent}-${count}.jsonl`);
  writeFileSync(file, `${syntheticStream(fixtureStream(agent), count).join('\n')}\n`);
  return file;
};

/**
 * A Claude Code stream of `count` lines that is mostly partial-message deltas (what
 * `--include-partial-messages` prints while a model writes): turns of `message_start`, a text
 * block's start, a run of `content_block_delta` lines, the assistant message, the block's and the
 * message's end; the recorded session start first and its result line last.
 */
export const partialMessageFlood = (count: number, deltasPerTurn = 1_000): string[] => {
  const fixture = fixtureStream('claude', 'partial-messages');
  const head = fixture[0];
  const tail = fixture.at(-1);
  const find = (test: (value: Record<string, unknown>) => boolean): string => {
    const line = fixture.find((candidate) => test(JSON.parse(candidate) as Record<string, unknown>));
    if (line === undefined)
      throw new Error('bench: the partial-messages fixture lacks a line the flood needs');
    return line;
  };
  const eventType = (type: string) => (value: Record<string, unknown>) =>
    value.type === 'stream_event' && (value.event as { type?: string } | undefined)?.type === type;
  const start = find(eventType('message_start'));
  const blockStart = find(eventType('content_block_start'));
  const delta = find(
    (value) =>
      eventType('content_block_delta')(value) &&
      (value.event as { delta?: { type?: string } }).delta?.type === 'text_delta',
  );
  const assistant = find((value) => value.type === 'assistant');
  const blockStop = find(eventType('content_block_stop'));
  const messageDelta = find(eventType('message_delta'));
  const messageStop = find(eventType('message_stop'));
  if (head === undefined || tail === undefined) throw new Error('bench: empty partial-messages fixture');
  const out: string[] = [head];
  for (let turn = 0; out.length < count - 1; turn += 1) {
    const turnLines = [withFreshIds(start, turn), withFreshIds(blockStart, turn)];
    for (let index = 0; index < deltasPerTurn; index += 1) turnLines.push(withFreshIds(delta, turn));
    turnLines.push(withFreshIds(assistant, turn), blockStop, messageDelta, messageStop);
    for (const line of turnLines) {
      if (out.length >= count - 1) break;
      out.push(line);
    }
  }
  out.push(tail);
  return out;
};
