/**
 * Siblings of issue 21's trust cases: a run record naming another repository's trusted file
 * (continue, rerun), an edited trusted file, and doctor's hint for an untrusted `binary`.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/engine/config/load.js';
import { trustFile, userConfigDirOf } from '../../../src/engine/config/trust.js';
import { userConfigPath } from '../../../src/engine/config/locate.js';
import { createRepo, createSandbox, hydra } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

const CONFIG = '[agents.claude]\nbinary = "./tool.sh"\n\n[[checks]]\nname = "own"\nrun = "./check.sh"\n';

describe('a recorded config file (continue, rerun)', () => {
  it("is not trusted when it is another repository's, though trusted there", async () => {
    const trusted = await createRepo(sandbox.dir, { name: 'trusted' });
    const other = await createRepo(sandbox.dir, { name: 'other' });
    const file = path.join(trusted, 'hydra.toml');
    writeFileSync(file, CONFIG);
    trustFile(userConfigDirOf(userConfigPath(sandbox.env)), file, CONFIG);

    const there = loadConfig({ cwd: trusted, env: sandbox.env, recordedPath: file });
    expect(there.trusted).toBe(true);
    const here = loadConfig({ cwd: other, env: sandbox.env, recordedPath: file });
    expect(here.trusted).toBe(false);
    expect(here.why).toEqual({ kind: 'outside', target: null });
    expect(here.ignored).toEqual(['checks', 'agents.claude.binary']);
    expect(here.config.checks).toBeUndefined();
  });
});

describe('a trusted file, edited', () => {
  it('reads "changed since you trusted it", and doctor hints hydra trust for its binary, not installing', async () => {
    const repo = await createRepo(sandbox.dir);
    writeFileSync(path.join(repo, 'hydra.toml'), CONFIG);
    const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env });
    const fresh = await run(['doctor']);
    expect(fresh.stdout).toContain('hydra.toml is not trusted');
    expect(fresh.stdout).toContain('agents.claude.binary, ignored until you trust the file');
    expect(fresh.stdout).not.toContain('Install it with: npm install -g @anthropic-ai/claude-code');

    expect((await run(['trust'])).exitCode).toBe(0);
    appendFileSync(path.join(repo, 'hydra.toml'), '# edited\n');
    const edited = await run(['doctor']);
    expect(edited.stdout).toContain('hydra.toml changed since you trusted it');
  });
});
