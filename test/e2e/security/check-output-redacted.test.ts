/**
 * Issue 21, case 17: a check's output is redacted like agent output. A failing check that dumps its
 * environment (hydra's: an Anthropic key, a GitHub token, whole for the baseline's, without them
 * for an agent's since issue 35) and a file holding a secret configured in an agent's env puts none
 * of them into summary.json, `hydra show --json`, the snapshot the dashboard renders, or the
 * baseline's record.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { detailLines } from '../../../src/ui/layout/view-lines.js';
import { createTheme } from '../../../src/ui/text/index.js';
import { hydra } from '../../support/cli-helpers.js';
import { makeSandbox, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { SCRIPT_AGENT, registerScriptAgent, writeScriptAgent } from '../../support/script-agent.js';

const ANTHROPIC = `sk-ant-api03-${'Z'.repeat(40)}`;
const GITHUB = `ghp_${'c3D4'.repeat(9)}`;
/** A configured env value with no recognisable shape. */
const CONFIGURED = 'tr0ub4dor-and-3-more-words';
/** hydra's own env: a value of no known shape under a secret-looking name. */
const PLAIN_ENV = 'plain-env-value-of-no-shape-77';

const SECRETS = [ANTHROPIC, GITHUB, CONFIGURED, PLAIN_ENV];
const ENV_KEYS = ['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'HYDRA_TEST_SERVICE_PASSWORD'] as const;

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void = () => undefined;
const saved: Record<string, string | undefined> = {};

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  for (const key of ENV_KEYS) saved[key] = process.env[key];
  process.env['ANTHROPIC_API_KEY'] = ANTHROPIC;
  process.env['GITHUB_TOKEN'] = GITHUB;
  process.env['HYDRA_TEST_SERVICE_PASSWORD'] = PLAIN_ENV;
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  for (const key of ENV_KEYS)
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  sandbox.cleanup();
});

const leaks = (text: string): string[] => SECRETS.filter((secret) => text.includes(secret));

describe('check output is redacted (issue 21, case 17)', () => {
  it('keeps every secret a failing check prints out of summary.json, show --json, the snapshot and the baseline', async () => {
    // The agent writes its configured secret into a file it commits; the check prints it and its env.
    const binary = writeScriptAgent(sandbox, 'echo "$SERVICE_API_KEY" > leaked.txt');
    handle = startRace(
      raceOptions(
        sandbox,
        [
          {
            adapterId: SCRIPT_AGENT,
            binary,
            extraArgs: [],
            env: { SERVICE_API_KEY: CONFIGURED },
            idleTimeoutMs: 20_000,
          },
        ],
        {
          checks: [
            {
              name: 'dump',
              run: 'sh -c "cat leaked.txt 2>/dev/null; env; exit 1"',
              timeoutMs: 60_000,
              gate: false,
            },
          ],
        },
      ),
    );
    const runId = handle.runId;
    await handle.settled;
    const snapshot = handle.getSnapshot();
    const summary = await handle.finish();

    const check = summary.agents[0]?.checks?.[0];
    expect(check?.status).toBe('failed');
    // The check did print the file: it became a marker. hydra's credentials were not in its
    // environment at all (issue 35: an agent's checks get none); the baseline's, which runs only
    // the base, has them all, and printed each as a marker.
    expect(check?.output).toContain('[redacted: env SERVICE_API_KEY]');
    for (const name of ENV_KEYS) expect(check?.output).not.toContain(`${name}=`);
    const baseline = summary.baseline?.checks[0]?.output ?? '';
    expect(leaks(baseline)).toEqual([]);
    for (const name of ENV_KEYS) expect(baseline).toContain(`[redacted: env ${name}]`);

    const onDisk = readFileSync(path.join(sandbox.repo, '.hydra', 'runs', runId, 'summary.json'), 'utf8');
    expect(leaks(onDisk)).toEqual([]);

    const agent = snapshot.agents[0];
    if (agent === undefined) throw new Error('no agent in the snapshot');
    expect(leaks(JSON.stringify(agent.checks))).toEqual([]);
    const theme = createTheme({ ascii: true, color: false });
    const detail = detailLines(agent, Date.now(), theme, 200, runId)
      .map((line) => line.map((segment) => segment.text).join(''))
      .join('\n');
    expect(leaks(detail)).toEqual([]);

    const shown = await hydra(['show', runId, '--json'], { cwd: sandbox.repo, env: process.env });
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain('[redacted: env');
    expect(leaks(shown.stdout)).toEqual([]);
  });
});
