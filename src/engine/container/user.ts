/**
 * Who an agent's container runs as. On a local engine (bind mounts) a user other than root gets
 * the container run as themselves (`--user uid:gid`), so what the agent writes in the worktree is
 * theirs and hydra can commit, merge and remove it; its `home` volume (HOME) is made theirs once,
 * when created, by a root helper container (`chown`, so the image needs it, as any image with
 * coreutils or busybox has). git inside accepts the worktree: its owner is the process's user. As
 * root nothing changes (the image's user, root in most images). A remote engine needs no mapping:
 * the files stay in its volumes and come back as commits hydra fetches as the user.
 */
import { EngineError } from '../errors.js';
import { docker, dockerOk, hostLabel } from './docker.js';
import { LABEL_KEEP, labelArgs } from './labels.js';
import { CONTAINER_HOME } from './types.js';

export interface ContainerUser {
  uid: number;
  gid: number;
}

/** The user a local engine's container runs as, or null (root, a remote engine, no POSIX ids). */
export const containerUser = (remote: boolean): ContainerUser | null => {
  if (remote || process.getuid === undefined || process.getgid === undefined) return null;
  const uid = process.getuid();
  return uid === 0 ? null : { uid, gid: process.getgid() };
};

/** `--user uid:gid`, or nothing. */
export const userArgs = (user: ContainerUser | null): string[] =>
  user === null ? [] : ['--user', `${user.uid}:${user.gid}`];

/**
 * The agent's `home` volume (created with `labels`, kept for follow-ups): for a mapped user, made
 * theirs when it is created; one that exists (a follow-up's) already is.
 */
export async function createHome(
  host: string,
  volume: string,
  labels: readonly string[],
  user: ContainerUser | null,
  image: string,
): Promise<void> {
  if (user !== null) {
    const known = await docker(host, ['volume', 'inspect', '--format', '{{.Name}}', volume]);
    if (known.exitCode === 0) return;
  }
  // The session store outlives a killed hydra (the watchdog leaves `keep` volumes to `hydra clean`).
  await dockerOk(host, ['volume', 'create', ...labels, ...labelArgs({ [LABEL_KEEP]: '1' }), volume]);
  if (user !== null) await giveHome(host, volume, labels, user, image);
}

/** A new `home` volume made `user`'s (a root helper container's `chown`), or the error that says what the image lacks. */
export async function giveHome(
  host: string,
  volume: string,
  labels: readonly string[],
  user: ContainerUser,
  image: string,
): Promise<void> {
  const chown = await runAsRoot(host, image, labels, `${volume}:${CONTAINER_HOME}`, [
    'chown',
    `${user.uid}:${user.gid}`,
    CONTAINER_HOME,
  ]);
  if (chown.exitCode !== 0) {
    throw new EngineError({
      kind: 'SpawnFailed',
      message: `The agent's home volume could not be given to user ${user.uid}:${user.gid} on ${hostLabel(host)} (\`chown\` in the image ${image}, exit ${chown.exitCode}): ${chown.stderr.trim().split('\n').slice(-2).join(' ')}`,
      hint: 'The image needs `chown` (coreutils or busybox) for a user other than root to run agents in it; or run hydra as root.',
    });
  }
}

/**
 * A short helper container of `image` as root (no network, the run's `--label` arguments, one `-v`
 * mount): `command` is its entrypoint and arguments. Gives a mapped user its home volume, clears
 * what the daemon left root's (share-volumes.ts).
 */
export const runAsRoot = (
  host: string,
  image: string,
  labels: readonly string[],
  mount: string,
  [entrypoint, ...args]: readonly [string, ...string[]],
): ReturnType<typeof docker> =>
  docker(host, [
    'run',
    '--rm',
    '--pull',
    'never',
    '--network',
    'none',
    '--user',
    '0:0',
    ...labels,
    '-v',
    mount,
    '--entrypoint',
    entrypoint,
    image,
    ...args,
  ]);
