/**
 * Issue 35, honest set-ups: endpoints in the CLIs' own configuration join the sandbox's allowlist.
 * Three agents each reach a local model server of their own (loopback, by port), named where the
 * real set-ups name it: Codex with a provider in `-c model_providers.<id>=…` among its extra_args,
 * Codex with the provider in `$CODEX_HOME/config.toml`, Claude Code with ANTHROPIC_BASE_URL in the
 * `env` block of its settings.json. Each fake connects to its endpoint through the sandbox's proxy
 * first, as the real CLI would, and fails as Codex does ("stream disconnected before completion")
 * when refused. Needs bubblewrap, socat, ripgrep and curl (.ci/run installs them).
 */
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let home: string;
let savedHome: string | undefined;
const servers: http.Server[] = [];
const hits: Record<string, number> = {};

const listen = async (name: string): Promise<number> => {
  hits[name] = 0;
  const server = http.createServer((_request, response) => {
    hits[name] = (hits[name] ?? 0) + 1;
    response.end('{}\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
};

/**
 * Wraps the installed replay of `binary`: it first reaches the endpoint its configuration names
 * (`-c …base_url…`, `$CODEX_HOME/config.toml`, or settings.json's env block), through the proxy.
 */
const wrap = (binary: string): void => {
  const bin = path.join(sandbox.bin, binary);
  renameSync(bin, `${bin}-replay`);
  const reach = path.join(sandbox.dir, `${binary}-reach.cjs`);
  writeFileSync(
    reach,
    `const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
const args = process.argv.slice(2);
if (args.includes('--version') || args.includes('--help')) process.exit(0);
const read = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };
const codexHome = process.env.CODEX_HOME || path.join(os.homedir(), '.codex');
const claudeDir = process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude');
const text = [args.join(' '), read(path.join(codexHome, 'config.toml')), read(path.join(claudeDir, 'settings.json'))].join('\\n');
const url = (/base_?url["']?\\s*[=:]\\s*["']?(http:\\/\\/[^\\s"',}]+)/i.exec(text) || [])[1];
if (!url) { console.error('no endpoint configured'); process.exit(1); }
const out = require('node:child_process').spawnSync('curl', ['-sf', '-m', '10', url], { stdio: 'ignore' });
if (out.status !== 0) { console.error('stream disconnected before completion: error sending request for url (' + url + ')'); process.exit(1); }
`,
  );
  writeFileSync(
    bin,
    `#!/bin/sh\nnode ${JSON.stringify(reach)} "$@" || exit 1\nexec ${JSON.stringify(`${bin}-replay`)} "$@"\n`,
  );
  chmodSync(bin, 0o755);
};

beforeEach(async () => {
  sandbox = makeSandbox();
  home = mkdtempSync(path.join(os.tmpdir(), 'hydra-endpoints-home-'));
  savedHome = process.env.HOME;
  process.env.HOME = home;
  await installAgents(sandbox, { codex: {}, claude: {} });
  wrap('codex');
  wrap('claude');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
  sandbox.cleanup();
});

describe("endpoints in a CLI's own configuration", () => {
  it('are reached from the jail: -c, config.toml, settings.json env', { timeout: 120_000 }, async () => {
    const args = await listen('args');
    const toml = await listen('toml');
    const settings = await listen('settings');
    // The user's Codex config (for the agent with a CODEX_HOME of its own) and Claude Code settings.
    const codexHome = path.join(home, 'codex-home');
    mkdirSync(codexHome);
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      `model_provider = "local"\n\n[model_providers.local]\nname = "local"\nbase_url = "http://127.0.0.1:${toml}/v1"\nwire_api = "responses"\n`,
    );
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(
      path.join(home, '.claude', 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${settings}` } }),
    );
    handle = startRace(
      raceOptions(
        sandbox,
        [
          plan(sandbox, 'codex', {
            name: 'codex-args',
            extraArgs: [
              '-c',
              'model_provider=local',
              '-c',
              `model_providers.local={name="local", base_url="http://127.0.0.1:${args}/v1", wire_api="responses"}`,
            ],
          }),
          plan(sandbox, 'codex', { name: 'codex-toml', env: { CODEX_HOME: codexHome } }),
          plan(sandbox, 'claude'),
        ],
        { sandbox: { mode: 'required', allowHosts: [], allowWrite: [] } },
      ),
    );
    const summary = await handle.settled;
    expect(summary.agents.map((agent) => [agent.agent, agent.status, agent.error?.message ?? null])).toEqual([
      ['codex-args', 'completed', null],
      ['codex-toml', 'completed', null],
      ['claude', 'completed', null],
    ]);
    expect(hits).toEqual({ args: 1, toml: 1, settings: 1 });
  });
});
