/**
 * Port blocks (src/engine/setup/ports.ts): one block per agent, none held twice on the machine, a
 * dead holder's lease taken over, a port another program holds skipped, every lease given back.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPortLeases, portLeaseDir, PORT_BLOCK } from '../../../../src/engine/setup/index.js';
import type { PortRange } from '../../../../src/engine/setup/index.js';
import { readHolder } from '../../../../src/engine/locks/index.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { resolveRace } from '../../../../src/engine/config/resolve.js';
import { withoutExecutingKeys } from '../../../../src/engine/config/trust-filter.js';

let dir: string;
let range: PortRange;

/** A range of 5 blocks somewhere in 40000-49999, so parallel test files rarely meet. */
const randomRange = (): PortRange => {
  const first = 40_000 + PORT_BLOCK * Math.floor(Math.random() * 950);
  return { first, last: first + 5 * PORT_BLOCK - 1 };
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hydra-ports-test-'));
  range = randomRange();
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const leaseFiles = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.lease'));

/** A process that has exited: its pid is free (or reused, with another start time). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

/** Listens on 127.0.0.1:port until closed: another program holding the port. */
const listen = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('port blocks', () => {
  it('gives each agent its own block, and the same one when asked again (a follow-up)', async () => {
    const leases = createPortLeases({ runId: 'r1', range, dir });
    const [a, b, base] = await Promise.all([leases.lease('a'), leases.lease('b'), leases.lease('.baseline')]);
    expect(new Set([a, b, base]).size).toBe(3);
    for (const port of [a, b, base]) {
      expect(port).toBeGreaterThanOrEqual(range.first);
      expect((port - range.first) % PORT_BLOCK).toBe(0);
    }
    expect(await leases.lease('a')).toBe(a);
    expect(leaseFiles()).toHaveLength(3);
    expect(readHolder(path.join(dir, `${a}.lease`))).toMatchObject({
      pid: process.pid,
      command: 'hydra run r1 agent a',
    });
    leases.release();
  });

  it('never gives a block another race holds (two races on one machine)', async () => {
    const first = createPortLeases({ runId: 'r1', range, dir });
    const second = createPortLeases({ runId: 'r2', range, dir });
    const ports = await Promise.all([
      first.lease('a'),
      second.lease('a'),
      first.lease('b'),
      second.lease('b'),
    ]);
    expect(new Set(ports).size).toBe(4);
    first.release();
    second.release();
  });

  it('takes over the lease of a hydra that is gone', async () => {
    const stale = {
      pid: await deadPid(),
      startTime: null,
      command: 'hydra run old agent a',
      since: '',
      nonce: 'x',
    };
    writeFileSync(path.join(dir, `${range.first}.lease`), JSON.stringify(stale));
    const leases = createPortLeases({ runId: 'r1', range, dir });
    expect(await leases.lease('a')).toBe(range.first);
    expect(readHolder(path.join(dir, `${range.first}.lease`))?.pid).toBe(process.pid);
    leases.release();
  });

  it('skips a block whose first port another program listens on', async () => {
    const server = await listen(range.first);
    try {
      const leases = createPortLeases({ runId: 'r1', range, dir });
      expect(await leases.lease('a')).toBe(range.first + PORT_BLOCK);
      // The skipped block is not left leased.
      expect(leaseFiles()).toEqual([`${range.first + PORT_BLOCK}.lease`]);
      leases.release();
    } finally {
      server.close();
    }
  });

  it('gives every block back on release, and the next race gets the first again', async () => {
    const leases = createPortLeases({ runId: 'r1', range, dir });
    await leases.lease('a');
    await leases.lease('b');
    leases.release();
    expect(leaseFiles()).toEqual([]);
    const next = createPortLeases({ runId: 'r2', range, dir });
    expect(await next.lease('a')).toBe(range.first);
    next.release();
  });

  it('refuses, naming port_range, when every block is held', async () => {
    const small = { first: range.first, last: range.first + PORT_BLOCK - 1 };
    const leases = createPortLeases({ runId: 'r1', range: small, dir });
    await leases.lease('a');
    await expect(leases.lease('b')).rejects.toMatchObject({
      kind: 'Refused',
      hint: expect.stringContaining('port_range'),
    });
    leases.release();
  });
});

describe('the lease directory', () => {
  it('is private to the user (0700)', () => {
    const leaseDir = portLeaseDir(dir);
    expect(leaseDir).toBe(path.join(dir, `hydra-${process.getuid?.()}`, 'ports'));
    expect(statSync(leaseDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(leaseDir)).mode & 0o777).toBe(0o700);
  });

  it('is refused when it is a symbolic link (someone else could point it anywhere)', () => {
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(dir, `hydra-${process.getuid?.()}`));
    expect(() => portLeaseDir(dir)).toThrow(/not a private directory of yours: it is a symbolic link/);
    expect(existsSync(path.join(elsewhere, 'ports'))).toBe(false);
  });
});

describe('one owner', () => {
  it('asked twice at once gets one block', async () => {
    const leases = createPortLeases({ runId: 'r1', range, dir });
    const [a, again] = await Promise.all([leases.lease('a'), leases.lease('a')]);
    expect(again).toBe(a);
    expect(leaseFiles()).toHaveLength(1);
    leases.release();
  });
});

describe('[race] port_range', () => {
  it('sets the range a race takes its blocks from', () => {
    const config = parseConfigText('[race]\nport_range = [31000, 31099]\n', 'hydra.toml');
    expect(resolveRace(config, { agents: ['claude'] }).portRange).toEqual({ first: 31_000, last: 31_099 });
  });

  it('is refused when it holds no block of 10, naming the key and an example', () => {
    expect(() => parseConfigText('[race]\nport_range = [31000, 31005]\n', 'hydra.toml')).toThrow(
      /race\.port_range must be .*at least 10 apart, e\.g\. port_range = \[20000, 29999\]/,
    );
    expect(() => parseConfigText('[race]\nport_range = [80, 90]\n', 'hydra.toml')).toThrow(
      /race\.port_range/,
    );
  });

  it('is a key any hydra.toml may set (it runs nothing)', () => {
    const { ignored } = withoutExecutingKeys({ race: { port_range: [31_000, 31_099] } });
    expect(ignored).toEqual([]);
  });
});
