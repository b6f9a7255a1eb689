/**
 * `hydra clean` and dev container images: the images hydra built for this repository (labelled
 * `io.hydra.devcontainer=<repository key>` at build time) that no container uses are removed with the
 * bytes they took; `--dry-run` lists them and removes nothing. Another repository's image stays.
 * Real images on the local engine (a label over the small sleeper image: no layer is copied).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { repoKey } from '../../../src/engine/records/paths.js';
import { requireEngine, sleeperImage } from '../../support/infra-image.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra } from '../../support/cli-helpers.js';
import { dockerAsync } from '../../support/docker-cli.js';

let sandbox: Sandbox;
let repo: string;
let base: string;
let tags: string[] = [];

beforeAll(async () => {
  await requireEngine();
  base = await sleeperImage();
}, 120_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(async () => {
  if (tags.length > 0) await dockerAsync(['rmi', '-f', ...tags], { reject: false });
  tags = [];
  sandbox.cleanup();
});

/** An image labelled as hydra's dev container image of `key`, as devcontainer/build.ts labels it. */
async function devcontainerImage(key: string): Promise<string> {
  const tag = `hydra-devcontainer-cli-image-test-${randomUUID().slice(0, 8)}:x`;
  tags.push(tag);
  await dockerAsync(['build', '-q', '-t', tag, '--label', `io.hydra.devcontainer=${key}`, '-'], {
    input: `FROM ${base}\n`,
  });
  return tag;
}

const exists = async (tag: string): Promise<boolean> =>
  (await dockerAsync(['image', 'inspect', tag], { reject: false })).exitCode === 0;

it("removes this repository's dev container images, saying the bytes freed; --dry-run only lists them", async () => {
  const mine = await devcontainerImage(repoKey(git(repo, ['rev-parse', '--show-toplevel']).trim()));
  const theirs = await devcontainerImage('another-repository');

  const dry = await hydra(['clean', '--dry-run'], { cwd: repo, env: sandbox.env });
  expect(dry.exitCode, dry.stderr).toBe(0);
  expect(dry.stdout).toMatch(/would remove 1 dev container image\(s\), \d+\.\d MB:/);
  expect(dry.stdout).toContain(mine);
  expect(await exists(mine)).toBe(true);

  const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
  expect(cleaned.exitCode, cleaned.stderr).toBe(0);
  expect(cleaned.stdout).toMatch(/removed 1 dev container image\(s\), \d+\.\d MB freed:/);
  expect(await exists(mine)).toBe(false);
  expect(await exists(theirs)).toBe(true);
}, 120_000);
