/**
 * The mechanics of a shared directory (src/engine/setup/share.ts) in one process's worktree: an
 * overlay the namespace's init mounts before the process starts (namespace-init.sh), or, where
 * there is no mount namespace, a copy made once per worktree before its first process.
 */
import { spawn } from 'node:child_process';
import { constants, existsSync, mkdirSync, opendirSync, rmdirSync } from 'node:fs';
import { chmod, cp, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { findExecutable } from '../sandbox/index.js';

/** One shared directory in one worktree: the checkout's `source` seen at `target`. */
export interface ShareMount {
  /** The directory in the user's checkout (its real path): read-only below the overlay. */
  source: string;
  /** `<worktree>/<name>`: the mount point (or the copy). */
  target: string;
  /** The worktree's own layer of it: the overlay's `upper/` and `work/`. */
  layer: string;
  /** An overlay in the process's mount namespace, or a copy made once. */
  how: 'overlay' | 'copy';
}

/** `mount` (util-linux), where root's PATH has it; null when missing. */
export const mountProgram = (): string | null =>
  findExecutable('mount', [
    ...(process.env.PATH ?? '').split(path.delimiter),
    '/usr/bin',
    '/bin',
    '/usr/sbin',
    '/sbin',
  ]);

/**
 * Why a mount's paths cannot go into overlay options, or null: `,` separates the options, `:` the
 * lower directories, `\` escapes, and libmount reads `"` as a quote (tried: `mount` fails). Such a
 * directory is copied instead.
 */
export const unmountable = (mount: ShareMount): string | null => {
  for (const dir of [mount.source, mount.layer]) {
    // eslint-disable-next-line no-control-regex
    const bad = /[,:\\"\u0000-\u001f]/.exec(dir);
    if (bad !== null)
      return `${dir} has a ${JSON.stringify(bad[0])}, which overlay mount options cannot carry`;
  }
  return null;
};

/** `mount -t overlay ... -o <this>`. */
export const overlayOptions = (mount: ShareMount): string =>
  `lowerdir=${mount.source},upperdir=${path.join(mount.layer, 'upper')},workdir=${path.join(mount.layer, 'work')}`;

/** The empty mount point and the layer's directories, made before the init mounts there. */
export const prepareOverlay = (mount: ShareMount): void => {
  mkdirSync(mount.target, { recursive: true });
  mkdirSync(path.join(mount.layer, 'upper'), { recursive: true, mode: 0o700 });
  mkdirSync(path.join(mount.layer, 'work'), { recursive: true, mode: 0o700 });
};

/** An existing directory with something in it (the copy is made, or an agent's files are there). */
const filled = (dir: string): boolean => {
  try {
    const listing = opendirSync(dir);
    try {
      return listing.readSync() !== null;
    } finally {
      listing.closeSync();
    }
  } catch {
    return false;
  }
};

const copying = new Map<string, Promise<void>>();

/** `cp -a --reflink=auto`: a reflink where the file system can, else a copy, attributes kept. */
const cpCommand = (source: string, destination: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn('cp', ['-a', '--reflink=auto', '--', source, destination], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`cp -a ${source}: ${stderr.trim() || `exit ${String(code)}`}`)),
    );
  });

const copyOnce = async (mount: ShareMount): Promise<void> => {
  if (filled(mount.target)) return;
  // Copied beside the layer, then renamed into place: a copy cut short is never taken for done.
  const partial = `${mount.layer}.copy`;
  await rm(partial, { recursive: true, force: true });
  mkdirSync(path.dirname(partial), { recursive: true, mode: 0o700 });
  if (process.platform === 'linux') await cpCommand(mount.source, partial);
  else
    await cp(mount.source, partial, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      // A clone (APFS, btrfs) where the file system has one, else a copy.
      mode: constants.COPYFILE_FICLONE,
    });
  if (existsSync(mount.target)) rmdirSync(mount.target);
  mkdirSync(path.dirname(mount.target), { recursive: true });
  await rename(partial, mount.target);
};

/**
 * Copies the checkout's directory to its place in the worktree, unless it is there already (an
 * earlier round's, kept as the agent left it). Two processes of one worktree starting at once wait
 * for one copy.
 */
export const copyShare = (mount: ShareMount): Promise<void> => {
  const running = copying.get(mount.target);
  if (running !== undefined) return running;
  const copy = copyOnce(mount).finally(() => copying.delete(mount.target));
  copying.set(mount.target, copy);
  return copy;
};

/** Where a worktree's layers of its shared directories go: `<its parent>/.share/<its name>`. */
export const shareLayersDir = (worktree: string): string =>
  path.join(path.dirname(worktree), SHARE_DIR, path.basename(worktree));

/** The run directory's folder of every worktree's layers. */
export const SHARE_DIR = '.share';

/**
 * Removes a worktree's layers. An overlay made in a user namespace leaves its `work/work` with no
 * permissions at all: they are given back first, so the removal can read them.
 */
export async function removeShareLayers(worktree: string): Promise<void> {
  const dir = shareLayersDir(worktree);
  const layers = await readdir(dir).catch(() => []);
  for (const layer of layers) {
    const work = path.join(dir, layer, 'work');
    for (const entry of await readdir(work).catch(() => []))
      await chmod(path.join(work, entry), 0o700).catch(() => undefined);
  }
  await rm(dir, { recursive: true, force: true });
  await rmdir(path.dirname(dir)).catch(() => undefined);
}
