/**
 * The fake agent stands in for the real CLIs in the demo and in every integration test: whatever
 * it prints must reach hydra whole, even when hydra reads its pipe late.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);

const FAKE_AGENT = path.resolve('dist/demo/fake-agent.js');
let dir: string | null = null;

afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/**
 * Runs the fake agent writing into a real 64 KiB pipe whose reader starts only after `lateMs`
 * (`sh -c 'agent | (sleep; cat)'`; Node's own child pipes are socketpairs with other limits).
 */
const runWithLateReader = async (scenario: object, lateMs: number): Promise<string> => {
  dir ??= mkdtempSync(path.join(tmpdir(), 'hydra-fake-agent-'));
  const scenarioFile = path.join(dir, 'scenario.json');
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const agent = [process.execPath, FAKE_AGENT, '--scenario', scenarioFile, '--', '-p', 'x']
    .map(shellQuote)
    .join(' ');
  const { stdout } = await execFileAsync('sh', ['-c', `${agent} | (sleep ${lateMs / 1000}; cat)`], {
    cwd: dir,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
};

const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

describe('fake agent', () => {
  it('spreads a replay over durationMs: every line once, in order, and the edits applied', async () => {
    const lines = Array.from({ length: 500 }, (_, n) =>
      JSON.stringify({ type: 'system', subtype: 'status', n }),
    );
    const output = await runWithLateReader(
      { agent: 'claude', durationMs: 200, edits: [{ path: 'paced.txt', content: 'paced\n' }], lines },
      0,
    );
    expect(output.split('\n').filter((line) => line !== '')).toEqual(lines);
    expect(readFileSync(path.join(dir!, 'paced.txt'), 'utf8')).toBe('paced\n');
  });

  it('delivers every line, the last one too, to a reader that starts draining the pipe late', async () => {
    // 64 x 1 KiB fill the 64 KiB pipe; the rest (under the 16 KiB high-water mark) is only buffered: an
    // exit that does not wait for them loses the end of the stream, the result line included.
    const filler = Array.from({ length: 70 }, (_, i) =>
      JSON.stringify({ type: 'system', subtype: 'status', n: i, pad: 'x'.repeat(1000) }),
    );
    const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done' });
    // Whether the tail is lost depends on timing, so look several times.
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const output = await runWithLateReader(
        { agent: 'claude', delayMs: 0, edits: [], lines: [...filler, result] },
        300,
      );
      const lines = output.split('\n').filter((line) => line !== '');
      expect(lines, `attempt ${attempt + 1}`).toHaveLength(71);
      expect(lines.at(-1)).toBe(result);
    }
  });
});

describe('the fake agent applies the edit calls it replays', () => {
  const runIn = async (cwd: string, agent: string): Promise<void> => {
    const scenarioFile = path.join(cwd, '..', `${agent}.scenario.json`);
    writeFileSync(scenarioFile, JSON.stringify({ agent, delayMs: 0 }));
    await execFileAsync(process.execPath, [FAKE_AGENT, '--scenario', scenarioFile, '--', '-p', 'x'], {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    });
  };

  const workdir = (readme: string): string => {
    dir ??= mkdtempSync(path.join(tmpdir(), 'hydra-fake-agent-'));
    const cwd = mkdtempSync(path.join(dir, 'work-'));
    writeFileSync(path.join(cwd, 'README.md'), readme);
    return cwd;
  };

  it("Cursor's recorded edit of README.md really changes it, besides the file it writes", async () => {
    const cwd = workdir('# greeter\n\nA tiny project.\n');
    await runIn(cwd, 'cursor');
    expect(readFileSync(path.join(cwd, 'hello.txt'), 'utf8')).toBe('hello from the fake model\n');
    // The recorded old text is not in this README: what the edit adds is added.
    expect(readFileSync(path.join(cwd, 'README.md'), 'utf8')).toBe(
      '# greeter\n\nA tiny project.\n\nSee hello.txt.\n',
    );
  });

  it('replaces the old text where the file holds it', async () => {
    const cwd = workdir('# fixture repo\nmore\n');
    await runIn(cwd, 'cursor');
    expect(readFileSync(path.join(cwd, 'README.md'), 'utf8')).toBe(
      '# fixture repo\n\nSee hello.txt.\nmore\n',
    );
  });
});
