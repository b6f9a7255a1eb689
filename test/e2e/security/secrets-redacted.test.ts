/**
 * Issue 9, case 5: secrets never land in run records or on screen. A config's env values are never
 * written (keys only, values as markers), and key-shaped tokens in agent output are replaced, where
 * the output enters hydra, by a marker that says what was removed.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../../../src/core/events.js';
import { coalesceEvents } from '../../../src/engine/agent/coalesce.js';
import {
  knownSecrets,
  recordableConfig,
  redactSecrets,
  redactValue,
} from '../../../src/engine/records/redact.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
} from '../../support/fault-invariants.js';
import { claudeStreamSaying, claudeStreamStreaming } from '../../support/security-helpers.js';

const ANTHROPIC = `sk-ant-api03-${'Q'.repeat(40)}`;
const OPENAI = `sk-proj-${'x1'.repeat(24)}`;
const GITHUB = `ghp_${'a1B2'.repeat(9)}`;
const GITHUB_PAT = `github_pat_${'11ABCDEFG0'.repeat(5)}`;
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const BEARER = `eyJhbGciOiJIUzI1NiJ9.${'payload'.repeat(4)}.signature123`;
const SLACK = `xoxb-123456789012-${'abcdef'.repeat(4)}`;
const GOOGLE = `AIza${'S'.repeat(35)}`;
/** A configured env value with no recognisable shape: removed because hydra knows it. */
const PLAIN = 'correct-horse-battery-staple-42';

const ALL = [ANTHROPIC, OPENAI, GITHUB, GITHUB_PAT, AWS, BEARER, SLACK, GOOGLE, PLAIN];

describe('redactSecrets', () => {
  it('replaces each key shape with a marker naming what it was', () => {
    const text = `a ${ANTHROPIC} b ${OPENAI} c ${GITHUB} d ${GITHUB_PAT} e ${AWS} f Authorization: Bearer ${BEARER} g ${SLACK} h ${GOOGLE}`;
    expect(redactSecrets(text)).toBe(
      'a [redacted: anthropic key] b [redacted: openai key] c [redacted: github token] d [redacted: github token] ' +
        'e [redacted: aws access key] f Authorization: Bearer [redacted: bearer token] g [redacted: slack token] ' +
        'h [redacted: google api key]',
    );
  });

  it('removes a private key block', () => {
    const key =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----';
    expect(redactSecrets(`key:\n${key}\nend`)).toBe('key:\n[redacted: private key]\nend');
  });

  it('leaves ordinary text alone: task-names, short sk- words, bearer as a word', () => {
    const text = 'run the task-runner with sk-learn; the bearer of news; ask-me-anything-about-this-project';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes a configured secret value by its env key, wherever it appears', () => {
    const known = knownSecrets({
      MY_SERVICE_TOKEN: PLAIN,
      IS_SANDBOX: '1',
      NODE_OPTIONS: '--max-old-space-size=4096',
    });
    expect(known).toEqual([{ name: 'MY_SERVICE_TOKEN', value: PLAIN }]);
    expect(redactSecrets(`token=${PLAIN};`, known)).toBe('token=[redacted: env MY_SERVICE_TOKEN];');
  });

  it('keeps env keys of a config but never its values', () => {
    expect(
      recordableConfig({
        config: {
          agents: { claude: { env: { ANTHROPIC_API_KEY: ANTHROPIC }, extra_args: [`--key=${OPENAI}`] } },
        },
      }),
    ).toEqual({
      config: {
        agents: {
          claude: {
            env: { ANTHROPIC_API_KEY: '[redacted: env value]' },
            extra_args: ['--key=[redacted: openai key]'],
          },
        },
      },
    });
  });
});

describe('redactValue', () => {
  const delta = (text: string) => ev({ kind: 'message', role: 'assistant', text, partial: true });

  it('returns an event with nothing to redact as it is, without copying it', () => {
    const events = [
      delta('Hello, world'),
      ev({ kind: 'tool_call', id: 't1', name: 'Bash', summary: '$ ls', input: { command: 'ls' } }),
    ];

    expect(redactValue(events, knownSecrets({ MY_SERVICE_TOKEN: PLAIN }))).toBe(events);
  });

  it('redacts a nested string in a copy and leaves the original alone', () => {
    const call = ev({
      kind: 'tool_call',
      id: 't1',
      name: 'Bash',
      summary: '$ env',
      input: { env: [`KEY=${AWS}`, 'x'] },
    });

    const redacted = redactValue([call], []);

    expect(redacted[0]).toEqual({ ...call, input: { env: ['KEY=[redacted: aws access key]', 'x'] } });
    expect(call.input).toEqual({ env: [`KEY=${AWS}`, 'x'] });
  });

  it('catches a key split over two streamed fragments of one batch, once they are joined', () => {
    const batch = coalesceEvents([
      delta('the key '),
      delta(ANTHROPIC.slice(0, 10)),
      delta(`${ANTHROPIC.slice(10)} ok`),
    ]);

    expect(redactValue(batch, [])).toEqual([delta('the key [redacted: anthropic key] ok')]);
  });
});

