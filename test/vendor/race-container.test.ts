/**
 * hydra races the real, pinned Claude Code and Codex each in a container of its own on this
 * machine's engine (`[race] runner = "container"`), in an image the suite builds with both CLIs in
 * it (vendor-image.ts), against the fake model servers on the host; then `hydra continue` resumes
 * Claude's session in a new container from its home volume.
 *
 * The containers run on the host's network (`[container] network = "host"`): the fake servers
 * listen on 127.0.0.1 and the agents reach them at the same URLs as on the host. (The bridge works
 * too, through its gateway 172.17.0.1, but then the servers would have to listen there as well.)
 * The CLIs get their endpoints as a user's would: Claude from the shell's ANTHROPIC_* variables
 * (hydra passes them in), Codex from `-c` overrides in hydra.toml (its config.toml is in the
 * host's CODEX_HOME, which means nothing in the container).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeContainers } from '../../src/engine/container/index.js';
import { repoKey } from '../../src/engine/records/index.js';
import { CODEX_MODEL } from '../../scripts/vendor-cli.js';
import { dockerReachable } from '../support/container-image.js';
import { EDIT_CONTENT, EDIT_FILE, FINAL_TEXT } from './harness.js';
import {
  claudeWorkingDirectory,
  codexProviderArgs,
  createRaceSandbox,
  parseNdjson,
  summaryAgent,
  tomlString,
  tomlTable,
} from './race-harness.js';
import type { HydraResult, NdjsonLine, RaceSandbox, SummaryLine } from './race-harness.js';
import { IMAGE_AGENTS, vendorImage } from './vendor-image.js';

const PROMPT = 'Create hello.txt containing a short greeting.';
const FOLLOW_UP = 'Now say what you changed.';

/** The usage the fake Responses server reports (fixed per turn), as hydra must normalize it. */
const CODEX_USAGE = { inputTokens: 4400 - 2048, cacheReadTokens: 2048, outputTokens: 74 };

const explain = (result: HydraResult): string =>
  `hydra exit ${String(result.exitCode)}\n--- stderr ---\n${result.stderr}\n--- stdout (last 3000 chars) ---\n${result.stdout.slice(-3000)}`;

const summaryOf = (result: HydraResult): { lines: NdjsonLine[]; summary: SummaryLine } => {
  const lines = parseNdjson(result.stdout);
  const last = lines.at(-1);
  if (last?.type !== 'summary') throw new Error(`no summary line:\n${explain(result)}`);
  return { lines, summary: last as unknown as SummaryLine };
};

