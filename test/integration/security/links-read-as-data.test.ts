/**
 * Issue 35, case 5: a file an agent could write is data, never a way to make hydra read another
 * file for it. A Codex agent links its last-message file (`--output-last-message`, in its scratch
 * directory) to a secret the jail hides from it (`~/.netrc` there; a file of the test's here):
 * hydra refuses the link with a warning that names the path, and the secret reaches neither the
 * result, events.jsonl, summary.json nor the snapshot. The helper itself (readAgentFile) is tried
 * on each way to a file outside its root: a link, a linked directory on the way, a FIFO.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAgentFile } from '../../../src/engine/agent-file.js';
import { startRace } from '../../../src/engine/index.js';
import { runWorktreesDir } from '../../../src/engine/records/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { eventually, installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { ROOT } from '../../support/cli-helpers.js';

const RUN_ID = '20261206-000000-a5e7';
const SECRET = 'machine example.com login user password HUNTER2-netrc-5e7a';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let secretFile: string;

beforeEach(() => {
  sandbox = makeSandbox();
  secretFile = path.join(sandbox.dir, 'netrc');
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

describe("an agent's last-message file linked to a secret", () => {
  it('is not read: a warning names it, and the secret is in no record', { timeout: 60_000 }, async () => {
    // Codex's recorded stream without its messages: the result is what the last-message file says.
    const lines = readFileSync(path.join(ROOT, 'fixtures/adapters/codex/streams/success-edit.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes('"agent_message"'));
    await installAgents(sandbox, { codex: { lines, linkLastMessageTo: secretFile } });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'codex')], { runId: RUN_ID }));
    const summary = await handle.settled;
    const agent = summary.agents[0];
    expect(agent?.status).toBe('completed');
    const runDir = path.join(sandbox.repo, '.hydra', 'runs', RUN_ID);
    await handle.finish();
    const summaryFile = path.join(runDir, 'summary.json');
    await eventually(() => existsSync(summaryFile), 20_000, 'summary.json');
    const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8');
    const records = [
      JSON.stringify(summary),
      JSON.stringify(handle.getSnapshot()),
      events,
      readFileSync(summaryFile, 'utf8'),
    ];
    for (const record of records) expect(record).not.toContain('HUNTER2');
    expect(events).toMatch(/hydra did not read [^"]*last[^"]*: it is a symbolic link/);
  });
});

describe('readAgentFile', () => {
  let root: string;
  let outside: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hydra-agent-file-'));
    outside = mkdtempSync(path.join(os.tmpdir(), 'hydra-agent-file-outside-'));
    writeFileSync(path.join(outside, 'secret'), SECRET);
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('reads a regular file inside its root', () => {
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'file'), 'mine');
    const result = readAgentFile(path.join(root, 'sub', 'file'), root);
    expect(result.kind === 'read' ? result.content.toString() : result).toBe('mine');
    expect(readAgentFile(path.join(root, 'absent'), root)).toEqual({ kind: 'missing' });
  });

  it('refuses a link, a linked directory leading out, a FIFO and a path outside, naming the path', () => {
    symlinkSync(path.join(outside, 'secret'), path.join(root, 'link'));
    symlinkSync(outside, path.join(root, 'dir'));
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    const cases: Array<[string, RegExp]> = [
      [path.join(root, 'link'), /it is a symbolic link/],
      [path.join(root, 'dir', 'secret'), /a linked directory on its way leads to/],
      [path.join(root, 'fifo'), /it is not a regular file/],
      [path.join(outside, 'secret'), /outside the directory/],
      [path.join(root, '..', path.basename(outside), 'secret'), /outside the directory/],
    ];
    for (const [file, why] of cases) {
      const result = readAgentFile(file, root);
      expect(result.kind, file).toBe('refused');
      const reason = result.kind === 'refused' ? result.reason : '';
      expect(reason).toMatch(why);
      expect(reason).toContain(file);
      expect(reason).not.toContain('HUNTER2');
    }
  });
});

describe("a command file in the agent's scratch directory that is a link", () => {
  it(
    'is replaced, never written through: the file it named keeps its content',
    { timeout: 60_000 },
    async () => {
      await installAgents(sandbox, { codex: {} });
      // What an agent of an earlier round leaves in its scratch directory: the prompt file hydra
      // writes for a long prompt, linked to a file of the user's.
      const runDir = runWorktreesDir(sandbox.worktreeRoot, realpathSync(sandbox.repo), RUN_ID);
      const scratch = path.join(runDir, '.scratch', 'codex');
      mkdirSync(scratch, { recursive: true });
      const victim = path.join(sandbox.dir, 'bashrc');
      writeFileSync(victim, 'the user’s own file\n');
      symlinkSync(victim, path.join(scratch, 'prompt.txt'));
      const prompt = `Create hello.txt. ${'x'.repeat(40 * 1024)}`;
      handle = startRace(raceOptions(sandbox, [plan(sandbox, 'codex')], { runId: RUN_ID, prompt }));
      const summary = await handle.settled;
      expect(summary.agents[0]?.status).toBe('completed');
      // (Compared shortly: the prompt is 40 KB.)
      expect(readFileSync(victim, 'utf8').slice(0, 40)).toBe('the user’s own file\n');
    },
  );
});