describe('a race whose agent streams secrets in partial messages', () => {
  let sandbox: Sandbox;
  let repo: string;

  beforeEach(async () => {
    sandbox = createSandbox();
    repo = await createRepo(sandbox.dir);
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 2,
        lines: claudeStreamStreaming([
          `The key is ${ANTHROPIC}`,
          ' and the token ',
          PLAIN,
          `, also ${GITHUB}.`,
        ]),
      },
    });
  });

  afterEach(() => sandbox.cleanup());

  it('redacts them in the record and in the headless output', async () => {
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(
      config,
      `[race]\nagents = ["claude"]\n[agents.claude]\nenv = { MY_SERVICE_TOKEN = "${PLAIN}" }\n`,
    );
    const result = await hydra(['race', '--json', '--config', config, 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = (parseNdjson(result.stdout)[0] as { runId: string }).runId;
    const events = readFileSync(path.join(repo, '.hydra', 'runs', runId, 'events.jsonl'), 'utf8');

    for (const [where, text] of Object.entries({ events, stdout: result.stdout })) {
      for (const secret of [ANTHROPIC, PLAIN, GITHUB])
        expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
      const partials = parseNdjson(text)
        .map((line) => line['event'] as { kind?: string; partial?: boolean; text?: string } | undefined)
        .filter((event) => event?.kind === 'message' && event.partial === true)
        .map((event) => event?.text ?? '')
        .join('');
      expect(partials, where).toContain('The key is [redacted: anthropic key]');
      expect(partials, where).toContain('[redacted: env MY_SERVICE_TOKEN]');
      expect(partials, where).toContain('[redacted: github token]');
    }
  });
});

describe('a race whose config and agent output carry secrets', () => {
  let sandbox: Sandbox;
  let repo: string;

  beforeEach(async () => {
    sandbox = createSandbox();
    repo = await createRepo(sandbox.dir);
    const said = `Found credentials: ${ALL.slice(0, 5).join(' ')} Authorization: Bearer ${BEARER} ${SLACK} ${GOOGLE} and ${PLAIN}.`;
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 2,
        lines: claudeStreamSaying(said, `Done. The key was ${ANTHROPIC} and ${PLAIN}.`),
      },
    });
  });

  afterEach(() => sandbox.cleanup());

  it('writes no secret to any record, and prints none in headless output, show or show --json', async () => {
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(
      config,
      `[race]\nagents = ["claude"]\n[agents.claude]\nenv = { ANTHROPIC_API_KEY = "${ANTHROPIC}", MY_SERVICE_TOKEN = "${PLAIN}" }\n` +
        `extra_args = ["--append-system-prompt", "use ${OPENAI}"]\n`,
    );
    const before = captureUserState(repo);
    const result = await hydra(['race', '--json', '--config', config, 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = (parseNdjson(result.stdout)[0] as { runId: string }).runId;

    const recordDir = path.join(repo, '.hydra', 'runs', runId);
    const records = readdirSync(recordDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
    const show = await hydra(['show', runId], { cwd: repo, env: sandbox.env });
    const showJson = await hydra(['show', '--json', runId], { cwd: repo, env: sandbox.env });
    for (const [where, text] of Object.entries({
      records,
      stdout: result.stdout,
      stderr: result.stderr,
      show: show.stdout,
      showJson: showJson.stdout,
    })) {
      for (const secret of ALL) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
    }

    // What was removed is said, and the env keys are still recorded.
    const meta = JSON.parse(readFileSync(path.join(recordDir, 'meta.json'), 'utf8')) as {
      config: { config: { agents: { claude: { env: Record<string, string> } } } };
    };
    expect(meta.config.config.agents.claude.env).toEqual({
      ANTHROPIC_API_KEY: '[redacted: env value]',
      MY_SERVICE_TOKEN: '[redacted: env value]',
    });
    // A configured value is named by its key, a shape by its kind.
    expect(show.stdout).toContain('[redacted: env ANTHROPIC_API_KEY]');
    expect(result.stdout).toContain('[redacted: openai key]');
    expect(show.stdout).toContain('[redacted: env MY_SERVICE_TOKEN]');
    expect(result.stdout).toContain('[redacted: github token]');
    expect(result.stdout).toContain('Bearer [redacted: bearer token]');
    // The record's own files exist (and the race really ran with the env: it completed).
    expect(statSync(path.join(recordDir, 'events.jsonl')).size).toBeGreaterThan(0);

    expectUserStateUnchanged(repo, before);
    expectNoProcessOfRun(runId);
    expectRecordsReadable(repo);
  });
});
