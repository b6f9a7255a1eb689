/**
 * Issue 35, honest set-ups, with the real pinned CLIs: `hydra race --sandbox required` spawned as a
 * process whose own HOME is fresh (no ~/.gemini, no ~/.qwen, no ~/.codex), each agent set up the
 * way users do in hydra.toml and nothing in `[sandbox]`:
 * - Gemini CLI with `HOME` in its `env`: a home of its own holding its settings;
 * - Qwen Code with `HOME` in its `env`: a home with no `~/.qwen` at all (it fails to start where it
 *   cannot make one);
 * - Codex with its provider given in `-c` among its extra_args (a loopback port the sandbox learns
 *   from the arguments, not from `allow_hosts`).
 * All three complete in the jail, each with its own copy of its state, and the homes are unchanged.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CODEX_PROVIDER_KEY_VAR,
  RECORD_VERSIONS,
  geminiOfflineEnv,
  qwenOfflineEnv,
  vendorBinary,
  writeGeminiOfflineSettings,
} from '../../scripts/vendor-cli.js';
import { PROJECT_ROOT } from './harness.js';
import {
  codexProviderArgs,
  createRaceSandbox,
  parseNdjson,
  summaryAgent,
  tomlString,
  tomlTable,
} from './race-harness.js';
import type { HydraResult, RaceSandbox, SummaryLine } from './race-harness.js';
import { sandboxMissing } from './sandbox.js';

const AGENTS = ['gemini', 'qwen', 'codex'] as const;

const explain = (result: HydraResult): string =>
  `hydra exit ${String(result.exitCode)}\n--- stderr ---\n${result.stderr}\n--- stdout (last 3000 chars) ---\n${result.stdout.slice(-3000)}`;

describe.skipIf(sandboxMissing() !== null)('honest set-ups in the sandbox, with the real CLIs', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let summary: SummaryLine;
  let geminiHome: string;
  let qwenHome: string;

  beforeAll(async () => {
    sandbox = await createRaceSandbox(
      { claude: 'success-edit', codex: 'success-edit', gemini: 'success-edit', qwen: 'success-edit' },
      'hydra-toml',
    );
    geminiHome = join(sandbox.dir, 'gemini-home');
    qwenHome = join(sandbox.dir, 'qwen-home');
    await mkdir(qwenHome, { recursive: true });
    await writeGeminiOfflineSettings(geminiHome);
    const config = join(sandbox.dir, 'honest.toml');
    await writeFile(
      config,
      [
        '[agents.gemini]',
        `binary = ${tomlString(vendorBinary(PROJECT_ROOT, 'gemini', RECORD_VERSIONS.gemini))}`,
        `env = ${tomlTable(geminiOfflineEnv(sandbox.servers.gemini.url, geminiHome))}`,
        '',
        '[agents.qwen]',
        `binary = ${tomlString(vendorBinary(PROJECT_ROOT, 'qwen', RECORD_VERSIONS.qwen))}`,
        `env = ${tomlTable(qwenOfflineEnv(sandbox.servers.qwen.url, qwenHome))}`,
        '',
        '[agents.codex]',
        `binary = ${tomlString(vendorBinary(PROJECT_ROOT, 'codex', RECORD_VERSIONS.codex))}`,
        `extra_args = [${codexProviderArgs(sandbox.servers.codex.url).map(tomlString).join(', ')}]`,
        `env = ${tomlTable({ [CODEX_PROVIDER_KEY_VAR]: 'sk-test' })}`,
        '',
      ].join('\n'),
    );
    race = await sandbox.hydra([
      'race',
      '--json',
      '--sandbox',
      'required',
      '--config',
      config,
      '--agents',
      AGENTS.join(','),
      'Create hello.txt',
    ]);
    const last = parseNdjson(race.stdout).at(-1);
    if (last?.type !== 'summary') throw new Error(`no summary line:\n${explain(race)}`);
    summary = last as unknown as SummaryLine;
  }, 600_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it.each(AGENTS)('%s completes in the sandbox', (agent) => {
    expect(summaryAgent(summary, agent).status, explain(race)).toBe('completed');
    expect(summaryAgent(summary, agent).sandbox, explain(race)).toBe('bubblewrap');
    expect(sandbox.servers[agent].requests.length).toBeGreaterThan(0);
  });

  it("leaves the agents' homes and hydra's own as they were: the CLIs wrote their own copies", () => {
    expect(readdirSync(geminiHome).sort()).toEqual(['.gemini']);
    // Nothing of the agent's session (Gemini keeps it in tmp/); hydra's probe (`gemini --version`,
    // run as the user, unsandboxed) leaves Gemini's projects.json.<uuid>.tmp files there.
    expect(
      readdirSync(join(geminiHome, '.gemini'))
        .filter((name) => !name.startsWith('projects.json.'))
        .sort(),
    ).toEqual(['settings.json']);
    expect(readdirSync(qwenHome)).toEqual([]);
    for (const dir of ['.gemini', '.qwen']) expect(existsSync(join(sandbox.home, dir)), dir).toBe(false);
    // Codex's probe may make ~/.codex; its session is in the agent's copy, never there.
    expect(existsSync(join(sandbox.home, '.codex', 'sessions'))).toBe(false);
  });
});
