/**
 * A container agent's `docker run` / `docker create` arguments: its name, labels, network, working
 * directory, user, variables (names only: the values go in the docker CLI's environment) and
 * volumes, and a local engine's bind mounts; and its `home` volume's creation. One place, so a
 * container created ahead (precreate.ts) is the one `docker run` would have made, and can be told
 * apart when it is not.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BuiltCommand } from '../../adapters/types.js';
import type { ShareMount } from '../process/index.js';
import type { AgentName } from '../agent-name.js';
import { repositoryCommonDir } from '../git/index.js';
import { containerEnv } from './env.js';
import { containerLabels, containerName, LABEL_KEEP, labelArgs, volumeName } from './labels.js';
import { containerUser, createHome, userArgs } from './user.js';
import type { ContainerLaunch } from './types.js';
import { CONTAINER_HOME } from './types.js';
import { bundlePaths } from './workspace.js';

/** What a container agent is started from: the parts of its launch (AgentLaunch) the runner reads. */
export interface ContainerAgentLaunch {
  runId: string;
  agent: AgentName;
  repoRoot: string;
  worktree: string;
  scratchDir: string;
  branch: string;
  prompt: string;
  graceMs: number;
  command: BuiltCommand;
  /** The plan's variables, over the command's. */
  env: Record<string, string>;
  container: ContainerLaunch;
  /** `[setup] share`: the checkout's directories, copy-on-write in the worktree (local engine: share-volumes.ts). */
  shares?: readonly ShareMount[];
}

/**
 * Where the repository's git directory is, for the bind mounts of a local engine (a linked worktree
 * needs it): asked of the user's checkout, never of the worktree, whose `.git` the agent's
 * container can rewrite between rounds to name any directory of the host (which would then be
 * mounted into its next container, and its config read by hydra's git).
 */
export const gitCommonDir = async (repoRoot: string): Promise<string | null> => {
  try {
    return await repositoryCommonDir(repoRoot);
  } catch {
    return null;
  }
};

const bind = (dir: string): string[] => ['-v', `${dir}:${dir}`];
const bindReadOnly = (dir: string): string[] => ['-v', `${dir}:${dir}:ro`];

/** The agent's labels, as `--label` arguments. */
export const agentLabelArgs = (launch: ContainerAgentLaunch): string[] =>
  labelArgs(containerLabels({ runId: launch.runId, agent: launch.agent, repoRoot: launch.repoRoot }));

/** The agent's private git directory (private-git.ts), where a local engine's agent commits. */
export const privateGitOf = (launch: ContainerAgentLaunch): string =>
  path.join(path.dirname(launch.worktree), '.git-private', launch.agent);

/**
 * The container's options (before its mounts and image) and the docker CLI's environment, as
 * `docker run` and `docker create` take them. On a local engine, a user other than root runs it as
 * themselves (user.ts).
 */
export function containerArgs(
  launch: ContainerAgentLaunch,
  homeArgs?: readonly string[],
): {
  common: string[];
  env: { values: Record<string, string>; args: string[] };
} {
  const { remote } = launch.container;
  const runDir = path.dirname(launch.worktree);
  const homeVolume = volumeName(launch.runId, launch.agent, 'home');
  const workVolume = volumeName(launch.runId, launch.agent, 'work');
  const volumeArgs = [
    ...(homeArgs ?? ['-v', `${homeVolume}:${CONTAINER_HOME}`]),
    ...(remote ? ['-v', `${workVolume}:${runDir}`] : []),
  ];
  const env = containerEnv(
    { ...launch.command.env, ...launch.env },
    launch.container.passEnv,
    remote
      ? {
          HYDRA_WORKTREE: launch.worktree,
          HYDRA_CWD: launch.command.cwd,
          HYDRA_BRANCH: launch.branch,
          HYDRA_BASE_BUNDLE: bundlePaths(runDir, launch.agent).base,
        }
      : {},
  );
  const common = [
    '--init',
    '--name',
    containerName(launch.runId, launch.agent),
    ...agentLabelArgs(launch),
    '--network',
    launch.container.network,
    '-w',
    launch.command.cwd,
    ...userArgs(containerUser(remote)),
    ...(launch.command.stdinFile === undefined ? [] : ['-i']),
    ...env.args,
    ...volumeArgs,
  ];
  return { common, env };
}

/** The CLI by name from the image's PATH (the host's path to it means nothing there), unless configured as a path. */
export const cliFile = (launch: ContainerAgentLaunch): string =>
  launch.container.binaryPath ?? path.basename(launch.command.file);

/**
 * A local engine's bind mounts, each at its own path: the worktree, its scratch directory and the
 * repository's git directory. With its own repository (private-git.ts) the agent's git writes there
 * (the worktree links to it): the shared git directory (hooks, config, refs, the objects its own
 * repository borrows) is mounted read-only, as in the sandbox.
 */
export async function localMounts(launch: ContainerAgentLaunch): Promise<string[]> {
  const privateGit = privateGitOf(launch);
  const own = existsSync(privateGit);
  const gitDir = await gitCommonDir(launch.repoRoot);
  return [
    ...bind(launch.worktree),
    ...bind(launch.scratchDir),
    ...(gitDir === null ? [] : own ? bindReadOnly(gitDir) : bind(gitDir)),
    ...(own ? bind(privateGit) : []),
  ];
}

/** A local engine's `docker run` of the agent; precreate.ts creates the same container ahead, with `create` for `run`. */
export const localRunArgs = async (
  launch: ContainerAgentLaunch,
  extraMounts: readonly string[] = [],
): Promise<string[]> => [
  'run',
  '--pull',
  'never',
  ...containerArgs(launch).common,
  ...(await localMounts(launch)),
  ...extraMounts,
  launch.container.image,
  cliFile(launch),
  ...launch.command.args,
];

/**
 * The `home` volume as a `--mount` that makes it, with its labels (as createAgentHome's `volume
 * create` does), when the container is created: one docker call less before a container created
 * ahead (precreate.ts). Null when a label's value would not survive `--mount`'s comma-separated
 * form (then the volume is made first).
 */
export function labelledHomeMount(launch: ContainerAgentLaunch): string[] | null {
  const labels = {
    ...containerLabels({ runId: launch.runId, agent: launch.agent, repoRoot: launch.repoRoot }),
    // The session store outlives a killed hydra (the watchdog leaves `keep` volumes to `hydra clean`).
    [LABEL_KEEP]: '1',
  };
  const parts = Object.entries(labels).map(([key, value]) => `volume-label=${key}=${value}`);
  if (parts.some((part) => /[,"'\s]/.test(part))) return null;
  const source = volumeName(launch.runId, launch.agent, 'home');
  return ['--mount', [`type=volume`, `source=${source}`, `target=${CONTAINER_HOME}`, ...parts].join(',')];
}

/** The agent's `home` volume (its CLI's session store, kept for follow-ups; a mapped user's: user.ts). */
export const createAgentHome = (launch: ContainerAgentLaunch): Promise<void> =>
  createHome(
    launch.container.host,
    volumeName(launch.runId, launch.agent, 'home'),
    agentLabelArgs(launch),
    containerUser(launch.container.remote),
    launch.container.image,
  );
