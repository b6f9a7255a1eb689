/**
 * The run record is written in batches (one write per chunk of an agent's output), before the same
 * events reach stdout. hydra killed with SIGKILL mid-stream: events.jsonl is whole lines, `hydra
 * show` reads it without a damaged-line note, and every event hydra printed before it died is in
 * the record: only the batch in hand when it died can be missing, never one it already showed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readRun } from '../../../src/engine/index.js';
import { eventually, processesOfRun } from '../../support/engine-helpers.js';
import {
  createRepo,
  createSandbox,
  hydra,
  installFakes,
  MAIN,
  parseNdjson,
  ROOT,
} from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { expectRecordsReadable } from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;

/** Claude's recorded success stream with its middle repeated (fresh ids): about 600 events. */
const longStream = (): string[] => {
  const lines = readFileSync(
    path.join(ROOT, 'fixtures', 'adapters', 'claude', 'streams', 'success-edit.jsonl'),
    'utf8',
  )
    .split('\n')
    .filter((line) => line.trim() !== '');
  const middle = lines.slice(1, -1);
  const out = [lines[0] as string];
  for (let round = 0; round < 200; round += 1)
    for (const line of middle)
      out.push(line.replace(/"(id|uuid|tool_use_id)":"([^"]*)"/g, `"$1":"$2-${round}"`));
  return out;
};

/** JSON with sorted keys: the record's reader rebuilds objects in its schema's key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  // Streams without end: it pauses after most of its lines, so hydra is killed mid-race.
  const lines = longStream();
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', lines, delayMs: 1, hangAfterLines: lines.length - 1 },
  });
});

afterEach(() => sandbox.cleanup());

it('SIGKILL mid-stream: the record is whole lines and holds every event hydra printed', async () => {
  const child = execa(process.execPath, [MAIN, 'race', '--json', '--agents', 'claude', 'Add hello.txt'], {
    cwd: repo,
    env: sandbox.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    forceKillAfterDelay: false,
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  await eventually(() => stdout.split('\n').length > 200, 30_000, 'hydra to print 200 events');
  child.kill('SIGKILL');
  await child;

  // Only whole lines printed before the kill count (the last one may be cut off).
  const printed = parseNdjson(stdout.slice(0, stdout.lastIndexOf('\n')))
    .filter((line) => line.type === 'agent_event')
    .map((line) => canonical(line.event));
  const runId = String(parseNdjson(stdout.split('\n')[0] ?? '')[0]?.runId);
  expect(printed.length).toBeGreaterThan(100);

  const record = await readRun(repo, runId);
  expect(record.notes).toEqual([]);
  const recorded = new Set(record.events.map((item) => canonical(item.event)));
  const missing = printed.filter((event) => !recorded.has(event));
  expect(missing).toEqual([]);
  const raw = readFileSync(path.join(record.dir, 'events.jsonl'), 'utf8');
  expect(raw.endsWith('\n')).toBe(true);
  expectRecordsReadable(repo);

  // The watchdog stops the agent; `hydra clean` removes what the killed race left.
  await eventually(() => processesOfRun(runId).length === 0, 15_000, 'the watchdog to stop the agent');
  const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
  expect(cleaned.exitCode, cleaned.stderr).toBe(0);
});
