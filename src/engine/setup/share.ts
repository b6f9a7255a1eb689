/**
 * `[setup] share`: ignored directories of the user's checkout (`node_modules`, `.venv`) that each
 * worktree sees copy-on-write. Each process hydra starts in a worktree (the agent, its setup
 * commands, its checks) mounts an overlay in its own mount namespace before it runs: the checkout's
 * directory read-only below, a directory of the worktree's own above (`<run dir>/.share/<worktree
 * name>/<n>/{upper,work}`), on `<worktree>/<dir>`. Nothing is copied, no process can change the
 * user's copy, and what an agent writes there stays its own, across its rounds, until its worktree
 * is removed. Where no overlay can be mounted, the directory is copied instead (share-support.ts).
 *
 * This file: which directories a configuration shares (checked against the checkout) and where
 * their layers go. Mounting and copying: share-mount.ts.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { shareLayersDir, unmountable } from '../process/index.js';
import type { ShareMount } from '../process/index.js';
import { shareSupport } from './share-support.js';
import type { ShareSupport } from './share-support.js';

export type { ShareMount };

/** A directory of the checkout each worktree shares: its name as configured and its real path. */
export interface SharedDir {
  /** The configured relative path (`node_modules`, `packages/web/node_modules`). */
  name: string;
  /** The directory in the user's checkout (its real path). */
  source: string;
}

/** The shared directories of a configuration, and what was skipped (a warning each). */
interface SharedDirs {
  dirs: SharedDir[];
  warnings: string[];
}

const NONE: SharedDirs = { dirs: [], warnings: [] };

const configError = (name: string, problem: string, hint: string): EngineError =>
  new EngineError({
    kind: 'InvalidConfig',
    message: `[setup] share = "${name}": ${problem}`,
    hint,
  });

