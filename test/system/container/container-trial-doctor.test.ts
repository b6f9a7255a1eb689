/**
 * `hydra doctor` with agents in containers, as a new user meets it when the engine is the problem:
 * an engine that does not answer, an image or a network it does not have, and a remote engine whose
 * connection loses a container's output (a TCP proxy that closes once docker half-closes its side,
 * as socat does by default). Each is said as the race says it, with what to do, and fails doctor;
 * none is blamed on a CLI in the image ("failed with exit code 125 ... reinstall"). A dev container
 * the next race builds is not a failure, and its image's section is not shown empty. Real engine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra, installFakes, ROOT } from '../../support/cli-helpers.js';
import { dockerReachable, testImage } from '../../support/container-image.js';
import { closedPort, removeLeftovers, startEngineProxy } from '../../support/container-helpers.js';

const enabled = dockerReachable();
let image = '';
let sandbox: Sandbox;
let repo: string;

beforeAll(() => {
  if (enabled) image = testImage();
}, 300_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude' } });
});

afterEach(() => sandbox.cleanup());

type Problem = { host: string; message: string; hint: string };
type DoctorJson = { image?: { image: string; host: string; agents: unknown[]; problems: Problem[] } };

/** `hydra doctor` with claude in containers and this `[container]` table (and `--json` when asked). */
async function doctor(
  container: string[],
  asJson = false,
): Promise<{ text: string; json: DoctorJson; exitCode: number }> {
  const config = path.join(sandbox.dir, 'hydra.toml');
  writeFileSync(
    config,
    ['[race]', 'agents = ["claude"]', 'runner = "container"', '', '[container]', ...container, ''].join('\n'),
  );
  const options = { cwd: repo, env: sandbox.env, timeoutMs: 180_000 };
  const text = await hydra(['doctor', '--config', config], options);
  const json = asJson ? (await hydra(['doctor', '--json', '--config', config], options)).stdout : '{}';
  return { text: text.stdout, json: JSON.parse(json) as DoctorJson, exitCode: text.exitCode };
}

describe.runIf(enabled)('hydra doctor when the engine is the problem', { timeout: 300_000 }, () => {
  it('an engine that does not answer: says so with the hint to check it, probes nothing and fails', async () => {
    const host = `tcp://127.0.0.1:${await closedPort()}`;

    const result = await doctor([`image = "${image}"`, 'network = "none"', `hosts = ["${host}"]`], true);

    expect(result.exitCode).toBe(1);
    expect(result.text).toContain(`The container engine at ${host} cannot be reached`);
    expect(result.text).toContain(`hint: Check that the engine at ${host} runs`);
    expect(result.text).toContain('the CLIs were not probed');
    expect(result.text).not.toMatch(/exit code 125|reinstall/);
    expect(result.json.image?.problems).toEqual([
      { host, message: expect.stringContaining('cannot be reached'), hint: expect.any(String) },
    ]);
    expect(result.json.image?.agents).toEqual([]);
  });

  it('an image the engine does not have, then a network it does not have: each named, with how to get it', async () => {
    const missing = await doctor(['image = "hydra-trial-missing:none"', 'network = "none"']);

    expect(missing.exitCode).toBe(1);
    expect(missing.text).toContain('The image hydra-trial-missing:none is not on the container engine');
    expect(missing.text).toContain('`docker pull hydra-trial-missing:none`');
    expect(missing.text).not.toMatch(/exit code 125|reinstall/);

    const network = await doctor([`image = "${image}"`, 'network = "hydra-trial-no-such-network"'], true);

    expect(network.exitCode).toBe(1);
    expect(network.text).toContain(
      'The network hydra-trial-no-such-network ([container] network) is not on the container engine',
    );
    expect(network.text).toContain('`docker network create hydra-trial-no-such-network`');
    expect(network.json.image?.problems[0]?.host).toBe('default');
  });

  it('a remote engine whose connection loses the output: names the half-closing proxy and socat -t', async () => {
    // Like socat without `-t`: closed as soon as docker half-closes its side.
    const proxy = await startEngineProxy({ dropOnHalfClose: true });
    try {
      const result = await doctor([`image = "${image}"`, 'network = "none"', `hosts = ["${proxy.host}"]`]);

      expect(result.exitCode).toBe(1);
      expect(result.text).toContain(
        `The container engine at ${proxy.host} ran a container but none of its output came back`,
      );
      expect(result.text).toContain('socat -t 86400');
      expect(result.text).not.toMatch(/could not read a version number/);

      // A race there: its probe of the CLI in the image reads nothing back the same way, and the race
      // names the engine and the proxy, not the CLI ("could not read a version number ... reinstall").
      const race = await hydra(
        ['race', '--json', '--config', path.join(sandbox.dir, 'hydra.toml'), 'Add a file'],
        {
          cwd: repo,
          env: sandbox.env,
          timeoutMs: 180_000,
        },
      );
      const said = `${race.stdout}\n${race.stderr}`;
      expect(race.exitCode).not.toBe(0);
      expect(said).toContain(
        `The container engine at ${proxy.host} ran a container but none of its output came back`,
      );
      expect(said).toContain('socat -t 86400');
      expect(said).not.toMatch(/could not read a version number|reinstall/);
    } finally {
      await proxy.close();
      await removeLeftovers(repo);
    }
  });

  it('one of two engines down: warns as a race does and passes; the image probe is cached; no host command or sandbox line for a container agent', async () => {
    const down = `tcp://127.0.0.1:${await closedPort()}`;
    const container = [
      `image = "${image}"`,
      'network = "none"',
      `hosts = ["unix:///var/run/docker.sock", "${down}"]`,
    ];

    const first = await doctor(container);

    expect(first.exitCode, first.text).toBe(0);
    expect(first.text).toContain(`The container engine at ${down} cannot be reached`);
    expect(first.text).toContain('(a race places its agents on the other engines)');
    expect(first.text).toMatch(/in the image .*\n(.*\n)* {2}claude: ok/);
    // The host's sample command and the OS sandbox are not what a container agent runs with.
    const hostSection = first.text.slice(
      first.text.indexOf('\nagents\n'),
      first.text.indexOf('\nin the image'),
    );
    expect(hostSection).not.toContain('command   ');
    expect(hostSection).toContain('runs in a container: its CLI is the one in the image');
    expect(first.text).toContain('sandbox: not used: every agent runs in a container');

    const second = await doctor(container);

    expect(second.text).toMatch(/ {2}claude: ok .*\(cached probe\)/);
  });

  it('a trusted dev container the next race builds: passes, and shows no empty image section', async () => {
    mkdirSync(path.join(repo, '.devcontainer'));
    writeFileSync(
      path.join(repo, '.devcontainer', 'devcontainer.json'),
      `{ "image": "${image}", "name": "trial" }\n`,
    );
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'dev container']);
    // The dev container CLI on PATH, as a user's global install.
    sandbox.env['PATH'] = `${sandbox.env['PATH'] ?? ''}:${path.join(ROOT, 'node_modules/.bin')}`;
    const trusted = await hydra(['trust', '.devcontainer/devcontainer.json'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(trusted.exitCode, trusted.stderr).toBe(0);

    const result = await doctor(['devcontainer = true', 'network = "none"']);

    expect(result.text).toContain('built: not yet (the next race builds it)');
    expect(result.text).not.toContain('in the image hydra-devcontainer-');
    expect(result.exitCode).toBe(0);
  });
});
