/**
 * Benchmark 5: parser throughput. Each adapter's parser reads every recorded stream fixture of its
 * CLI, replayed (with fresh ids) until the corpus holds at least `targetLines` lines, one parser
 * per replayed run, as the engine does. Baseline: a bare JSON.parse of the same lines.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { adapterIds, adapterOf } from '../../src/adapters/registry.js';
import type { AdapterId } from '../../src/adapters/types.js';
import { median, ratio } from '../lib/stats.js';
import { fixtureStream, PACKAGE_ROOT, withFreshIds } from '../lib/streams.js';

export interface ParserRow {
  adapter: AdapterId;
  fixtures: number;
  lines: number;
  events: number;
  parserLinesPerSec: number;
  jsonParseLinesPerSec: number;
  /** Parser time over JSON.parse time for the same lines. */
  ratio: number;
  parserUsPerLine: number;
}

export interface ParserResult {
  repeats: number;
  rows: ParserRow[];
}

const fixtureNames = (adapter: AdapterId): string[] =>
  readdirSync(path.join(PACKAGE_ROOT, 'fixtures', 'adapters', adapter, 'streams'))
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => name.slice(0, -'.jsonl'.length))
    .sort();

/** Runs of lines: every fixture once per round, with fresh ids, until there are `targetLines`. */
const corpus = (adapter: AdapterId, targetLines: number): { runs: string[][]; fixtures: number } => {
  const fixtures = fixtureNames(adapter).map((name) => fixtureStream(adapter, name));
  const runs: string[][] = [];
  let total = 0;
  for (let round = 0; total < targetLines; round += 1) {
    for (const lines of fixtures) {
      runs.push(lines.map((line) => withFreshIds(line, round)));
      total += lines.length;
    }
  }
  return { runs, fixtures: fixtures.length };
};

const timeParser = (adapter: AdapterId, runs: string[][]): { ms: number; events: number } => {
  const started = process.hrtime.bigint();
  let events = 0;
  for (const lines of runs) {
    const parser = adapterOf(adapter).createParser({ cwd: '/tmp/hydra-fixture/repo' });
    for (const line of lines) events += parser.parseLine(line).length;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, events };
};

const timeJsonParse = (runs: string[][]): number => {
  const started = process.hrtime.bigint();
  let sink = 0;
  for (const lines of runs) {
    for (const line of lines) {
      // Some recorded streams hold non-JSON lines (an auth prompt); the parsers meet them too.
      try {
        const value: unknown = JSON.parse(line);
        if (value !== null) sink += 1;
      } catch {
        sink += 2;
      }
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (sink < 0) throw new Error('unreachable');
  return ms;
};

export function benchParsers(targetLines: number, repeats: number): ParserResult {
  const rows = adapterIds().map((adapter): ParserRow => {
    const { runs, fixtures } = corpus(adapter, targetLines);
    const lines = runs.reduce((sum, run) => sum + run.length, 0);
    timeParser(adapter, runs);
    timeJsonParse(runs);
    const parserMs: number[] = [];
    const jsonMs: number[] = [];
    let events = 0;
    for (let index = 0; index < repeats; index += 1) {
      const parsed = timeParser(adapter, runs);
      parserMs.push(parsed.ms);
      events = parsed.events;
      jsonMs.push(timeJsonParse(runs));
    }
    const parser = median(parserMs);
    const json = median(jsonMs);
    return {
      adapter,
      fixtures,
      lines,
      events,
      parserLinesPerSec: (lines / parser) * 1000,
      jsonParseLinesPerSec: (lines / json) * 1000,
      ratio: ratio(parser, json),
      parserUsPerLine: (parser * 1000) / lines,
    };
  });
  return { repeats, rows };
}