const inside = (parent: string, child: string): boolean => {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

const git = (root: string, args: string[]): { status: number | null; stdout: string } => {
  const result = spawnSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { status: result.status, stdout: result.stdout ?? '' };
};

/** One configured directory checked against the checkout: shared, skipped (null + warning), or refused. */
const checkOne = (root: string, name: string): SharedDir | string => {
  const relative = path.normalize(name).replace(/[/\\]+$/, '');
  if (name.trim() === '' || path.isAbsolute(name) || relative === '.' || relative.startsWith('..'))
    throw configError(
      name,
      'not a directory inside the repository.',
      'Name a directory relative to the repository root, such as "node_modules" or ".venv".',
    );
  const source = path.join(root, relative);
  let stat;
  try {
    stat = lstatSync(source);
  } catch {
    return `[setup] share: ${relative} is not in ${root}, so it is not shared (install it there, or drop it from share).`;
  }
  let real = source;
  if (stat.isSymbolicLink()) {
    real = realpathSync(source);
    if (!inside(realpathSync(root), real))
      throw configError(
        name,
        `${source} is a symbolic link out of the checkout (to ${real}).`,
        'Share only directories that lie inside the repository.',
      );
  }
  if (!statSync(real).isDirectory())
    throw configError(
      name,
      `${source} is not a directory.`,
      'Share ignored directories (use [setup] copy for files).',
    );
  const tracked = git(root, ['ls-files', '-z', '--', relative]);
  if (tracked.stdout !== '')
    throw configError(
      name,
      `${relative} holds files git tracks; a share hides them from the worktree's checkout.`,
      'Share only directories git ignores (node_modules, .venv), or remove it from share.',
    );
  if (git(root, ['check-ignore', '-q', '--', relative]).status !== 0)
    throw configError(
      name,
      `${relative} is not ignored by git, so an agent's \`git add -A\` would commit it.`,
      `Add "${relative}/" to .gitignore, or remove it from share.`,
    );
  return { name: relative, source: real };
};

const resolved = new Map<string, SharedDirs>();

/**
 * The directories `names` shares in the checkout at `root`. A directory the checkout does not have
 * is skipped with a warning; one that is tracked, not ignored, not a directory, or a link out of the
 * checkout is refused (InvalidConfig). Checked once per hydra process (the first race asks, the
 * agents' launches read it again).
 */
export const sharedDirs = (root: string, names: readonly string[]): SharedDirs => {
  if (names.length === 0) return NONE;
  const key = JSON.stringify([root, names]);
  const known = resolved.get(key);
  if (known !== undefined) return known;
  const dirs: SharedDir[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    const one = checkOne(root, name);
    if (typeof one === 'string') warnings.push(one);
    else if (!dirs.some((dir) => dir.name === one.name)) dirs.push(one);
  }
  const result = { dirs, warnings };
  resolved.set(key, result);
  return result;
};

/**
 * The shared directories as seen in `worktree`: overlays where this machine mounts them
 * (shareSupport) and their paths can be mount options, copies otherwise. Without shared
 * directories the machine is not asked (its check runs processes, synchronously).
 */
export const worktreeShares = (
  dirs: readonly SharedDir[],
  worktree: string,
  support?: ShareSupport,
): ShareMount[] => {
  if (dirs.length === 0) return [];
  const mechanism = support ?? shareSupport();
  return dirs.map((dir, index) => {
    const mount: ShareMount = {
      source: dir.source,
      target: path.join(worktree, dir.name),
      layer: path.join(shareLayersDir(worktree), String(index)),
      how: 'overlay',
    };
    return mechanism.kind === 'overlay' && unmountable(mount) === null ? mount : { ...mount, how: 'copy' };
  });
};

/**
 * The same mounts with a layer of their own (`<layer>.<slot>`): checks that run at once in one
 * checkout each get theirs, as an overlay's upper directory must not serve two mounts.
 */
export const ownLayers = (mounts: readonly ShareMount[], slot: number): ShareMount[] =>
  mounts.map((mount) => ({ ...mount, layer: `${mount.layer}.${slot}` }));

/**
 * The race's warning when `dirs` are shared without copy-on-write (copied into each worktree), or
 * when one of them cannot be mounted; null when every one is an overlay.
 */
export const shareWarning = (dirs: readonly SharedDir[], support?: ShareSupport): string | null => {
  if (dirs.length === 0) return null;
  const mechanism = support ?? shareSupport();
  const names = dirs.map((dir) => dir.name).join(', ');
  if (mechanism.kind === 'copy')
    return `[setup] share: ${names} copied into each worktree, not shared copy-on-write (${mechanism.reason}).`;
  const refused = dirs.flatMap((dir) => {
    const why = unmountable({ source: dir.source, target: dir.source, layer: '', how: 'overlay' });
    return why === null ? [] : [`${dir.name} (${why})`];
  });
  return refused.length === 0 ? null : `[setup] share: copied instead of mounted: ${refused.join('; ')}.`;
};

/** What remoteShareWarnings reads of an agent's launch: where it runs, and whether it has setup commands. */
interface SharePlace {
  agent: string;
  container?: { remote: boolean; host: string } | null;
  setup?: unknown;
}

/**
 * The race's warning for agents on a remote engine, which cannot see the checkout's directories:
 * nothing is shared with them (their checks, on this machine, still get the share). Empty when none.
 */
export const remoteShareWarnings = (
  dirs: readonly SharedDir[],
  launches: readonly SharePlace[],
): string[] => {
  const remote = launches.filter((launch) => launch.container?.remote === true);
  if (dirs.length === 0 || remote.length === 0) return [];
  const names = dirs.map((dir) => dir.name).join(', ');
  const where = remote.map((launch) => `${launch.agent} on ${launch.container?.host ?? '?'}`).join(', ');
  const make = remote.every((launch) => launch.setup !== undefined && launch.setup !== null)
    ? 'their setup commands run there and must make it'
    : 'make it there with a setup command ([setup] run = "npm ci"), or race them on the local engine';
  return [
    `[setup] share: ${names} not shared with ${where}: a remote engine cannot see this machine's files; ${make}.`,
  ];
};

/** The progress line an agent's pane and record show when it starts: which mechanism shared what. */
export const describeShares = (mounts: readonly ShareMount[], worktree: string): string | null => {
  if (mounts.length === 0) return null;
  const named = (how: ShareMount['how']): string =>
    mounts
      .filter((mount) => mount.how === how)
      .map((mount) => path.relative(worktree, mount.target))
      .join(', ');
  return [
    named('overlay') === '' ? null : `${named('overlay')} by overlay (copy-on-write)`,
    named('copy') === '' ? null : `${named('copy')} by copy`,
  ]
    .filter((part) => part !== null)
    .join('; ');
};

/** The stage of that progress line. */
export const SHARED_STAGE = 'shared';
