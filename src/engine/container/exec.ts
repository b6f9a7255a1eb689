/**
 * One command (a setup command, a check) in a fresh container of a container agent's image: the
 * same Supervised handle spawnSupervised gives, so the time-limited runner (process/limited-run.ts),
 * its output tail, test counts and redaction do not know where it ran.
 *
 * Local engine: `docker run --rm` with the command's directory (a worktree or a checks checkout),
 * the repository's git directory and, for a Cursor setup, the user's checkout (read-only) mounted
 * at their own paths, run as hydra's user when that is not root (`--user`, user.ts), so what it
 * writes there is theirs. Remote engine (setup only): `docker create` on the agent's `work` volume, the
 * base bundle copied in, `docker start -a`; the entry clones the agent's branch where its worktree
 * would be, as the agent's own container does (workspace.ts REMOTE_ENTRY), so the agent starts in
 * what its setup made. Stop is `docker stop -t <grace>`, kill `docker kill`
 * (supervised-container.ts); the container is removed once the command ended. Each carries the run's labels, so a cancelled race, the watchdog
 * and `hydra clean` remove it.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type {
  ProcessRegistry,
  SpawnSpec,
  StartProcess,
  Supervised,
  SupervisorCallbacks,
} from '../process/index.js';
import type { AgentName } from '../agent-name.js';
import { docker, dockerOk, hostLabel } from './docker.js';
import { containerExit } from './container-process.js';
import { containerLabels, containerName, labelArgs, volumeName } from './labels.js';
import { shareVolumes } from './share-volumes.js';
import type { ContainerLaunch } from './types.js';
import { containerUser, userArgs } from './user.js';
import type { Attached } from './supervised-container.js';
import { cliFailure, supervisedContainer } from './supervised-container.js';
import { bundleBranch, bundlePaths, REMOTE_ENTRY } from './workspace.js';
import { copyWorktreeFilesIn } from './remote-checkout.js';
import { gitCommonDir } from './run-args.js';

/** Where a command runs in a container: an agent's engine and image, and whose it is (the labels). */
export interface CommandContainer {
  host: string;
  image: string;
  network: string;
  runId: string;
  /** Whose: the agent (its setup, its checks, its cross-tests) or `baseline`. */
  agent: AgentName;
  repoRoot: string;
  /**
   * A remote engine: the command runs in the agent's `work` volume, in its clone of `branch` at
   * `worktree`. Absent: a local engine, the command's directory bind-mounted at its own path.
   */
  workspace?: { worktree: string; branch: string };
  /** A remote engine's checks: their checkout is a volume (remote-checkout.ts), never a bind mount. */
  remote?: boolean;
  /** The command's directory is this volume, mounted at `at` (a checks checkout on a remote engine). */
  volume?: { name: string; at: string };
}

/** What a container agent's launch (AgentLaunch) says of where its setup and checks run. */
interface AgentPlace {
  runId: string;
  agent: AgentName;
  repoRoot: string;
  worktree: string;
  branch: string;
  container?: ContainerLaunch | null;
}

const commandContainer = (launch: AgentPlace, container: ContainerLaunch, agent: AgentName) => ({
  host: container.host,
  image: container.image,
  network: container.network,
  runId: launch.runId,
  agent,
  repoRoot: launch.repoRoot,
});

/**
 * Where a container agent's setup commands run: in its image, in its worktree (local engine) or
 * in its volume's clone (remote engine). Null: a local agent's, on this machine.
 */
export const setupContainer = (launch: AgentPlace): CommandContainer | null => {
  const { container } = launch;
  if (!container) return null;
  return {
    ...commandContainer(launch, container, launch.agent),
    ...(container.remote ? { workspace: { worktree: launch.worktree, branch: launch.branch } } : {}),
  };
};

/**
 * Where a container agent's checks run (and its checks checkout's setup, and cross-tests on its
 * result): in its image on its engine; the clean checkout bind-mounted on a local engine, made in a
 * volume of its own on a remote one (remote-checkout.ts). Null: on this machine, for a local agent.
 */
export const checksContainer = (
  launch: AgentPlace,
  agent: AgentName = launch.agent,
): CommandContainer | null =>
  launch.container
    ? {
        ...commandContainer(launch, launch.container, agent),
        ...(launch.container.remote ? { remote: true } : {}),
      }
    : null;

/**
 * Where the baseline's checks (and cross-tests on the base) run: where the agents' checks run, so
 * the comparison is fair. In the image when every agent's checks run in it; else on this machine.
 */
export const baselineContainer = (
  launches: readonly AgentPlace[],
  agent: AgentName,
): CommandContainer | null => {
  const first = launches[0];
  if (first === undefined || !launches.every((launch) => checksContainer(launch) !== null)) return null;
  return checksContainer(first, agent);
};

/** Never passed in: they name this machine's paths (env.ts does the same for the agent). */
const HOST_ONLY = new Set(['PATH', 'HOME', 'PWD', 'TMPDIR', 'SHELL', 'USER', 'LOGNAME']);

/** `docker run`'s own failures (the engine refused, the image is missing): what it says, with what to do. */
const engineFailure = (
  target: CommandContainer,
  exitCode: number | null,
  stderr: string,
): { spawnError: string; spawnHint: string } | null => {
  if (exitCode !== 125 && !/^docker: Error response from daemon/m.test(stderr)) return null;
  const said = stderr.trim().split('\n').slice(-2).join(' ');
  if (/No such image|pull access denied|manifest unknown/i.test(stderr))
    return {
      spawnError: `the image ${target.image} is not on the engine at ${hostLabel(target.host)}`,
      spawnHint: `Build it there (\`docker build -t ${target.image} .\`) or pull it, or set [container] image in hydra.toml.`,
    };
  return {
    spawnError: `the engine at ${hostLabel(target.host)} could not run it in ${target.image}: ${said}`,
    spawnHint: `Check the engine (\`docker info\`) and that the image ${target.image} has the command on its PATH.`,
  };
};

