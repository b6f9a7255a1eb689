/**
 * The fake agents' sh wrappers answer hydra's probes (`--version`, `--help`, `<subcommand> --help`)
 * themselves, without starting node: each answer must be exactly the fake agent's own, and a
 * wrapper must start no node for them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { listAdapters } from '../../../src/adapters/registry.js';
import { installFakeAgents } from '../../../src/demo/fake-bin.js';

const execFileAsync = promisify(execFile);
const FAKE_AGENT = path.resolve('dist/demo/fake-agent.js');
const dir = mkdtempSync(path.join(tmpdir(), 'hydra-fake-bin-answers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = async (
  file: string,
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number }> => {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { encoding: 'utf8' });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
};

// The probes hydra runs (codex probes `exec --help`, opencode `run --help`, whose help is on stderr).
const PROBES = [['--version'], ['--help'], ['exec', '--help'], ['run', '--help']];

describe('fake agent wrappers', () => {
  const agents = listAdapters().map((adapter) => adapter.id);

  it.each(agents)('%s: the wrapper answers each probe as the fake agent does', async (agent) => {
    const bin = path.join(dir, agent);
    await installFakeAgents(bin, { fake: { agent } }, FAKE_AGENT);
    const scenarioFile = path.join(bin, 'fake.scenario.json');
    await Promise.all(
      PROBES.map(async (args) => {
        const [viaNode, viaWrapper] = await Promise.all([
          run(process.execPath, [FAKE_AGENT, '--scenario', scenarioFile, '--', ...args]),
          run(path.join(bin, 'fake'), args),
        ]);
        expect(viaWrapper, `${agent} ${args.join(' ')}`).toEqual(viaNode);
      }),
    );
  });

  it('answers --version and --help with no node: a wrapper whose node is missing still answers', async () => {
    const bin = path.join(dir, 'no-node');
    const missing = path.join(dir, 'missing-script.js');
    writeFileSync(missing, '');
    await installFakeAgents(bin, { fake: { agent: 'codex', version: '9.9.9' } }, missing);
    const wrapper = path.join(bin, 'fake');
    // The script is empty: node would print nothing. The answers come from the wrapper itself.
    expect((await run(wrapper, ['--version'])).stdout).toBe('9.9.9\n');
    expect((await run(wrapper, ['exec', '--help'])).stdout).toMatch(/\S/);
    expect((await run(wrapper, ['--help'])).stdout).toMatch(/\S/);
    expect((await run(wrapper, ['-p', 'x'])).stdout).toBe('');
  });
});
