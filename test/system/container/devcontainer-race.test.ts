/**
 * `[container] devcontainer = true` end to end through the real CLI (dist/), on this machine's
 * engine: the race builds the repository's dev container (a Dockerfile `FROM` the tests' own image,
 * which holds the fake agents; no registry is reachable) and races an agent in it; a second race
 * finds the image built and does not build again; a broken Dockerfile stops the race before any
 * agent starts, naming the file, the log and the fix. The dev container CLI is the devDependency
 * (node_modules/.bin), as a user's global install would be on PATH.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { git, hydra, installFakes, parseNdjson, ROOT } from '../../support/cli-helpers.js';
import { repoKey } from '../../../src/engine/records/index.js';
import {
  leftovers,
  removeDevcontainerImages,
  useContainerRepo,
  writeContainerConfig,
} from '../../support/container-helpers.js';
import { dockerSync } from '../../support/docker-cli.js';

let image = '';
let sandbox: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));

beforeEach(() => {
  // The dev container CLI and the node it runs on, after the fakes.
  env = {
    ...sandbox.env,
    PATH: `${sandbox.env['PATH'] ?? ''}:${path.join(ROOT, 'node_modules/.bin')}:${path.dirname(process.execPath)}`,
  };
});

afterEach(() => removeDevcontainerImages(repo));

/** The repository's dev container, committed (the race wants a clean checkout). */
function commitDevcontainer(dockerfile: string): void {
  mkdirSync(path.join(repo, '.devcontainer'));
  writeFileSync(
    path.join(repo, '.devcontainer', 'devcontainer.json'),
    '{\n  // built by hydra for the agents\n  "build": { "dockerfile": "Dockerfile" },\n}\n',
  );
  writeFileSync(path.join(repo, '.devcontainer', 'Dockerfile'), dockerfile);
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'dev container']);
}

/** A config racing claude in containers of the dev container's image. */
async function setUp(): Promise<string> {
  const scenarios = {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'dev.txt', content: 'dev\n' }] },
  };
  await installFakes(sandbox.bin, scenarios);
  const file = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), { image, scenarios });
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^image = .*$/m, 'devcontainer = true'));
  return file;
}

const race = (config: string) =>
  hydra(['race', '--json', '--config', config, 'Add a file'], { cwd: repo, env, timeoutMs: 400_000 });

type Line = Record<string, unknown> & {
  event?: { kind: string; stage?: string; detail?: string };
  error?: { kind: string; message: string; hint: string };
  agents?: Array<Record<string, unknown>>;
};

const linesOf = (stdout: string): Line[] => parseNdjson(stdout) as Line[];
const imageEvents = (lines: Line[]): string[] =>
  lines.flatMap((line) =>
    line['type'] === 'agent_event' && line.event?.kind === 'progress' && line.event.stage === 'image'
      ? [line.event.detail ?? '']
      : [],
  );
const runLog = (runId: string): string => path.join(repo, '.hydra', 'runs', runId, 'devcontainer-build.log');

/** The images of the containers with this repository's label, seen while a race runs. */
function watchImages(): { stop: () => Set<string> } {
  const seen = new Set<string>();
  const timer = setInterval(() => {
    const result = dockerSync(
      ['ps', '-a', '--filter', `label=io.hydra.repo=${repoKey(repo)}`, '--format', '{{.Image}}'],
      { timeoutMs: 20_000 },
    );
    for (const line of (result.stdout ?? '').split('\n')) if (line.trim() !== '') seen.add(line.trim());
  }, 150);
  return {
    stop: () => {
      clearInterval(timer);
      return seen;
    },
  };
}

describe.runIf(enabled)('a dev container as the agents’ image', { timeout: 900_000 }, () => {
  it('builds the trusted dev container, races the agent in it, and does not build it again', async () => {
    commitDevcontainer(`FROM ${image}\nLABEL io.hydra.test=devcontainer-race\n`);
    const config = await setUp();

    const trusted = await hydra(['trust'], { cwd: repo, env });
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('trusted .devcontainer/devcontainer.json');

    const images = watchImages();
    const first = await race(config);
    const used = images.stop();
    expect(first.exitCode, first.stderr).toBe(0);
    const firstLines = linesOf(first.stdout);
    const runId = String(firstLines[0]?.['runId']);
    expect(
      firstLines.at(-1)?.agents?.map((agent) => [agent['agent'], agent['status'], agent['runner']]),
    ).toEqual([['claude', 'completed', 'container']]);
    const built = imageEvents(firstLines);
    expect(built[0]).toMatch(
      /^building the dev container image hydra-devcontainer-[a-z0-9-]+:[0-9a-f]{12} from \.devcontainer\/devcontainer\.json on .*\(log: \.hydra\/runs\/.+\/devcontainer-build\.log\)$/,
    );
    expect(built[1]).toMatch(/^built the dev container image hydra-devcontainer-/);
    const name = /(hydra-devcontainer-\S+:[0-9a-f]{12})/.exec(built[0] ?? '')?.[1] ?? '';
    // The agent ran in the image built from the dev container.
    expect([...used]).toEqual([name]);
    expect(readFileSync(runLog(runId), 'utf8')).toContain(`Successfully tagged ${name}`);
    expect(git(repo, ['ls-tree', '-r', '--name-only', `hydra/${runId}/claude`]).split('\n')).toContain(
      'dev.txt',
    );
    const created = dockerSync(['image', 'inspect', '--format', '{{.Created}}', name]).stdout;

    const second = await race(config);
    expect(second.exitCode, second.stderr).toBe(0);
    const secondLines = linesOf(second.stdout);
    expect(imageEvents(secondLines)).toEqual([
      `dev container image ${name} (.devcontainer/devcontainer.json unchanged since it was built)`,
    ]);
    expect(existsSync(runLog(String(secondLines[0]?.['runId'])))).toBe(false);
    expect(dockerSync(['image', 'inspect', '--format', '{{.Created}}', name]).stdout).toBe(created);
  });

  it('builds only a trusted dev container; a broken Dockerfile stops the race before any agent starts, naming the file, the log and the fix', async () => {
    commitDevcontainer(`FRM ${image}\n`);
    const config = await setUp();
    // Not trusted yet: building would run the repository's Dockerfile.
    const refused = await race(config);
    expect(refused.exitCode).not.toBe(0);
    expect(linesOf(refused.stdout).at(-1)?.error).toMatchObject({
      kind: 'Refused',
      message: expect.stringContaining('.devcontainer/devcontainer.json is not trusted'),
      hint: expect.stringContaining('hydra trust'),
    });

    expect((await hydra(['trust'], { cwd: repo, env })).exitCode).toBe(0);

    const result = await race(config);

    expect(result.exitCode).not.toBe(0);
    const summary = linesOf(result.stdout).at(-1);
    expect(summary?.error).toMatchObject({
      kind: 'SpawnFailed',
      message: expect.stringMatching(
        /^Building the dev container image from \.devcontainer\/devcontainer\.json failed: .*FROM.* \(the whole build: \.hydra\/devcontainer-build\.log\)$/,
      ),
      hint: expect.stringContaining(
        'devcontainer build --workspace-folder . --config .devcontainer/devcontainer.json',
      ),
    });
    expect(summary?.agents?.map((agent) => agent['status'])).toEqual(['failed']);
    expect(readFileSync(path.join(repo, '.hydra', 'devcontainer-build.log'), 'utf8')).toContain(
      'Dockerfile contains no FROM instructions',
    );
    expect(leftovers(repo).containers).toEqual([]);
  });
});
