/**
 * `[container] devcontainer = true`'s build: the reference CLI (@devcontainers/cli, a dev
 * dependency here; users install it globally) builds the repository's `.devcontainer` offline from
 * a local image, into a name that changes with the definition; without the CLI on PATH, a clear
 * error naming how to install it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDevcontainer } from '../../../src/engine/devcontainer/index.js';
import { requireEngine, sleeperImage } from '../../support/infra-image.js';
import { dockerAsync } from '../../support/docker-cli.js';

const BIN = path.resolve('node_modules/.bin');
let base: string;
let repo: string;
const built: string[] = [];

beforeAll(async () => {
  await requireEngine();
  base = await sleeperImage();
}, 120_000);

afterEach(async () => {
  if (built.length > 0) await dockerAsync(['rmi', '-f', ...built.splice(0)], { reject: false });
  rmSync(repo, { recursive: true, force: true });
});

const withDefinition = (files: Record<string, string>): string => {
  repo = mkdtempSync(path.join(tmpdir(), 'hydra-devcontainer-'));
  mkdirSync(path.join(repo, '.devcontainer'));
  for (const [name, content] of Object.entries(files))
    writeFileSync(path.join(repo, '.devcontainer', name), content);
  return repo;
};

const env = { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ''}` };

describe('building the dev container', () => {
  it('builds a Dockerfile definition offline from a local image, into a name that follows the definition', async () => {
    const root = withDefinition({
      'devcontainer.json': '{ "build": { "dockerfile": "Dockerfile" } }\n',
      Dockerfile: `FROM ${base}\nRUN echo one > /built\n`,
    });

    const first = await buildDevcontainer(root, { env });
    built.push(first.image);
    writeFileSync(path.join(root, '.devcontainer', 'Dockerfile'), `FROM ${base}\nRUN echo two > /built\n`);
    const second = await buildDevcontainer(root, { env });
    built.push(second.image);

    expect(second.image).not.toBe(first.image);
    const { stdout } = await dockerAsync([
      'run',
      '--rm',
      '--network',
      'none',
      second.image,
      'sh',
      '-c',
      'read -r line < /built; echo "$line"',
    ]);
    expect(stdout.trim()).toBe('two');
  }, 300_000);

  it('says how to install the CLI when it is not on PATH', async () => {
    const root = withDefinition({ 'devcontainer.json': `{ "image": "${base}" }\n` });

    await expect(
      buildDevcontainer(root, { env: { ...process.env, PATH: '/usr/bin:/bin' } }),
    ).rejects.toMatchObject({
      kind: 'BinaryMissing',
      hint: 'Install it with: npm i -g @devcontainers/cli',
    });
  });
});
