/**
 * `hydra doctor` with `[container] devcontainer = true`: it names the devcontainer.json a race
 * would build and the image it builds to, says the image is not built yet (and that the race will
 * not build an untrusted one); once the image is built, it probes the CLIs in it. Real engine; the
 * dev container is `FROM` an image built from files on this machine with a fake claude in it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildDevcontainer } from '../../../src/engine/devcontainer/index.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra, ROOT } from '../../support/cli-helpers.js';
import { requireEngine } from '../../support/infra-image.js';
import { doctorClaudeImage, removeDevcontainerImages } from '../../support/container-helpers.js';

let sandbox: Sandbox;
let repo: string;
let withClaude: string;

beforeAll(async () => {
  await requireEngine();
  withClaude = await doctorClaudeImage();
}, 300_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => {
  removeDevcontainerImages(repo);
  sandbox.cleanup();
});

type DoctorImage = {
  image: string;
  agents: Array<{ agent: string; status: string; version: string | null }>;
  devcontainer?: { file: string | null; image: string | null; built: boolean; trusted: boolean };
};

async function doctor(
  config: string,
): Promise<{ json: DoctorImage | undefined; text: string; exitCode: number }> {
  const options = { cwd: repo, env: sandbox.env, timeoutMs: 180_000 };
  const asJson = await hydra(['doctor', '--json', '--config', config], options);
  const asText = await hydra(['doctor', '--config', config], options);
  const parsed = JSON.parse(asJson.stdout) as { image?: DoctorImage };
  return { json: parsed.image, text: asText.stdout, exitCode: asText.exitCode ?? -1 };
}

describe('hydra doctor with a dev container as the image', () => {
  it('names the file and the image, says it is not built, and probes the CLIs once it is', async () => {
    mkdirSync(path.join(repo, '.devcontainer'));
    writeFileSync(path.join(repo, '.devcontainer', 'devcontainer.json'), `{ "image": "${withClaude}" }\n`);
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'dev container']);
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(
      config,
      // Only claude in a container: doctor probes only it in the image.
      '[race]\nagents = ["claude"]\n\n[agents.claude]\nrunner = "container"\n\n[container]\ndevcontainer = true\n',
    );

    const before = await doctor(config);

    expect(before.json?.devcontainer).toMatchObject({
      file: '.devcontainer/devcontainer.json',
      image: expect.stringMatching(/^hydra-devcontainer-repo-[0-9a-f]{8}:[0-9a-f]{12}$/),
      built: false,
      trusted: false,
    });
    expect(before.json?.agents).toEqual([]);
    expect(before.text).toContain('  .devcontainer/devcontainer.json builds hydra-devcontainer-');
    expect(before.text).toContain('built: not yet (the next race builds it)');
    expect(before.text).toContain('is not built yet and not trusted: a race will not build it');
    expect(before.exitCode).not.toBe(0);

    const { image } = await buildDevcontainer(repo, {
      env: { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}` },
    });
    expect(image).toBe(before.json?.devcontainer?.image);
    const after = await doctor(config);

    expect(after.json?.devcontainer?.built).toBe(true);
    expect(after.json?.image).toBe(image);
    expect(after.json?.agents.find((agent) => agent.agent === 'claude')).toMatchObject({
      status: 'ready',
      version: expect.stringContaining('2.1.330'),
    });
    expect(after.text).toContain('built: yes');
    expect(after.text).toMatch(/ {2}claude: ok .*2\.1\.330/);
  }, 600_000);
});
