/**
 * This machine's engine reached as `ssh://` through an sshd on 127.0.0.1 (scripts/test-sshd.sh):
 * the one .ci/run started (HYDRA_TEST_SSHD_DIR), else one started here for the file and stopped
 * after it. The test's ssh is the script's wrapper (`ssh -F <its config>`: its own key and
 * known_hosts, never the user's ~/.ssh), put first on the hydra process's PATH, behind a logger
 * that writes each ssh command line to a file so a test can count the connections made.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './cli-helpers.js';

export interface SshEngine {
  /** `ssh://<user>@127.0.0.1:<port>`. */
  host: string;
  /** The directory with the wrapper `ssh` (scripts/test-sshd.sh). */
  bin: string;
  /** Stops the sshd if it was started here. */
  stop: () => void;
}

/** CI's sshd (.ci/run exports its directory). */
const CI_DIR_ENV = 'HYDRA_TEST_SSHD_DIR';

/**
 * The sshd to use, or why there is none (only: no sshd or ssh client on this machine); with
 * `sshdConfig` (more sshd_config lines) always one of its own.
 */
export function startSshEngine(sshdConfig: string[] = []): SshEngine | { skip: string } {
  const ciDir = process.env[CI_DIR_ENV];
  if (sshdConfig.length === 0 && ciDir !== undefined && existsSync(path.join(ciDir, 'address')))
    return engineIn(ciDir, () => undefined);
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'hydra-sshd-')), 'sshd');
  const started = spawnSync('bash', [path.join(ROOT, 'scripts/test-sshd.sh'), dir, ...sshdConfig], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const remove = (): void => rmSync(path.dirname(dir), { recursive: true, force: true });
  if (started.status === 2) {
    remove();
    return { skip: `no sshd here to reach the engine as ssh:// (${started.stderr.trim()})` };
  }
  if (started.status !== 0) {
    remove();
    throw new Error(`scripts/test-sshd.sh failed (exit ${started.status}): ${started.stderr}`);
  }
  return engineIn(dir, () => {
    const pid = Number(readFileSync(path.join(dir, 'sshd.pid'), 'utf8').trim());
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
    remove();
  });
}

const engineIn = (dir: string, stop: () => void): SshEngine => ({
  host: readFileSync(path.join(dir, 'address'), 'utf8').trim(),
  bin: path.join(dir, 'bin'),
  stop,
});

/**
 * An `ssh` in `bin` (first on the test's PATH) that appends its arguments to `log`, one line a
 * call, then runs the engine's wrapper.
 */
export function logSshCalls(bin: string, engine: SshEngine, log: string): void {
  const file = path.join(bin, 'ssh');
  writeFileSync(
    file,
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${path.join(engine.bin, 'ssh')}' "$@"\n`,
  );
  chmodSync(file, 0o755);
}

/** The ssh command lines `logSshCalls` saw. */
export const sshCalls = (log: string): string[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