const docker = (args: string[]): string => {
  const result = spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

/** The containers (any state) and volumes the engine holds with the repository's label. */
const leftovers = (repo: string): { containers: string[]; volumes: string[] } => {
  const filter = ['--filter', `label=io.hydra.repo=${repoKey(repo)}`];
  const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');
  return {
    containers: lines(docker(['ps', '-a', '--format', '{{.Names}}', ...filter])),
    volumes: lines(docker(['volume', 'ls', '-q', ...filter])).sort(),
  };
};

/** The files on an agent's home volume (its CLI's state: HOME in the container), read in the image. */
const homeFiles = (image: string, runId: string, agent: string): string[] =>
  docker([
    'run',
    '--rm',
    '--network',
    'none',
    '-v',
    `hydra-${runId}-${agent}-home:/v:ro`,
    image,
    // The image has no find(1): node lists the volume.
    'node',
    '-e',
    "for (const f of require('fs').readdirSync('/v', { recursive: true })) console.log('/v/' + f)",
  ])
    .split('\n')
    .filter((line) => line !== '');

/** The session id of an agent's init (Claude's `system` init, Codex's `thread.started`). */
const sessionOf = (lines: readonly NdjsonLine[], agent: string): string | undefined =>
  lines
    .filter((line) => line.agent === agent)
    .map((line) => line.event as { kind?: string; stage?: string; sessionId?: string })
    .find((event) => event.kind === 'progress' && event.stage === 'init')?.sessionId;

/** The texts of a Messages API request's user turns. */
const userTurns = (json: unknown): string => JSON.stringify((json as { messages?: unknown }).messages ?? []);

describe.runIf(dockerReachable())('hydra race with the real Claude Code and Codex in containers', () => {
  let image: string;
  let sandbox: RaceSandbox;
  let config: string;
  let race: HydraResult;
  let raced: { lines: NdjsonLine[]; summary: SummaryLine };
  let afterRace: { containers: string[]; volumes: string[] };
  let claudeRequestsInRace = 0;
  let followUp: HydraResult;
  let followed: { lines: NdjsonLine[]; summary: SummaryLine };

  beforeAll(async () => {
    image = vendorImage();
    sandbox = await createRaceSandbox({ claude: 'success-edit', codex: 'success-edit' });
    config = join(sandbox.dir, 'hydra-container.toml');
    await writeFile(
      config,
      [
        '[race]',
        `agents = [${IMAGE_AGENTS.map(tomlString).join(', ')}]`,
        'runner = "container"',
        '',
        '[container]',
        `image = ${tomlString(image)}`,
        'network = "host"',
        '',
        '[agents.codex]',
        `model = ${tomlString(CODEX_MODEL)}`,
        `extra_args = [${codexProviderArgs(sandbox.servers.codex.url).map(tomlString).join(', ')}]`,
        // Its key variable is not one hydra passes from the shell (it is not a vendor's name).
        `env = ${tomlTable({ FAKE_OPENAI_API_KEY: 'sk-test' })}`,
        '',
      ].join('\n'),
    );
    race = await sandbox.hydra(['race', '--json', '--config', config, PROMPT]);
    raced = summaryOf(race);
    afterRace = leftovers(sandbox.repo);
    claudeRequestsInRace = sandbox.servers.claude.requests.length;
    followUp = await sandbox.hydra([
      'continue',
      raced.summary.runId,
      'claude',
      FOLLOW_UP,
      '--json',
      '--config',
      config,
    ]);
    followed = summaryOf(followUp);
  }, 900_000);

  afterAll(async () => {
    if (sandbox === undefined) return;
    await removeContainers('default', { repoRoot: sandbox.repo });
    expect(leftovers(sandbox.repo)).toEqual({ containers: [], volumes: [] });
    await sandbox.cleanup();
  });

  it('completes both agents, each in a container on the local engine', () => {
    expect(race.exitCode, explain(race)).toBe(0);
    expect(
      raced.summary.agents.map((entry) => [entry.agent, entry.status, entry.runner, entry.host]),
      explain(race),
    ).toEqual([
      ['claude', 'completed', 'container', 'default'],
      ['codex', 'completed', 'container', 'default'],
    ]);
    // The container is its jail: each CLI in full autonomy, starting no sandbox of its own.
    const meta = JSON.parse(
      readFileSync(join(sandbox.repo, '.hydra', 'runs', raced.summary.runId, 'meta.json'), 'utf8'),
    ) as { agents: Array<{ agent: string; command: string[] }> };
    const commandOf = (agent: string): string[] =>
      meta.agents.find((entry) => entry.agent === agent)?.command ?? [];
    expect(commandOf('claude')).toEqual(expect.arrayContaining(['--permission-mode', 'bypassPermissions']));
    expect(commandOf('codex')).toContain('--dangerously-bypass-approvals-and-sandbox');
    for (const agent of IMAGE_AGENTS) {
      const result = raced.lines.find(
        (line) => line.agent === agent && (line.event as { kind?: string }).kind === 'completed',
      );
      expect((result?.event as { result?: string } | undefined)?.result, agent).toBe(FINAL_TEXT);
    }
  });

  it('ran each CLI in its container: its session store is on its home volume, not in the user HOME', () => {
    const runId = raced.summary.runId;
    const claudeSession = sessionOf(raced.lines, 'claude');
    const codexSession = sessionOf(raced.lines, 'codex');
    expect(claudeSession).toBeDefined();
    expect(codexSession).toBeDefined();
    expect(homeFiles(image, runId, 'claude')).toContainEqual(
      expect.stringMatching(new RegExp(`^/v/\\.claude/projects/.*/${claudeSession ?? '-'}\\.jsonl$`)),
    );
    expect(homeFiles(image, runId, 'codex')).toContainEqual(
      expect.stringMatching(new RegExp(`^/v/\\.codex/sessions/.*${codexSession ?? '-'}\\.jsonl$`)),
    );
    expect(existsSync(join(sandbox.home, '.claude', 'projects'))).toBe(false);
  });

  it('committed each edit on its agent branch, made in its worktree (bind-mounted at its own path)', async () => {
    const runId = raced.summary.runId;
    for (const agent of IMAGE_AGENTS) {
      const entry = summaryAgent(raced.summary, agent);
      expect(entry.diff, agent).toEqual({ filesChanged: 1, insertions: 1, deletions: 0 });
      expect(await sandbox.git(['show', `hydra/${runId}/${agent}:${EDIT_FILE}`]), agent).toBe(
        EDIT_CONTENT.trimEnd(),
      );
    }
    // Claude wrote where its working directory was: its worktree, at the same path as on the host.
    const claudeCwd = claudeWorkingDirectory(
      sandbox.servers.claude.requests.find((request) => request.text.includes('working directory')),
    );
    expect(claudeCwd).toMatch(new RegExp(`^${sandbox.worktreeRoot}/.*/${runId}/claude$`));
  });

  it('parsed both CLIs usage from their streams, Claude with its reported cost', () => {
    const claude = summaryAgent(raced.summary, 'claude');
    expect(claude.usage.costSource).toBe('reported');
    expect(claude.usage.costUsd).toBeGreaterThan(0);
    // 1200 + 1300 uncached input tokens over the two turns the fake server answers.
    expect(claude.usage.inputTokens).toBeGreaterThanOrEqual(2500);
    expect(summaryAgent(raced.summary, 'codex').usage).toMatchObject(CODEX_USAGE);
  });

  it('removed both containers at the end and kept their home volumes for follow-ups', () => {
    const runId = raced.summary.runId;
    expect(afterRace).toEqual({
      containers: [],
      volumes: [`hydra-${runId}-claude-home`, `hydra-${runId}-codex-home`],
    });
  });

  it('resumes Claude in a new container with hydra continue: the model sees the first round', () => {
    expect(followUp.exitCode, explain(followUp)).toBe(0);
    expect(summaryAgent(followed.summary, 'claude'), explain(followUp)).toMatchObject({
      status: 'completed',
      runner: 'container',
      host: 'default',
    });
    const resumed = sandbox.servers.claude.requests
      .slice(claudeRequestsInRace)
      .filter((request) => userTurns(request.json).includes(FOLLOW_UP));
    expect(resumed.length, explain(followUp)).toBeGreaterThan(0);
    // The session came back from the home volume: the first round's prompt and tool result are in it.
    for (const request of resumed) {
      expect(userTurns(request.json)).toContain(PROMPT);
      expect(userTurns(request.json)).toContain('tool_result');
    }
    expect(sessionOf(followed.lines, 'claude')).toBe(sessionOf(raced.lines, 'claude'));
  });
});
