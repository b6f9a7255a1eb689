/**
 * Issue 21, case 18: an agent commits a private key and deletes it in a later commit. The net diff
 * hides it, but a fast-forward (or a merge commit) would put it into the user's history. The merge
 * scans every commit it would bring, refuses naming the commit and the file, and says how to go on
 * (a squash brings only the net change; `--allow-secrets`); `hydra show` lists those commits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mergeRun } from '../../../src/engine/index.js';
import { EngineError } from '../../../src/engine/errors.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { hydra } from '../../support/cli-helpers.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScript, registerScriptAgent, SCRIPT_AGENT } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void = () => undefined;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const KEY_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW';

/** Commits a key, removes it in the next commit, and changes app.txt (left for hydra's commit). */
const KEY_AND_DELETE = `printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\\n${KEY_BODY}\\n-----END OPENSSH PRIVATE KEY-----\\n' > id_deploy
git add id_deploy
git commit -q -m 'add deploy key'
git rm -q id_deploy
git commit -q -m 'remove deploy key'
echo 'line 3' >> app.txt`;

const raceAndFinish = async (body: string): Promise<string> => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  handle = raceScript(sandbox, body);
  await handle.settled;
  const runId = handle.runId;
  await handle.finish();
  handle = null;
  return runId;
};

const historyHasKey = (): boolean => git(sandbox.repo, 'log', '-p', 'main').includes(KEY_BODY);

describe('the secret scan covers every commit a merge brings (issue 21, case 18)', () => {
  it('refuses to fast-forward a key committed and deleted later, naming the commit and file; a squash merges without it', async () => {
    const runId = await raceAndFinish(KEY_AND_DELETE);
    const mainBefore = git(sandbox.repo, 'rev-parse', 'main').trim();
    const branch = `hydra/${runId}/${SCRIPT_AGENT}`;
    const keyCommit = git(
      sandbox.repo,
      'log',
      '--format=%H',
      '--diff-filter=A',
      branch,
      '--',
      'id_deploy',
    ).trim();
    expect(keyCommit).toMatch(/^[0-9a-f]{40}$/);
    // The net diff does not show it.
    expect(git(sandbox.repo, 'diff', '--name-only', `main...${branch}`).trim()).toBe('app.txt');

    const refused = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EngineError);
    const error = refused as EngineError;
    expect(error.kind).toBe('Refused');
    expect(error.message).toContain(keyCommit.slice(0, 12));
    expect(error.message).toContain('private key in id_deploy');
    expect(error.message).toContain('add deploy key');
    expect(error.hint).toContain('--squash');
    expect(error.hint).toContain('--allow-secrets');
    expect(git(sandbox.repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
    expect(historyHasKey()).toBe(false);

    // hydra show lists the commits the merge would bring, the key's marked.
    const shown = await hydra(['show', runId], { cwd: sandbox.repo, env: { ...process.env, NO_COLOR: '1' } });
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(`commit  ${keyCommit.slice(0, 7)} add deploy key  adds a secret: private key in id_deploy`),
    );
    expect(shown.stdout).toMatch(/commit {2}[0-9a-f]{7} remove deploy key\n/);
    const json = JSON.parse(
      (await hydra(['show', runId, '--json'], { cwd: sandbox.repo, env: process.env })).stdout,
    ) as {
      commits: Record<string, Array<{ commit: string; secrets: Array<{ file: string; label: string }> }>>;
    };
    expect(json.commits[SCRIPT_AGENT]?.map((item) => item.secrets)).toEqual([
      [{ file: 'id_deploy', label: 'private key' }],
      [],
      [],
    ]);

    const squashed = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT, { squash: true });
    expect(squashed.method).toBe('squash');
    expect(git(sandbox.repo, 'show', 'main:app.txt')).toContain('line 3');
    expect(historyHasKey()).toBe(false);
  });

  it('the CLI refuses with the hint, and --allow-secrets merges when the user says it is no secret', async () => {
    const runId = await raceAndFinish(KEY_AND_DELETE);
    const env = { ...process.env, NO_COLOR: '1' };
    const refused = await hydra(['merge', runId, SCRIPT_AGENT], { cwd: sandbox.repo, env });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('private key in id_deploy');
    expect(refused.stderr).toContain('--allow-secrets');
    const allowed = await hydra(['merge', runId, SCRIPT_AGENT, '--allow-secrets'], {
      cwd: sandbox.repo,
      env,
    });
    expect(allowed.exitCode).toBe(0);
    expect(historyHasKey()).toBe(true);
  });

  it('a key still in the result is refused even with --squash', async () => {
    const runId = await raceAndFinish(
      `printf -- '-----BEGIN RSA PRIVATE KEY-----\\n${KEY_BODY}\\n-----END RSA PRIVATE KEY-----\\n' > id_rsa`,
    );
    const refused = await mergeRun(sandbox.repo, runId, SCRIPT_AGENT, { squash: true }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(EngineError);
    expect((refused as EngineError).message).toContain('private key in id_rsa');
    expect(historyHasKey()).toBe(false);
  });
});
