/**
 * Issue 35: `[race] check_pass_env` end to end. The user's own config names one token; hydra's
 * environment holds it and another. A race's check (a script that prints both, cut in two so the
 * redaction of known values cannot hide them) sees the named one and not the other, and so does
 * the check of a `hydra continue` round (its options read from the user's config again, never
 * from the run's record). A repository's untrusted hydra.toml that names the other is ignored, with
 * the warning naming the key.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

const PASSED = 'passed-token-value-5d2c';
const KEPT = 'kept-out-token-value-a81e';

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

/** What the probe prints of a value: its first four characters, a bar, the rest. */
const split = (text: string): string => `${text.slice(0, 4)}|${text.slice(4)}`;

const PROBE = `n=\${HYDRA_E2E_NPM_TOKEN:-absent}
a=\${HYDRA_E2E_OTHER_TOKEN:-absent}
echo "passed:\${n%"\${n#????}"}|\${n#????} other:\${a%"\${a#????}"}|\${a#????}"
`;

type Summary = { agents: Array<{ agent: string; checks?: Array<{ name: string; output: string }> | null }> };
/** The probe's output as the run record keeps it (the NDJSON leaves a passing check's out). */
const probeOutput = (stdout: string): string | undefined => {
  const runId = String(parseNdjson(stdout)[0]?.['runId']);
  const summary = JSON.parse(
    readFileSync(path.join(repo, '.hydra', 'runs', runId, 'summary.json'), 'utf8'),
  ) as Summary;
  return summary.agents
    .find((agent) => agent.agent === 'claude')
    ?.checks?.find((check) => check.name === 'env')?.output;
};

describe('[race] check_pass_env through the CLI', () => {
  it("gives the race's checks and a continue round's the token the user's config names, and no other", async () => {
    writeFileSync(path.join(repo, 'env-probe.sh'), PROBE);
    // The repository's own file asks for the other token: not trusted, so ignored.
    writeFileSync(path.join(repo, 'hydra.toml'), '[race]\ncheck_pass_env = ["HYDRA_E2E_OTHER_TOKEN"]\n');
    git(repo, ['add', '.']);
    git(repo, ['commit', '-q', '-m', 'an environment probe']);
    const configDir = path.join(String(sandbox.env['XDG_CONFIG_HOME']), 'hydra');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      path.join(configDir, 'hydra.toml'),
      '[race]\nagents = ["claude"]\ncheck_pass_env = ["HYDRA_E2E_NPM_*"]\n\n[[checks]]\nname = "env"\nrun = "sh env-probe.sh"\n',
    );
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [{ path: 'first.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
      },
    });
    const env = { ...sandbox.env, HYDRA_E2E_NPM_TOKEN: PASSED, HYDRA_E2E_OTHER_TOKEN: KEPT };
    const run = (args: string[]) => hydra(args, { cwd: repo, env, timeoutMs: 90_000 });

    const raced = await run(['race', '--json', 'Add a file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    expect(raced.stderr).toContain('race.check_pass_env');
    const expected = `passed:${split(PASSED)} other:${split('absent')}`;
    expect(probeOutput(raced.stdout)).toContain(expected);

    const continued = await run(['continue', 'last', 'claude', 'Go on', '--json']);
    expect(continued.exitCode, continued.stderr).toBe(0);
    expect(probeOutput(continued.stdout)).toContain(expected);
  });
});
