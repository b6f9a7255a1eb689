/**
 * Issue 35, case 7: loopback is allowed per host and port, never a whole address. An agent whose
 * ANTHROPIC_BASE_URL is a local gateway (http://127.0.0.1:<A>) reaches that port, and not a second
 * listener on port B by any spelling of the loopback address (127.0.0.1, 127.1, 2130706433,
 * 0x7f000001, localhost): a database, a dev server or a Docker engine beside the gateway stays
 * out of reach. Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { startRace } from '../../../src/engine/index.js';
import { git, makeSandbox, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { registerScriptAgent, writeScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
const servers: http.Server[] = [];
const hits: Record<string, string[]> = { gateway: [], other: [] };
const ports: Record<string, number> = {};

const listen = async (name: string): Promise<void> => {
  const server = http.createServer((request, response) => {
    hits[name]?.push(request.url ?? '');
    response.end('reached\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  ports[name] = (server.address() as AddressInfo).port;
};

beforeEach(async () => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent('looper');
  hits.gateway = [];
  hits.other = [];
  await listen('gateway');
  await listen('other');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  sandbox.cleanup();
});

/** Each spelling of loopback, for the other listener's port. */
const SPELLINGS = ['127.0.0.1', '127.1', '2130706433', '0x7f000001', 'localhost'];

describe('a local gateway in ANTHROPIC_BASE_URL', () => {
  it('opens its own port to the agent, not every loopback port', { timeout: 90_000 }, async () => {
    // Through the sandbox's proxy, as a client that honours the proxy variables goes (the
    // sandbox has no network of its own: a direct connection is refused anyway).
    const via = (url: string, name: string): string =>
      `if curl -sf -m 10 --noproxy '' "${url}" >/dev/null 2>&1; then echo "${name}=ok" >> attempts.txt; else echo "${name}=refused" >> attempts.txt; fi`;
    const body = [
      'set +e',
      via(`http://127.0.0.1:${ports.gateway}/gateway`, 'gateway'),
      ...SPELLINGS.map((host) => via(`http://${host}:${ports.other}/${host}`, host)),
    ].join('\n');
    // The base URL is the agent's own, as `[agents.X] env` sets it.
    const plan = {
      adapterId: 'looper',
      binary: writeScriptAgent(sandbox, body, 'looper'),
      extraArgs: [],
      env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${ports.gateway}` },
      idleTimeoutMs: 60_000,
    };
    handle = startRace(
      raceOptions(sandbox, [plan], { sandbox: { mode: 'required', allowHosts: [], allowWrite: [] } }),
    );
    const summary = await handle.settled;
    const agent = summary.agents[0];
    expect(agent?.sandbox).toBe('bubblewrap');
    const attempts = Object.fromEntries(
      git(sandbox.repo, 'show', `${agent?.branch ?? ''}:attempts.txt`)
        .trim()
        .split('\n')
        .map((line) => line.split('=') as [string, string]),
    );
    expect(attempts).toEqual({
      gateway: 'ok',
      ...Object.fromEntries(SPELLINGS.map((host) => [host, 'refused'])),
    });
    expect(hits.gateway).toEqual(['/gateway']);
    expect(hits.other).toEqual([]);
  });
});
