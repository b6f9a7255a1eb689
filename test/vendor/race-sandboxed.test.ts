/**
 * hydra end to end with the real, pinned Claude Code and Codex in the OS sandbox: `hydra race
 * --sandbox required` spawned as a process, both agents in full autonomy, the fake models having
 * each run a shell command in its worktree that writes a file there, writes one outside (refused)
 * and asks a host the proxy does not allow (refused). The fake servers listen on 127.0.0.1, which
 * `[sandbox] allow_hosts` allows (Codex's endpoint is in its config.toml, not in a base-URL variable).
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_REFUSED_STAGE } from '../../src/core/events.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { createRaceSandbox, parseNdjson, summaryAgent } from './race-harness.js';
import type { HydraResult, NdjsonLine, RaceSandbox, SummaryLine } from './race-harness.js';
import { SANDBOX_SHELL, sandboxMissing } from './sandbox.js';

const AGENTS = ['claude', 'codex'] as const satisfies readonly VendorAgent[];

const explain = (result: HydraResult): string =>
  `hydra exit ${String(result.exitCode)}\n--- stderr ---\n${result.stderr}\n--- stdout (last 3000 chars) ---\n${result.stdout.slice(-3000)}`;

const eventsOf = (lines: readonly NdjsonLine[], agent: string): Record<string, unknown>[] =>
  lines.flatMap((line) =>
    line.agent === agent && typeof line.event === 'object' && line.event !== null
      ? [line.event as Record<string, unknown>]
      : [],
  );

describe.skipIf(sandboxMissing() !== null)('hydra race --sandbox required with the real CLIs', () => {
  let sandbox: RaceSandbox;
  let race: HydraResult;
  let lines: NdjsonLine[];
  let summary: SummaryLine;

  beforeAll(async () => {
    sandbox = await createRaceSandbox({ claude: 'success-edit', codex: 'success-shell' }, 'environment', {
      shell: SANDBOX_SHELL,
    });
    const config = join(sandbox.dir, 'hydra-sandbox.toml');
    await writeFile(config, '[sandbox]\nmode = "required"\nallow_hosts = ["127.0.0.1"]\n');
    race = await sandbox.hydra([
      'race',
      '--json',
      '--keep-worktrees',
      '--sandbox',
      'required',
      '--config',
      config,
      '--agents',
      AGENTS.join(','),
      'Run the project script.',
    ]);
    lines = parseNdjson(race.stdout);
    const last = lines.at(-1);
    if (last?.type !== 'summary') throw new Error(`no summary line:\n${explain(race)}`);
    summary = last as unknown as SummaryLine;
  }, 400_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it.each(AGENTS)('runs %s in the sandbox, in full autonomy, to completion', (agent) => {
    expect(race.exitCode, explain(race)).toBe(0);
    expect(summaryAgent(summary, agent).status, explain(race)).toBe('completed');
  });

  it.each(AGENTS)('%s ran the command in its worktree: ran.txt is there', (agent) => {
    const worktree = summaryAgent(summary, agent).worktree;
    expect(worktree).not.toBeNull();
    expect(readFileSync(join(worktree ?? '', 'ran.txt'), 'utf8')).toBe('ok\n');
  });

  it.each(AGENTS)('%s was refused the write outside and the blocked host, shown as warnings', (agent) => {
    const worktree = summaryAgent(summary, agent).worktree ?? '';
    expect(existsSync(join(worktree, '..', 'outside.txt'))).toBe(false);
    const refused = eventsOf(lines, agent)
      .filter((event) => event.kind === 'progress' && event.stage === SANDBOX_REFUSED_STAGE)
      .map((event) => String(event.detail));
    // Beside its worktree is the run's directory, hidden from an agent since issue 35 (its rivals'
    // trees are there): a write there reaches nothing on the disk (above) and reads as no refusal.
    // A write in the home is refused read-only, and shown.
    expect(
      refused.some((detail) => /^a write to .*outside-home\.txt \(read-only file system\)$/.test(detail)),
      `${refused.join('\n')}\n${explain(race)}`,
    ).toBe(true);
    expect(refused.some((detail) => /network allowlist|example\.com/.test(detail))).toBe(true);
    // `./build.sh: Permission denied` is the project's own business, inside the worktree.
    expect(refused.join('\n')).not.toContain('build.sh');
  });
});
