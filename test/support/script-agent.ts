/**
 * An agent that is a shell script written by the test: it runs whatever git commands an attacker
 * (or a careless agent) would, in its own worktree, and then reports a result like a real CLI. The
 * adapter is registered at run time, as test/integration/engine/race/custom-adapter.test.ts shows.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ev } from '../../src/core/events.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunState } from '../../src/adapters/finish.js';
import { JsonLineParser } from '../../src/adapters/json-line-parser.js';
import { registerAdapter } from '../../src/adapters/registry.js';
import type { AgentAdapter } from '../../src/adapters/types.js';
import { startRace } from '../../src/engine/index.js';
import type { RaceHandle, RaceOptions } from '../../src/engine/index.js';
import { raceOptions } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';

class ScriptParser extends JsonLineParser {
  protected readonly state: RunState = { displayName: 'Script Agent', sawJson: false, authHint: 'none' };

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    if (value['type'] === 'done') return [ev({ kind: 'completed', result: String(value['result'] ?? '') })];
    return null;
  }
}

export const SCRIPT_AGENT = 'scripted';

const scriptAdapter = (id: string): AgentAdapter => ({
  id,
  displayName: 'Script Agent',
  tier: 'tier1',
  aliases: [],
  binaries: [`${id}-agent`],
  installHint: 'written by the test',
  signInHint: 'none',
  probe: async (binary) => ({
    ok: true,
    capabilities: {
      adapterId: id,
      binary,
      version: '1.0.0',
      flags: [],
      features: { json: true },
      confidence: 'verified',
      warnings: [],
    },
  }),
  validateModel: () => null,
  buildCommand: (request, capabilities) => ({
    file: capabilities.binary,
    args: [],
    env: { ...request.env },
    cwd: request.cwd,
    files: [],
  }),
  createParser: () => new ScriptParser(),
});

/** Registers a scripted agent (by default `scripted`); returns the unregister function. */
export const registerScriptAgent = (id: string = SCRIPT_AGENT): (() => void) =>
  registerAdapter(scriptAdapter(id));

/**
 * Writes `body` (sh, run in the agent's worktree, `set -e`) as the agent's binary. It prints the
 * result line after the body, so a body that fails midway still reports a result.
 */
export function writeScriptAgent(sandbox: Sandbox, body: string, id: string = SCRIPT_AGENT): string {
  const binary = path.join(sandbox.dir, `${id}-agent`);
  writeFileSync(
    binary,
    `#!/bin/sh\nexport GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com\n( set -e\n${body}\n) >/dev/null 2>&1\necho '{"type":"done","result":"done"}'\n`,
  );
  chmodSync(binary, 0o755);
  return binary;
}

/** Starts a race of the scripted agent running `body`. */
export const raceScript = (sandbox: Sandbox, body: string, extra: Partial<RaceOptions> = {}): RaceHandle =>
  raceScripts(sandbox, { [SCRIPT_AGENT]: body }, extra);

/** Starts a race of several registered scripted agents, each running its own body. */
export function raceScripts(
  sandbox: Sandbox,
  bodies: Record<string, string>,
  extra: Partial<RaceOptions> = {},
): RaceHandle {
  const plans = Object.entries(bodies).map(([id, body]) => ({
    adapterId: id,
    binary: writeScriptAgent(sandbox, body, id),
    extraArgs: [],
    env: {},
    idleTimeoutMs: 20_000,
  }));
  return startRace(raceOptions(sandbox, plans, extra));
}
