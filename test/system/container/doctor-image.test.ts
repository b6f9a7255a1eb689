/**
 * `hydra doctor` with agents in containers: each adapter's probe runs inside `[container] image`;
 * a CLI the image lacks is missing, with how to add it; one the image has is found with its
 * version. Real containers on the local engine, images built from files on this machine (node, and
 * a fake claude that answers `--version` and `--help` as Claude Code 2.1.330 does).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorBareImage, doctorClaudeImage } from '../../support/container-helpers.js';
import { requireEngine } from '../../support/infra-image.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;
let bare: string;
let withClaude: string;

beforeAll(async () => {
  await requireEngine();
  bare = await doctorBareImage();
  withClaude = await doctorClaudeImage();
}, 300_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

type ImageJson = {
  image: string;
  agents: Array<{
    agent: string;
    status: string;
    version: string | null;
    error: { message: string; hint: string } | null;
  }>;
};

/** doctor --json and text with a config racing claude and codex in containers of `image`. */
async function doctorWith(image: string): Promise<{
  json: ImageJson | undefined;
  adapters: Array<{ id: string; status: string; warnings: string[] }>;
  text: string;
  exitCode: number;
}> {
  const config = path.join(sandbox.dir, 'hydra.toml');
  writeFileSync(
    config,
    `[race]\nagents = ["claude", "codex"]\nrunner = "container"\n\n[container]\nimage = ${JSON.stringify(image)}\n`,
  );
  const options = { cwd: repo, env: sandbox.env, timeoutMs: 180_000 };
  const asJson = await hydra(['doctor', '--json', '--config', config], options);
  const asText = await hydra(['doctor', '--config', config], options);
  const parsed = JSON.parse(asJson.stdout) as {
    image?: ImageJson;
    adapters: Array<{ id: string; status: string; warnings: string[] }>;
  };
  return {
    json: parsed.image,
    adapters: parsed.adapters,
    text: asText.stdout,
    exitCode: asText.exitCode ?? -1,
  };
}

describe('hydra doctor with agents in containers', () => {
  it('says which CLIs the image lacks and how to add them', async () => {
    const { json, text, exitCode } = await doctorWith(bare);

    const claude = json?.agents.find((agent) => agent.agent === 'claude');
    const codex = json?.agents.find((agent) => agent.agent === 'codex');
    expect(claude?.status).toBe('missing');
    expect(claude?.error?.message).toContain(`is not in the image ${bare}`);
    expect(claude?.error?.hint).toContain('RUN npm install -g @anthropic-ai/claude-code');
    expect(codex?.status).toBe('missing');
    expect(codex?.error?.hint).toContain('RUN npm install -g @openai/codex');
    expect(text).toContain(`in the image ${bare}`);
    expect(text).toContain('hint: Add it to the image');
    expect(exitCode).not.toBe(0);
  }, 300_000);

  it('finds a CLI the image has, with its version', async () => {
    const { json, adapters, text } = await doctorWith(withClaude);

    // Not on this machine, and not needed here: the image decides (as a race's placement does).
    const onHost = adapters.find((adapter) => adapter.id === 'claude');
    expect(onHost?.status).toBe('ready');
    expect(onHost?.warnings.join('\n')).toContain("its container's image is probed for it");

    const claude = json?.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.status).toBe('ready');
    expect(claude?.version).toContain('2.1.330');
    expect(json?.agents.find((agent) => agent.agent === 'codex')?.status).toBe('missing');
    expect(text).toMatch(/ {2}claude: ok .*2\.1\.330/);
  }, 300_000);
});
