/**
 * Issue 9, case 8: merges honour the user's signing configuration. `git commit-tree` (how hydra
 * makes merge and squash commits) never reads `commit.gpgsign`, so hydra asks for the signature
 * itself; with a real key (ssh, and gpg in a temporary GNUPGHOME) the commit on the user's branch is
 * signed and verifies. hydra's own result commits on `hydra/<run>/*` stay unsigned: they are made
 * unattended, while agents are still running (a passphrase prompt per agent), and signing them
 * would vouch for unreviewed agent output with the user's key; the signed merge is the user's act.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { captureUserState, expectUserStateUnchanged } from '../../support/fault-invariants.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
const savedGnupgHome = process.env['GNUPGHOME'];

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  git(sandbox.repo, 'config', 'user.name', 'Signing User');
  git(sandbox.repo, 'config', 'user.email', 'signer@example.com');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  if (savedGnupgHome === undefined) delete process.env['GNUPGHOME'];
  else process.env['GNUPGHOME'] = savedGnupgHome;
  const gnupg = path.join(sandbox.dir, 'gnupg');
  try {
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], {
      env: { ...process.env, GNUPGHOME: gnupg },
      stdio: 'ignore',
    });
  } catch {
    // no agent was started
  }
  sandbox.cleanup();
});

/** An ssh signing key, set up as the user's: gpg.format ssh, user.signingkey, commit.gpgsign. */
function useSshSigning(): void {
  const key = path.join(sandbox.dir, 'id_signing');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'signer@example.com', '-f', key]);
  const allowed = path.join(sandbox.dir, 'allowed_signers');
  writeFileSync(allowed, `signer@example.com ${execFileSync('cat', [`${key}.pub`], { encoding: 'utf8' })}`);
  git(sandbox.repo, 'config', 'gpg.format', 'ssh');
  git(sandbox.repo, 'config', 'user.signingkey', `${key}.pub`);
  git(sandbox.repo, 'config', 'gpg.ssh.allowedSignersFile', allowed);
  git(sandbox.repo, 'config', 'commit.gpgsign', 'true');
}

/** A gpg key without a passphrase in a temporary GNUPGHOME, set up as the user's. */
function useGpgSigning(): void {
  const home = path.join(sandbox.dir, 'gnupg');
  mkdirSync(home, { mode: 0o700 });
  process.env['GNUPGHOME'] = home;
  execFileSync(
    'gpg',
    [
      '--batch',
      '--passphrase',
      '',
      '--quick-gen-key',
      'Signing User <signer@example.com>',
      'ed25519',
      'sign',
      'never',
    ],
    { stdio: 'ignore', env: { ...process.env, GNUPGHOME: home } },
  );
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(
    execFileSync('gpg', ['--batch', '--with-colons', '--list-secret-keys'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GNUPGHOME: home },
    }),
  )?.[1];
  expect(fingerprint).toBeDefined();
  git(sandbox.repo, 'config', 'user.signingkey', fingerprint!);
  git(sandbox.repo, 'config', 'commit.gpgsign', 'true');
}

async function raceOneFile(): Promise<string> {
  handle = raceScript(sandbox, 'echo "agent work" > work.txt');
  const summary = await handle.settled;
  expect(summary.agents[0]?.status).toBe('completed');
  return `hydra/${handle.runId}/${SCRIPT_AGENT}`;
}

const signatureOf = (commit: string): string =>
  /^gpgsig (.*)$/m.exec(git(sandbox.repo, 'cat-file', 'commit', commit))?.[1] ?? '';

describe('merging when the user signs their commits', () => {
  it.each([
    ['ssh', useSshSigning, 'BEGIN SSH SIGNATURE'],
    ['gpg', useGpgSigning, 'BEGIN PGP SIGNATURE'],
  ] as const)(
    '%s: the merge commit is signed and verifies (never a fast-forward)',
    async (_name, setUp, marker) => {
      setUp();
      const branch = await raceOneFile();
      const result = await handle!.merge(SCRIPT_AGENT);
      expect(result.method).toBe('merge-commit');
      expect(git(sandbox.repo, 'rev-parse', 'main').trim()).toBe(result.commit);
      expect(signatureOf(result.commit)).toContain(marker);
      expect(() => git(sandbox.repo, 'verify-commit', result.commit)).not.toThrow();
      expect(git(sandbox.repo, 'log', '-1', '--format=%an', result.commit).trim()).toBe('Signing User');
      expect(git(sandbox.repo, 'show', 'main:work.txt')).toBe('agent work\n');
      // hydra's own result commit on its branch is hydra's, unsigned.
      expect(signatureOf(`${result.commit}^2`)).toBe('');
      expect(git(sandbox.repo, 'log', '-1', '--format=%an', `${result.commit}^2`).trim()).toBe('hydra');
      expect(branch).toMatch(/^hydra\//);
    },
  );

  it('a squash merge is signed too', async () => {
    useSshSigning();
    await raceOneFile();
    const result = await handle!.merge(SCRIPT_AGENT, { squash: true });
    expect(result.method).toBe('squash');
    expect(signatureOf(result.commit)).toContain('BEGIN SSH SIGNATURE');
    expect(() => git(sandbox.repo, 'verify-commit', result.commit)).not.toThrow();
  });

  it('when signing fails, the merge is refused with the reason and nothing changes', async () => {
    useSshSigning();
    git(sandbox.repo, 'config', 'user.signingkey', path.join(sandbox.dir, 'no-such-key.pub'));
    await raceOneFile();
    const before = captureUserState(sandbox.repo);
    await expect(handle!.merge(SCRIPT_AGENT)).rejects.toThrow(
      /asks for signed commits .*signing the merge commit failed/,
    );
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('without commit.gpgsign the merge stays a fast-forward, unsigned', async () => {
    await raceOneFile();
    const result = await handle!.merge(SCRIPT_AGENT);
    expect(result.method).toBe('fast-forward');
    expect(signatureOf(result.commit)).toBe('');
  });
});