/** Starts `spec` in a fresh container of `target`'s image, as spawnSupervised would on this machine. */
function startInContainer(
  target: CommandContainer,
  spec: SpawnSpec,
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
): Supervised {
  const { host } = target;
  // One per command: concurrent checks of one agent never share a name.
  const name = containerName(target.runId, `${spec.agent}-${randomBytes(3).toString('hex')}`);
  const labels = labelArgs(
    containerLabels({ runId: target.runId, agent: target.agent, repoRoot: target.repoRoot }),
  );
  /** The CLI's arguments for the attached run, the values of the variables it passes in, what to do once it ended. */
  const prepare = async (): Promise<Attached & { release?: () => Promise<void> }> => {
    processes.watchContainerHost(host);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(spec.env)) if (!HOST_ONLY.has(key)) env[key] = value;
    const remote = target.workspace;
    if (remote !== undefined)
      Object.assign(env, {
        HYDRA_WORKTREE: remote.worktree,
        HYDRA_CWD: spec.cwd,
        HYDRA_BRANCH: remote.branch,
        HYDRA_BASE_BUNDLE: bundlePaths(path.dirname(remote.worktree), target.agent).base,
      });
    const common = [
      '--init',
      '--name',
      name,
      ...labels,
      '--network',
      target.network,
      '-w',
      spec.cwd,
      // On a local engine, a user other than root runs it as themselves, as the agent (user.ts).
      ...userArgs(containerUser(remote !== undefined)),
      ...Object.keys(env).flatMap((key) => ['-e', key]),
    ];
    if (target.volume !== undefined)
      return {
        args: [
          'run',
          '--rm',
          '--pull',
          'never',
          ...common,
          '-v',
          `${target.volume.name}:${target.volume.at}`,
          target.image,
          spec.file,
          ...spec.args,
        ],
        env,
      };
    if (remote === undefined && target.remote === true)
      throw new Error(
        `no bind mount on the remote engine at ${hostLabel(host)}: ${spec.cwd} is on this machine`,
      );
    if (remote === undefined) {
      // The repository's, never what the checkout's `.git` (a check can rewrite it) names.
      const gitDir = await gitCommonDir(target.repoRoot);
      const root = env['ROOT_WORKTREE_PATH'];
      const shared = await shareVolumes(spec.shares, labels, target);
      const mounts = [
        ...[spec.cwd, ...(gitDir === null ? [] : [gitDir])].flatMap((dir) => ['-v', `${dir}:${dir}`]),
        ...(root === undefined ? [] : ['-v', `${root}:${root}:ro`]),
        ...shared.args,
      ];
      return {
        args: ['run', '--rm', '--pull', 'never', ...common, ...mounts, target.image, spec.file, ...spec.args],
        env,
        release: shared.release,
      };
    }
    const runDir = path.dirname(remote.worktree);
    const workVolume = volumeName(target.runId, target.agent, 'work');
    const bundle = await bundleBranch(target.repoRoot, remote.branch);
    try {
      await dockerOk(host, ['volume', 'create', ...labels, workVolume]);
      await dockerOk(
        host,
        [
          'create',
          '--rm',
          ...common,
          '-v',
          `${workVolume}:${runDir}`,
          target.image,
          '/bin/sh',
          '-c',
          REMOTE_ENTRY,
          'hydra-command',
          spec.file,
          ...spec.args,
        ],
        { env },
      );
      await dockerOk(host, ['cp', bundle.file, `${name}:${bundlePaths(runDir, target.agent).base}`]);
      await copyWorktreeFilesIn(host, name, remote.worktree);
    } finally {
      await bundle.done();
    }
    return { args: ['start', '-a', name], env: {} };
  };

  return supervisedContainer({
    host,
    name,
    graceMs: spec.graceMs ?? 5000,
    owner: { runId: target.runId, agent: spec.agent },
    callbacks,
    processes,
    ...(spec.maxLineBytes === undefined ? {} : { maxLineBytes: spec.maxLineBytes }),
    ...(spec.stderrTailBytes === undefined ? {} : { stderrTailBytes: spec.stderrTailBytes }),
    prepare: () =>
      prepare().catch(async (error: unknown) => {
        await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
        throw error;
      }),
    startTrace: (prepared) =>
      `${spec.agent}: docker ${prepared.args[0] ?? ''} in ${target.image} on ${hostLabel(host)}`,
    finish: async ({ result, prepared, stderr, stopped }) => {
      // `--rm` removes it once it ended; one that was stopped, or whose CLI was killed, is removed
      // here, with its anonymous volumes (share-volumes.ts).
      if (stopped || result.exitCode === undefined)
        await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
      await prepared.release?.();
      const cli = cliFailure(result);
      if (cli !== null) return { exitCode: null, signal: null, stderrTail: '', ...cli };
      const failure = engineFailure(target, result.exitCode ?? null, stderr);
      if (failure !== null) return { exitCode: null, signal: null, stderrTail: stderr, ...failure };
      return { ...containerExit(result.exitCode ?? null), stderrTail: stderr };
    },
  });
}

/** runLimited's starter for `target`: in its container, or (null) spawnSupervised on this machine. */
export const containerStarter = (target: CommandContainer | null | undefined): StartProcess | undefined =>
  target === null || target === undefined
    ? undefined
    : (spec, callbacks, processes) => startInContainer(target, spec, callbacks, processes);
