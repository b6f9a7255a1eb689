/**
 * The OS sandbox for the vendor suite's adapter-level runs: the real CLI inside Anthropic's
 * sandbox-runtime (`srt`, bubblewrap + socat + its proxy), as hydra runs a sandboxed agent
 * (engine/sandbox): only the repository, the run's HOME and a private temp directory writable, the
 * network only through the proxy, which allows the fake model server's loopback host and refuses
 * every other. Like hydra, the jail's NO_PROXY leaves out that loopback host (srt lists it, and
 * inside the jail there is no direct route to it), and TMPDIR is the private temp directory.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import type { BuiltCommand } from '../../src/adapters/types.js';

/**
 * What the fake model has the CLI run in the sandbox, in its worktree (the shell tool's working
 * directory): a write there, two writes outside (beside the worktree, and in the home), a script of the project's that is not executable (a
 * `Permission denied` inside the worktree) and a request to a host the proxy does not allow.
 */
export const SANDBOX_SHELL =
  'echo ok > ran.txt; echo escaped > ../outside.txt; echo escaped > "$HOME/outside-home.txt"; ' +
  'printf "echo hi\\n" > build.sh; ./build.sh; ' +
  'curl -sS --max-time 20 http://example.com; true';

/** The hosts the fake model servers listen on. */
const LOOPBACK = ['127.0.0.1', 'localhost'];

/** srt's NO_PROXY without the loopback hosts the agent reaches through the proxy. */
const NO_PROXY = ['::1', '169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'].join(',');

/** The srt CLI of the project's `@anthropic-ai/sandbox-runtime`, or null when it is not installed. */
export const srtCli = (): string | null => {
  try {
    const manifest = createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json');
    const cli = join(dirname(manifest), 'dist', 'cli.js');
    return existsSync(cli) ? cli : null;
  } catch {
    return null;
  }
};

const onPath = (name: string): boolean =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, name)));

/** Why the sandbox cannot run here (the library or its Linux tools missing), or null when it can. */
export const sandboxMissing = (): string | null => {
  if (process.platform !== 'linux')
    return `the suite's sandbox runs on Linux only (this is ${process.platform})`;
  if (srtCli() === null) return '@anthropic-ai/sandbox-runtime is not installed (npm ci)';
  const missing = ['bwrap', 'socat', 'rg'].filter((tool) => !onPath(tool));
  return missing.length === 0
    ? null
    : `missing ${missing.join(', ')} (apt-get install bubblewrap socat ripgrep)`;
};

export interface Jail {
  /** The private temp directory (TMPDIR inside). */
  tmpDir: string;
  /** The command that runs `built` inside the jail, with the variables it needs outside. */
  wrap(built: BuiltCommand): { file: string; args: string[]; env: Record<string, string> };
}

/** A jail under `root` in which only `writable` (and its own temp directory) can be written. */
export const jailFor = async (root: string, writable: readonly string[]): Promise<Jail> => {
  const cli = srtCli();
  if (cli === null) throw new Error('@anthropic-ai/sandbox-runtime is not installed');
  const tmpDir = join(root, 'sandbox-tmp');
  await mkdir(tmpDir, { recursive: true });
  const settingsPath = join(root, 'srt-settings.json');
  const settings = {
    filesystem: { denyRead: [], allowWrite: [...writable, tmpDir], denyWrite: [] },
    network: { allowedDomains: LOOPBACK, deniedDomains: [] },
  };
  await writeFile(settingsPath, `${JSON.stringify(settings, null, 2)}\n`);
  return {
    tmpDir,
    wrap: (built) => ({
      file: process.execPath,
      args: [
        cli,
        '--settings',
        settingsPath,
        '--',
        'env',
        `NO_PROXY=${NO_PROXY}`,
        `no_proxy=${NO_PROXY}`,
        `TMPDIR=${tmpDir}`,
        built.file,
        ...built.args,
      ],
      // srt points TMPDIR at this variable's directory (its default, /tmp/claude, is shared).
      env: { CLAUDE_CODE_TMPDIR: tmpDir },
    }),
  };
};
