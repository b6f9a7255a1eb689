/**
 * `[setup] share` (setup/share.ts) for a container on a local engine: the engine's daemon, which is
 * root, mounts each shared directory as an overlay: an anonymous volume of the `local` driver with
 * overlay options (the checkout's directory read-only below, the worktree's layer above, the same
 * `<run dir>/.share/<worktree>/<n>/{upper,work}` a local agent gets), at `<worktree>/<dir>` inside
 * the bind-mounted worktree. The volume carries the run's labels and goes with its container
 * (`--rm`, `docker rm -v`; the watchdog and `hydra clean` by label); the layer stays with the
 * worktree. A directory share.ts copies (no copy-on-write here, a path mount options cannot carry)
 * is copied into the worktree on this machine, which the bind mount shows.
 *
 * A remote engine cannot see this machine's directories: share does not apply there, and the race
 * says so (share.ts, remoteShareWarning).
 */
import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import { copyShare, overlayOptions, prepareOverlay } from '../process/index.js';
import type { ShareMount } from '../process/index.js';
import { containerUser, runAsRoot } from './user.js';
import { docker, hostLabel } from './docker.js';
import { trace } from '../../trace.js';

/** The extra arguments of a container's `docker run`, and what to do once it ended. */
export interface ShareVolumes {
  /** `--mount type=volume,...` per overlay. */
  args: string[];
  /** After the container ended: a layer's root-owned work directory cleared for a user other than root. */
  release: () => Promise<void>;
  /**
   * Why a share meant to be an overlay was copied instead (the engine refuses overlay volumes), and
   * what it cost: the agent's pane and record say it. Null when nothing was copied for that reason.
   */
  note: string | null;
}

const NONE: ShareVolumes = { args: [], release: () => Promise.resolve(), note: null };

/** One field of `--mount`'s comma-separated list, quoted (CSV), so a path's commas stay in it. */
const field = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/** `--mount` for an anonymous overlay volume on `mount.target`, labelled as the run's (`--label k=v` pairs). */
export const overlayMountArgs = (mount: ShareMount, labelArgs: readonly string[]): string[] => {
  const labels = labelArgs.filter((_, index) => index % 2 === 1);
  return [
    '--mount',
    [
      'type=volume',
      `dst=${mount.target}`,
      'volume-driver=local',
      ...labels.map((label) => `volume-label=${label}`),
      'volume-opt=type=overlay',
      'volume-opt=device=overlay',
      `volume-opt=o=${overlayOptions(mount)}`,
    ]
      .map(field)
      .join(','),
  ];
};

/**
 * The daemon mounts as root: the overlay's `work/work` is left root's, with no permissions, and
 * holds a whiteout once the agent deleted a file of the checkout. A user other than root cannot
 * remove it with the worktree, so it goes now: emptied, by the user when it is empty, else by a
 * root helper container of the image (`rm`, as any image with coreutils or busybox has).
 */
async function clearWork(host: string, image: string, mount: ShareMount, labelArgs: readonly string[]) {
  const work = path.join(mount.layer, 'work');
  const removed = await rmdir(path.join(work, 'work')).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
  if (removed) return;
  await runAsRoot(host, image, labelArgs, `${work}:${work}`, ['rm', '-rf', path.join(work, 'work')]).catch(
    () => undefined,
  );
}

/**
 * The engine's refusal of an overlay volume: a rootless Docker's local volume driver (moby
 * volume/local: `failed to mount local volume: mount overlay:...: operation not permitted`) or a
 * rootless Podman's (`mount type overlay not permitted`, `... in rootless mode`).
 */
export const OVERLAY_REFUSED =
  /failed to mount local volume[^\n]*(?:operation not permitted|permission denied)|overlay[^\n]*not permitted|overlay[^\n]*rootless/i;

/** Whether each engine mounts an overlay volume, asked once per engine and image in a process. */
const overlayVerdicts = new Map<string, Promise<boolean>>();

