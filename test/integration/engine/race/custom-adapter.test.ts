/**
 * Adding a CLI is one adapter file and one registry line: a fourth adapter, defined only here and
 * registered at run time, races end to end through config, probe, worktree, process, parser,
 * commit and clean-up, with nothing else in hydra knowing its name.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import type { AgentEvent } from '../../../../src/core/events.js';
import type { RunState } from '../../../../src/adapters/finish.js';
import { JsonLineParser } from '../../../../src/adapters/json-line-parser.js';
import { runStep, versionOf } from '../../../../src/adapters/probe-steps.js';
import { getAdapter, registerAdapter } from '../../../../src/adapters/registry.js';
import type { AgentAdapter } from '../../../../src/adapters/types.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { buildRaceOptions, startRace } from '../../../../src/engine/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { git, makeSandbox, processesOfRun } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

// ---------------------------------------------------------------------------------------------
// The adapter: what a new CLI's file under src/adapters/ would hold.

/** Acme's stream: `{"type":"say","text":...}` while it works, `{"type":"done","result":...}` at the end. */
class AcmeParser extends JsonLineParser {
  protected readonly state: RunState = { displayName: 'Acme Agent', sawJson: false, authHint: 'acme login' };

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    const text = typeof value['text'] === 'string' ? value['text'] : '';
    const result = typeof value['result'] === 'string' ? value['result'] : '';
    if (value['type'] === 'say') return [ev({ kind: 'message', role: 'assistant', text })];
    if (value['type'] === 'done') return [ev({ kind: 'completed', result })];
    return null;
  }
}

const INSTALL_HINT = 'npm install -g acme-agent';

const acmeAdapter: AgentAdapter = {
  id: 'acme',
  displayName: 'Acme Agent',
  tier: 'tier1',
  aliases: ['acme-cli'],
  binaries: ['acme'],
  installHint: INSTALL_HINT,
  signInHint: 'Run `acme login` once.',
  probe: async (binary, run) => {
    const context = { adapterId: 'acme', displayName: 'Acme Agent', binary, installHint: INSTALL_HINT };
    const step = await runStep(context, run, ['--version']);
    if (!step.ok) return { ok: false, error: step.error };
    return {
      ok: true,
      capabilities: {
        adapterId: 'acme',
        binary,
        version: versionOf(step),
        flags: ['--json'],
        features: { json: true },
        confidence: 'verified',
        warnings: [],
      },
    };
  },
  validateModel: () => null,
  buildCommand: (request, capabilities) => ({
    file: capabilities.binary,
    args: ['--json', request.prompt],
    env: { ...request.env },
    cwd: request.cwd,
    files: [],
  }),
  createParser: () => new AcmeParser(),
};

/** The "installed" CLI: answers --version, prints JSON lines and writes the prompt into acme.txt. */
const ACME_SCRIPT = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "acme 1.2.3"; exit 0; fi
echo '{"type":"say","text":"writing acme.txt"}'
printf '%s\\n' "$2" > acme.txt
echo '{"type":"done","result":"wrote acme.txt"}'
`;

// ---------------------------------------------------------------------------------------------

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: (() => void) | null = null;

beforeEach(() => {
  sandbox = makeSandbox();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister?.();
  unregister = null;
  sandbox.cleanup();
});

describe('an adapter registered at run time', () => {
  it('races from a hydra.toml naming it, commits its file on its branch, and cleans up after itself', async () => {
    const binary = path.join(sandbox.dir, 'acme');
    writeFileSync(binary, ACME_SCRIPT);
    chmodSync(binary, 0o755);
    unregister = registerAdapter(acmeAdapter);
    const config = parseConfigText(
      `[race]\nagents = ["acme"]\n\n[agents.acme]\nbinary = ${JSON.stringify(binary)}\n`,
      'hydra.toml',
    );
    const options = buildRaceOptions(config, {}, { repoPath: sandbox.repo, prompt: 'make acme.txt' });

    handle = startRace({
      ...options,
      worktreeRoot: sandbox.worktreeRoot,
      cacheDir: sandbox.cacheDir,
      killGraceMs: 300,
    });
    const summary = await handle.settled;

    expect(getAdapter('ACME-CLI')?.id).toBe('acme');
    expect(summary.agents.map((agent) => [agent.agent, agent.status])).toEqual([['acme', 'completed']]);
    const [acme] = handle.getSnapshot().agents;
    expect(acme?.displayName).toBe('Acme Agent');
    const branch = `hydra/${handle.runId}/acme`;
    expect(acme?.branch).toBe(branch);
    expect(git(sandbox.repo, 'show', `${branch}:acme.txt`)).toBe('make acme.txt\n');
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');

    await handle.finish();
    expect(existsSync(acme?.worktree ?? '')).toBe(false);
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    // The result stays as its branch until `hydra clean`, so `hydra merge` still works.
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).toBe(branch);
    expect(processesOfRun(handle.runId)).toEqual([]);
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
  });

  it('is forgotten once unregistered', () => {
    registerAdapter(acmeAdapter)();
    expect(getAdapter('acme')).toBeUndefined();
    expect(() => parseConfigText('[agents.acme]\nbinary = "acme"\n', 'hydra.toml')).toThrow(
      /agents\.acme: "acme" is not an adapter/,
    );
  });
});
