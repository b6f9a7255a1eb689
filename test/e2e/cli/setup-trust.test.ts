/**
 * `.cursor/worktrees.json` through the real entry point: `hydra doctor` says what a race here copies,
 * shares and runs, and that the Cursor file waits for `hydra trust`; `hydra trust` with no argument
 * trusts it with hydra.toml; a race before that warns and runs nothing of it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

interface SetupJson {
  copy: Array<{ pattern: string; source: string }>;
  share: string[];
  run: { commands: string[]; source: string | null; timeoutMs: number };
  untrusted: string[];
}

const doctorSetup = async (): Promise<SetupJson> => {
  const result = await hydra(['doctor', '--json'], { cwd: repo, env: sandbox.env });
  return (JSON.parse(result.stdout.trim()) as { setup: SetupJson }).setup;
};

describe('setup in hydra doctor and hydra trust', () => {
  beforeEach(() => {
    mkdirSync(path.join(repo, '.cursor'));
    writeFileSync(
      path.join(repo, '.cursor', 'worktrees.json'),
      `${JSON.stringify({ 'setup-worktree': ['npm ci', 'cp $ROOT_WORKTREE_PATH/.env .env'] })}\n`,
    );
    writeFileSync(path.join(repo, '.worktreeinclude'), '# secrets\n.env\n');
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[setup]\ncopy = ["config/*.local.json"]\nshare = ["node_modules"]\n',
    );
    git(repo, ['add', '.']);
    git(repo, ['commit', '-q', '-m', 'setup files']);
  });

  it('doctor lists what is copied, shared and run, and what waits for hydra trust', async () => {
    const before = await doctorSetup();
    expect(before.copy).toEqual([
      { pattern: '.env', source: '.worktreeinclude' },
      { pattern: 'config/*.local.json', source: 'hydra.toml' },
    ]);
    expect(before.share).toEqual(['node_modules']);
    expect(before.run).toMatchObject({ commands: [], source: null });
    expect(before.untrusted.join('\n')).toContain('.cursor/worktrees.json is not trusted');

    const text = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(text.stdout).toContain('setup\n');
    expect(text.stdout).toContain('.env (.worktreeinclude)');
    expect(text.stdout).toContain('hydra trust');

    const trusted = await hydra(['trust'], { cwd: repo, env: sandbox.env });
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('trusted .cursor/worktrees.json');
    expect(trusted.stdout).toContain('npm ci');
    // hydra.toml is trusted with it.
    expect(trusted.stdout).toContain('trusted hydra.toml');

    const after = await doctorSetup();
    expect(after.run).toMatchObject({
      commands: ['npm ci', 'cp $ROOT_WORKTREE_PATH/.env .env'],
      source: 'cursor',
    });
    expect(after.untrusted).toEqual([]);

    // An untrusted `[setup] run` in hydra.toml is named too.
    writeFileSync(path.join(repo, 'hydra.toml'), '[setup]\nrun = "make deps"\n');
    const edited = await doctorSetup();
    expect(edited.untrusted.join('\n')).toContain(
      '[setup] run in hydra.toml is ignored until you trust the file',
    );
  }, 60_000);
});
