/**
 * The CLI's printers share the dashboard's formatters (through src/ui/index.ts), but a headless
 * race, `hydra runs` and `hydra show` must not load Ink or React: a module hook that refuses to
 * resolve them is put in front of the real entry point.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';

/** Registers itself as a resolve hook (in the hooks thread) that fails on ink and react. */
const FORBID_INK = `
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) register(import.meta.url);
export async function resolve(specifier, context, next) {
  if (/^(ink|react)(\\/|$)/.test(specifier)) throw new Error('loaded ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}
`;

let sandbox: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  const hook = path.join(sandbox.dir, 'forbid-ink.mjs');
  writeFileSync(hook, FORBID_INK);
  env = { ...sandbox.env, NODE_OPTIONS: `--import=${hook}` };
});

afterEach(() => sandbox.cleanup());

describe('the CLI without the dashboard', () => {
  it('the hook does stop a process that loads ink', async () => {
    const result = await execa(process.execPath, ['--input-type=module', '-e', "await import('ink')"], {
      cwd: repo,
      env,
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode).not.toBe(0);
    expect(String(result.stderr)).toContain('loaded ink');
  });

  it('races headless, lists runs and shows a run without loading ink or react', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex', delayMs: 5 } });
    const race = await hydra(['race', '--json', '--agents', 'codex', 'Add a hello.txt file'], {
      cwd: repo,
      env,
      timeoutMs: 90_000,
    });
    expect(race.exitCode, race.stderr).toBe(0);
    const runId = String(parseNdjson(race.stdout)[0]?.runId);

    const runs = await hydra(['runs'], { cwd: repo, env });
    expect(runs.exitCode, runs.stderr).toBe(0);
    expect(runs.stdout).toContain(runId);

    const show = await hydra(['show', runId], { cwd: repo, env });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`run     ${runId}`);
  });
});

/**
 * Refuses the engine and its heavy dependencies: what --version and --help must not load. dist/ is
 * a bundle (zod, xstate and smol-toml are inside hydra's chunks, not separate packages), so the
 * load hook looks into each module's source for what defines them; Ink, React and execa stay
 * packages and are refused by name.
 */
const FORBID_ENGINE = `
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) register(import.meta.url);
export async function resolve(specifier, context, next) {
  if (/^(xstate|zod|execa|smol-toml|ink|react)(\\/|$)/.test(specifier))
    throw new Error('loaded ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}
const HEAVY = [/\\bfunction startRace\\b/, /\\bfunction createMachine\\b/, /\\$ZodType\\b/, /\\bclass TomlError\\b/];
export async function load(url, context, next) {
  const result = await next(url, context);
  const source = result.source === undefined || result.source === null ? '' : String(result.source);
  const heavy = HEAVY.find((pattern) => pattern.test(source));
  if (heavy !== undefined) throw new Error('loaded ' + url + ', which defines ' + heavy.source);
  return result;
}
`;

describe('hydra --version and --help', () => {
  it('start without loading the engine, the adapters or any heavy dependency', async () => {
    const hook = path.join(sandbox.dir, 'forbid-engine.mjs');
    writeFileSync(hook, FORBID_ENGINE);
    const lean = { ...sandbox.env, NODE_OPTIONS: `--import=${hook}` };
    for (const args of [['--version'], ['--help'], ['race', '--help']]) {
      const result = await hydra(args, { cwd: repo, env: lean });
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const typo = await hydra(['raec'], { cwd: repo, env: lean });
    expect(typo.stderr).toContain('loaded');
  });
});

describe('the help texts', () => {
  it('name every registered agent, since they list them literally', async () => {
    const { listAdapters } = await import('../../../src/adapters/registry.js');
    const { COMMAND_HELP } = await import('../../../src/cli/help.js');
    const ids = listAdapters().map((adapter) => adapter.id);
    expect(COMMAND_HELP.race).toContain(`comma-separated: ${ids.join(',')}`);
    const experimental = listAdapters().filter((adapter) => adapter.tier === 'experimental');
    expect(COMMAND_HELP.race).toContain(`experimental agents (${experimental.map((a) => a.id).join(', ')})`);
    // What a race without --agents runs, as the engine decides it (issue 36: the help said every tier-1 agent).
    const idsOf = (tier: string, inDefault: boolean): string[] =>
      listAdapters()
        .filter((adapter) => adapter.tier === tier && (adapter.inDefaultRace !== false) === inDefault)
        .map((adapter) => adapter.id);
    const help = COMMAND_HELP.race.replace(/\s+/g, ' ');
    expect(help).toContain(
      `(default: ${idsOf('tier1', true).join(',')}, and ${idsOf('experimental', true).join(',')} with the flag below; ${idsOf('tier1', false).join(' and ')} race when named`,
    );
  });
});
