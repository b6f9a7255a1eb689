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
