/**
 * Whether this machine can share directories copy-on-write (share.ts), checked once per hydra
 * process: an overlay needs the agents' mount namespaces (the `pid-namespace` containment), a
 * `mount` program and a kernel that mounts overlayfs there (root, or a user namespace on Linux
 * 5.11+). The check mounts one overlay of empty temp directories the way an agent's init does.
 * Anywhere else (process-group containment, macOS, a refused mount) each worktree gets a copy:
 * `cp -a --reflink=auto` (a reflink where the file system has them: btrfs, xfs; a full copy on
 * ext4), Node's copy elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activeContainment, mountingFlags, mountProgram, SHELL } from '../process/index.js';
import type { Containment } from '../process/index.js';

export type ShareSupport = { kind: 'overlay'; mount: string } | { kind: 'copy'; reason: string };

const PROBE_TIMEOUT_MS = 5000;

/** Mounts an overlay of temp directories in a namespace like an agent's; null when it worked, else why not. */
const probeOverlay = (
  containment: Extract<Containment, { kind: 'pid-namespace' }>,
  mount: string,
): string | null => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-share-probe-'));
  try {
    for (const sub of ['lower', 'upper', 'work', 'target']) mkdirSync(path.join(dir, sub));
    const options = `lowerdir=${dir}/lower,upperdir=${dir}/upper,workdir=${dir}/work`;
    const check = spawnSync(
      containment.unshare,
      [
        ...mountingFlags(containment.flags).flags,
        '--',
        SHELL,
        '-c',
        '"$1" -t overlay hydra-share -o "$2" "$3"',
        'probe',
        mount,
        options,
        `${dir}/target`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
    );
    if (check.status === 0) return null;
    return check.stderr.trim().split('\n')[0] || check.error?.message || `exit ${String(check.status)}`;
  } finally {
    // An overlay's work/work has no permissions when made in a user namespace.
    spawnSync('chmod', ['-R', 'u+rwx', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
};

let cached: ShareSupport | null = null;

/** How shared directories are given to each worktree here (checked on first use, then cached). */
export const shareSupport = (containment: Containment = activeContainment()): ShareSupport => {
  if (cached !== null) return cached;
  if (containment.kind !== 'pid-namespace')
    return (cached = {
      kind: 'copy',
      reason: `agents run without a mount namespace (${containment.reason})`,
    });
  const mount = mountProgram();
  if (mount === null) return (cached = { kind: 'copy', reason: '`mount` (util-linux) is not installed' });
  const refused = probeOverlay(containment, mount);
  return (cached =
    refused === null
      ? { kind: 'overlay', mount }
      : { kind: 'copy', reason: `an overlay mount is refused here: ${refused}` });
};

/** One line for `hydra doctor` and the warnings. */
export const describeShareSupport = (support: ShareSupport): string =>
  support.kind === 'overlay'
    ? "overlay (copy-on-write) in each agent's mount namespace: no copy, the checkout's copy is read-only to agents"
    : `copy per worktree (cp --reflink=auto), no copy-on-write: ${support.reason}`;