/**
 * Whether `engine` mounts an overlay volume: on an engine that runs rootless, one `docker run` of
 * the image with the first share's overlay, once per engine and image. Only the refusal
 * OVERLAY_REFUSED reads says no (the share is then copied into the worktree, which the bind mount
 * shows); anything else is left to the real run.
 */
const overlaysMount = (
  engine: { host: string; image: string },
  labelArgs: readonly string[],
  mount: ShareMount,
): Promise<boolean> => {
  const key = `${engine.host}\0${engine.image}`;
  const known = overlayVerdicts.get(key);
  if (known !== undefined) return known;
  const asked = rootless(engine.host).then((maybe) => (maybe ? tryOverlay(engine, labelArgs, mount) : true));
  overlayVerdicts.set(key, asked);
  return asked;
};

/** Whether the engine says it runs rootless (`docker info`'s security options, Podman's too). */
const rootless = (host: string): Promise<boolean> =>
  docker(host, ['info', '--format', '{{json .SecurityOptions}}']).then(
    (result) => /rootless/i.test(result.stdout),
    () => false,
  );

/** One `docker run` of the image with `mount`'s overlay: false only for the refusal OVERLAY_REFUSED reads. */
const tryOverlay = (
  engine: { host: string; image: string },
  labelArgs: readonly string[],
  mount: ShareMount,
): Promise<boolean> =>
  docker(engine.host, [
    'run',
    '--rm',
    '--pull',
    'never',
    '--network',
    'none',
    ...labelArgs,
    ...overlayMountArgs(mount, labelArgs),
    engine.image,
    'true',
  ]).then(
    (result) => {
      const refused = result.exitCode !== 0 && OVERLAY_REFUSED.test(result.stderr);
      if (refused)
        trace(
          `[setup] share: ${hostLabel(engine.host)} refused an overlay volume; shares are copied: ${result.stderr.trim()}`,
        );
      return !refused;
    },
    () => true,
  );

/** What the pane says when a rootless engine made hydra copy the shares: why, and what it cost. */
export const copiedNote = (copied: readonly ShareMount[], host: string, ms: number): string => {
  const names = copied.map((mount) => path.basename(mount.target)).join(', ');
  const took = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  return (
    `[setup] share: ${names} copied into this worktree (${took}), not shared copy-on-write: ` +
    `${hostLabel(host)} runs rootless and refuses overlay volumes, so every agent pays the copy ` +
    '(a rootful engine shares it; or install the dependencies in the image)'
  );
};

/**
 * Gets `shares` ready for a container of `image` on the local engine `host`: the overlays' mount
 * points and layers made (the daemon mounts them), the copies made. Returns the `--mount` arguments.
 */
export async function shareVolumes(
  shares: readonly ShareMount[] | undefined,
  labelArgs: readonly string[],
  engine: { host: string; image: string },
): Promise<ShareVolumes> {
  if (shares === undefined || shares.length === 0) return NONE;
  let overlays = shares.filter((mount) => mount.how === 'overlay');
  for (const mount of overlays) prepareOverlay(mount);
  // An engine that refuses the overlay volume (rootless Docker, Podman): each is copied instead.
  const refused =
    overlays.length > 0 && !(await overlaysMount(engine, labelArgs, overlays[0]!)) ? overlays : [];
  if (refused.length > 0) {
    shares = shares.map((mount) => (mount.how === 'overlay' ? { ...mount, how: 'copy' as const } : mount));
    overlays = [];
  }
  const started = Date.now();
  await Promise.all(shares.filter((mount) => mount.how === 'copy').map((mount) => copyShare(mount)));
  const mapped = containerUser(false) !== null;
  return {
    note: refused.length === 0 ? null : copiedNote(refused, engine.host, Date.now() - started),
    args: overlays.flatMap((mount) => overlayMountArgs(mount, labelArgs)),
    release: async () => {
      if (mapped) for (const mount of overlays) await clearWork(engine.host, engine.image, mount, labelArgs);
    },
  };
}
