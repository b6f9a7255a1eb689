/** Help, version, exit codes and every usage error of the real `hydra` entry point. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterIds } from '../../../src/adapters/registry.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, ROOT } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeAll(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterAll(() => sandbox.cleanup());

const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string) =>
  hydra(args, { cwd: repo, env: { ...sandbox.env, ...extraEnv }, ...(input !== undefined ? { input } : {}) });

describe('hydra --version and --help', () => {
  it('prints the version from package.json', async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const result = await run(['--version']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('prints the overview with every command and the exit codes', async () => {
    const result = await run(['--help']);
    expect(result.exitCode).toBe(0);
    for (const command of ['race', 'doctor', 'merge', 'runs', 'show', 'clean', 'demo']) {
      expect(result.stdout).toContain(`  ${command}`);
    }
    expect(result.stdout).toContain('Exit codes:');
  });

  it.each(['race', 'doctor', 'merge', 'runs', 'show', 'clean', 'demo'])(
    'hydra %s --help prints its usage and exits 0',
    async (command) => {
      const result = await run([command, '--help']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(`hydra ${command}`);
      expect(result.stdout).toContain('Usage:');
    },
  );

  it('hydra help race is the same as hydra race --help', async () => {
    const a = await run(['help', 'race']);
    const b = await run(['race', '-h']);
    expect(a.stdout).toBe(b.stdout);
  });

  it('with no command prints the overview (as --help does) and exits 0', async () => {
    const result = await run([]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe((await run(['--help'])).stdout);
  });

  it('suggests the nearest option for a mistyped --version or --help', async () => {
    const version = await run(['--versoin']);
    expect(version.exitCode).toBe(2);
    // The message names the problem; where to read more is the hint's (issue 20: errors).
    expect(version.stderr).toContain('unknown option --versoin (did you mean --version?)\n');
    expect(version.stderr).toMatch(/hint: .*see hydra --help/);
    // A typo of hydra's own option is not a command's option put first.
    expect(version.stderr).not.toContain('put the command first');
    const help = await run(['--hlep']);
    expect(help.stderr).toContain('(did you mean --help?)');
    const far = await run(['--frobnicate']);
    expect(far.stderr).toContain('unknown option --frobnicate\n');
    expect(far.stderr).toMatch(/hint: .*see hydra --help/);
  });
});

describe('usage errors exit 2 with one clear message', () => {
  it("says to put the command first when a command's option comes before it", async () => {
    const result = await run(['--json', 'race', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown option --json\n');
    expect(result.stderr).toContain('put the command first: hydra race --json "..."');
  });

  it('names the flags that cannot go together instead of ignoring one', async () => {
    const show = await run(['show', 'last', '--tui', '--json']);
    expect(show.exitCode).toBe(2);
    expect(show.stderr).toContain('--tui and --json cannot be used together');
    expect(show.stderr).not.toContain('needs a terminal');
    const resume = await run(['race', '--resume-dashboard', 'last', '--json']);
    expect(resume.exitCode).toBe(2);
    expect(resume.stderr).toContain('--resume-dashboard and --json cannot be used together');
    const agents = await run(['race', '--resume-dashboard', 'last', '--agents', 'claude']);
    expect(agents.stderr).toContain('--resume-dashboard and --agents cannot be used together');
  });

  it('names an unknown command and suggests the nearest', async () => {
    const result = await run(['rcae', 'x']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown command "rcae" (did you mean "hydra race"?)');
  });

  it('names an unknown option and points at the command help', async () => {
    const result = await run(['race', '--frobnicate', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown option --frobnicate\n');
    expect(result.stderr).toMatch(/hint: .*see hydra race --help/);
    expect(result.stdout).toBe('');
  });

  it('suggests the nearest option for a typo', async () => {
    const result = await run(['merge', '20260101-000000-abcd', 'claude', '--sqash']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown option --sqash (did you mean --squash?)\n');
    expect(result.stderr).toMatch(/hint: see hydra merge --help/);
  });

  it('gives the prompt-after-"--" hint only for race, the one command that takes a prompt', async () => {
    const clean = await run(['clean', '--force']);
    expect(clean.exitCode).toBe(2);
    expect(clean.stderr).toContain('unknown option --force\n');
    expect(clean.stderr).toContain('hint: see hydra clean --help');
    expect(clean.stderr).not.toContain('hydra race --');
    const race = await run(['race', '--frobnicate', 'do it']);
    expect(race.stderr).toContain('hydra race -- "--frobnicate ..."');
  });

  it('says when an option needs a value', async () => {
    const result = await run(['race', 'do it', '--agents']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('option --agents needs a value');
  });

  it('refuses a missing prompt', async () => {
    const result = await run(['race']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('missing prompt');
    expect(result.stderr).toContain('hydra race -- "-v fix it"');
  });

  it('refuses a blank prompt', async () => {
    const result = await run(['race', '   \n ']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('missing prompt');
  });

  it('refuses an empty --prompt-file and a missing one', async () => {
    writeFileSync(path.join(sandbox.dir, 'empty.txt'), '\n');
    const empty = await run(['race', '--prompt-file', path.join(sandbox.dir, 'empty.txt')]);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('is empty');
    const missing = await run(['race', '--prompt-file', 'nope.txt']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('cannot read --prompt-file nope.txt: no such file');
  });

  it('refuses a prompt given both ways', async () => {
    writeFileSync(path.join(sandbox.dir, 'p.txt'), 'do it');
    const result = await run(['race', 'do it', '--prompt-file', path.join(sandbox.dir, 'p.txt')]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('not both');
  });

  it('reads every repeated --agents, not just the last one', async () => {
    const result = await run(['race', '--agents', 'aider', '--agents', 'claude', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--agents: unknown agent "aider"');
  });

  it('names unknown agents in --agents and lists the valid ones', async () => {
    const result = await run(['race', '--agents', 'claude,aider', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `--agents: unknown agent "aider"; name an adapter (${adapterIds().join(', ')}), a [agents.<name>] table of the config, or <adapter>:<model>`,
    );
  });

  it('refuses a --model without agent=model form, and an unknown agent in it', async () => {
    const bad = await run(['race', '--model', 'opus', 'do it']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--model expects <agent>=<model>, e.g. --model claude=opus (got "opus")');
    const unknown = await run(['race', '--model', 'aider=pro', 'do it']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(
      '--model aider=pro: no agent of this race is named aider; race agents: ',
    );
  });

  it('refuses a placeholder model before anything is launched', async () => {
    const result = await run(['race', '--model', 'claude=<model>', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--model claude=<model>: model for claude');
    expect(result.stdout).toBe('');
  });

  it('validates --idle-timeout and --timeout', async () => {
    const idle = await run(['race', '--idle-timeout', 'soon', 'do it']);
    expect(idle.exitCode).toBe(2);
    expect(idle.stderr).toContain('--idle-timeout must be a positive number of seconds (got "soon")');
    const zero = await run(['race', '--idle-timeout', '0', 'do it']);
    expect(zero.exitCode).toBe(2);
    const ambiguous = await run(['race', '--timeout', '-5', 'do it']);
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('written --timeout=<value>');
    const timeout = await run(['race', '--timeout=-5', 'do it']);
    expect(timeout.exitCode).toBe(2);
    expect(timeout.stderr).toContain('--timeout must be a number of seconds, 0 or more');
    for (const notDecimal of ['0x10', '1e3', 'Infinity']) {
      const odd = await run(['race', '--timeout', notDecimal, 'do it']);
      expect(odd.exitCode, notDecimal).toBe(2);
      expect(odd.stderr).toContain(`(got "${notDecimal}")`);
    }
  });

  it('refuses an experimental agent named without the opt-in', async () => {
    const result = await run(['race', '--agents', 'cursor', 'do it']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('cursor is experimental');
    expect(result.stderr).toContain('--allow-experimental-adapters');
  });

  it('refuses stray arguments to commands that take none', async () => {
    // `hydra demo` takes a prompt (test/e2e/cli/demo-own-project.test.ts).
    for (const command of ['doctor', 'runs']) {
      const result = await run([command, 'extra']);
      expect(result.exitCode, command).toBe(2);
      expect(result.stderr, command).toContain('unexpected argument "extra"');
    }
  });

  it('reads the arguments of clean as run names, and names hydra runs for one it does not know', async () => {
    const result = await run(['clean', 'extra']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('No run "extra"');
    expect(result.stderr).toContain('hydra runs');
  });

  it('merge and show need their arguments', async () => {
    const merge = await run(['merge', 'only-a-run-id']);
    expect(merge.exitCode).toBe(2);
    expect(merge.stderr).toContain('hydra merge needs a run id and an agent');
    const show = await run(['show']);
    expect(show.exitCode).toBe(2);
    expect(show.stderr).toContain('hydra show needs a run id');
    const agent = await run(['merge', 'r1', '../aider']);
    expect(agent.exitCode).toBe(2);
    expect(agent.stderr).toContain('"../aider" is not an agent name');
  });
});

describe('colour', () => {
  it('is off when stderr is not a terminal', async () => {
    const result = await run(['race', '--frobnicate']);
    expect(result.stderr).not.toContain('\u001b[');
  });

  it('is forced by FORCE_COLOR and suppressed by NO_COLOR', async () => {
    const forced = await run(['race', '--frobnicate'], { FORCE_COLOR: '1' });
    expect(forced.stderr).toContain('\u001b[');
    const suppressed = await run(['race', '--frobnicate'], { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(suppressed.stderr).not.toContain('\u001b[');
  });
});
