/** Issue 35, case 4: an agent's copy of its CLI's state, planned and made (temp files only). */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterOf, listAdapters } from '../../../../src/adapters/registry.js';
import { cliStatePlan, ensureCliState } from '../../../../src/engine/sandbox/cli-state.js';

let dir: string;
let home: string;
let root: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-cli-state-'));
  home = path.join(dir, 'home');
  root = path.join(dir, 'run', '.state', 'agent');
  mkdirSync(home);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('cliStatePlan', () => {
  it("points each CLI's own variable at its part of the copy", () => {
    const vars = (id: string): string[] =>
      Object.keys(cliStatePlan(adapterOf(id), {}, home, root)?.env ?? {});
    expect(vars('claude')).toEqual(['CLAUDE_CONFIG_DIR']);
    expect(vars('codex')).toEqual(['CODEX_HOME']);
    expect(vars('gemini')).toEqual(['GEMINI_CLI_HOME']);
    expect(vars('qwen')).toEqual(['QWEN_HOME']);
    expect(vars('opencode')).toEqual([
      'XDG_CONFIG_HOME',
      'XDG_DATA_HOME',
      'XDG_STATE_HOME',
      'XDG_CACHE_HOME',
    ]);
    expect(vars('cursor')).toEqual(['HOME']);
  });

  it("copies every state directory a CLI declares: none stays the user's and writable", () => {
    // The sandbox makes an agent's declared state writable (agentPolicy), so one without a copy
    // would be the user's own (opencode's cache held what its next start loads).
    const uncopied = listAdapters().flatMap((adapter) =>
      (adapter.stateDirs ?? [])
        .filter((dir) => dir.copy === undefined)
        .map((dir) => `${adapter.id}: ${dir.path}`),
    );
    expect(uncopied).toEqual([]);
  });

  it('copies from where the environment puts the state (CODEX_HOME), else from the home', () => {
    const plan = cliStatePlan(adapterOf('codex'), { CODEX_HOME: '/opt/codex' }, home, root);
    expect(plan?.copies).toEqual([
      expect.objectContaining({ from: '/opt/codex', to: path.join(root, 'codex_home') }),
    ]);
    expect(cliStatePlan(adapterOf('gemini'), {}, home, root)?.copies[0]?.from).toBe(
      path.join(home, '.gemini'),
    );
  });
});

describe('ensureCliState', () => {
  it('copies credentials and settings, not past sessions; a linked settings file as a file of its own', () => {
    mkdirSync(path.join(home, '.claude', 'projects', 'old'), { recursive: true });
    writeFileSync(path.join(home, '.claude', 'projects', 'old', 'past.jsonl'), '{}');
    writeFileSync(path.join(home, '.claude', '.credentials.json'), 'token', { mode: 0o600 });
    writeFileSync(path.join(dir, 'dotfiles-settings.json'), '{"theme":"dark"}');
    symlinkSync(path.join(dir, 'dotfiles-settings.json'), path.join(home, '.claude', 'settings.json'));
    writeFileSync(path.join(home, '.claude.json'), '{"numStartups":1}');
    const plan = cliStatePlan(adapterOf('claude'), {}, home, root);
    if (plan === null) throw new Error('claude declares a copy');
    ensureCliState(plan);
    const copy = path.join(root, 'claude_config_dir');
    expect(readFileSync(path.join(copy, '.credentials.json'), 'utf8')).toBe('token');
    expect(lstatSync(path.join(copy, '.credentials.json')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(copy, 'settings.json')).isFile()).toBe(true);
    expect(readFileSync(path.join(copy, '.claude.json'), 'utf8')).toBe('{"numStartups":1}');
    expect(existsSync(path.join(copy, 'projects'))).toBe(false);
  });

  it('makes a missing state directory empty, and keeps a copy made before (a follow-up finds its session)', () => {
    const plan = cliStatePlan(adapterOf('qwen'), {}, home, root);
    if (plan === null) throw new Error('qwen declares a copy');
    ensureCliState(plan);
    const copy = path.join(root, 'qwen_home');
    expect(existsSync(copy)).toBe(true);
    writeFileSync(path.join(copy, 'session.json'), 'mine');
    mkdirSync(path.join(home, '.qwen'));
    writeFileSync(path.join(home, '.qwen', 'settings.json'), '{}');
    ensureCliState(plan);
    expect(readFileSync(path.join(copy, 'session.json'), 'utf8')).toBe('mine');
    expect(existsSync(path.join(copy, 'settings.json'))).toBe(false);
  });

  it("gives Cursor a home of its own: its state copied, the user's other entries linked", () => {
    mkdirSync(path.join(home, '.cursor', 'extensions'), { recursive: true });
    writeFileSync(path.join(home, '.cursor', 'cli-config.json'), '{}');
    mkdirSync(path.join(home, '.config', 'cursor'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'cursor', 'auth.json'), 'login');
    mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    writeFileSync(path.join(home, '.gitconfig'), '[user]');
    const plan = cliStatePlan(adapterOf('cursor'), {}, home, root);
    if (plan === null) throw new Error('cursor declares a copy');
    ensureCliState(plan);
    const own = plan.env['HOME'] ?? '';
    expect(readlinkSync(path.join(own, '.gitconfig'))).toBe(path.join(home, '.gitconfig'));
    expect(readlinkSync(path.join(own, '.config', 'git'))).toBe(path.join(home, '.config', 'git'));
    expect(lstatSync(path.join(own, '.config')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(own, '.config', 'cursor', 'auth.json'), 'utf8')).toBe('login');
    expect(lstatSync(path.join(own, '.cursor')).isDirectory()).toBe(true);
    expect(existsSync(path.join(own, '.cursor', 'extensions'))).toBe(false);
    expect(existsSync(path.join(own, '.local', 'share', 'cursor-agent'))).toBe(true);
  });
});
