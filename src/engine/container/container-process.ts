/**
 * An agent's CLI in a container of its own: the same Supervised handle the local supervisor gives
 * (stdout split into the same bounded lines, a stderr tail, terminate and kill, how it exited), so
 * the agent's process actor, its parser, timeouts and budgets do not know where it runs.
 *
 * The docker CLI is the child: `docker run` (local engine: the worktree, its scratch directory and
 * the repository's git directory bind-mounted at the same paths) or `docker create` + `docker cp`
 * of the base bundle + `docker start -a` (remote engine: a `work` volume, workspace.ts). Never a
 * tty, stdin only when the command reads a file there, `--init` so the CLI's children are reaped
 * and signalled. Stop is `docker stop -t <grace>` (SIGTERM, SIGKILL after the grace), kill is
 * `docker kill`; once it ended, a remote agent's work is brought back, then the container removed
 * (`docker rm -f`). The agent's `home` volume (its CLI's session store) stays for follow-ups.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BuiltCommand } from '../../adapters/types.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, startChild, TailBuffer } from '../process/index.js';
import type {
  ProcessExit,
  ProcessRegistry,
  ShareMount,
  Supervised,
  SupervisorCallbacks,
} from '../process/index.js';
import type { AgentName } from '../types.js';
import { runGit } from '../git/index.js';
import { trace } from '../../trace.js';
import { docker, dockerBinary, dockerEnv, dockerOk, hostLabel } from './docker.js';
import { containerEnv } from './env.js';
import { containerLabels, containerName, labelArgs, volumeName } from './labels.js';
import { shareVolumes } from './share-volumes.js';
import { leaveRoom } from './slots.js';
import { containerUser, createHome, userArgs } from './user.js';
import type { ContainerLaunch } from './types.js';
import { CONTAINER_HOME } from './types.js';
import { bringBackResult, bundleBranch, bundlePaths, copyScratchIn, REMOTE_ENTRY } from './workspace.js';

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

/** What a failed start says, with what to do (ProcessExit.spawnHint). */
type StartFailure = { spawnError: string; spawnHint: string };

/** `docker run`'s own exit codes: the engine refused (125), the command is not runnable (126) or not there (127). */
const startFailure = (
  launch: ContainerAgentLaunch,
  file: string,
  exitCode: number | null,
  stderr: string,
): StartFailure | null => {
  const { host, image } = launch.container;
  const said = stderr
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith("Run 'docker"))
    .slice(-2)
    .join(' ');
  if (exitCode === 125 || /^docker: Error response from daemon/m.test(stderr)) {
    if (/No such image|pull access denied|manifest unknown/i.test(stderr))
      return {
        spawnError: `the image ${image} is not on the engine at ${hostLabel(host)}`,
        spawnHint: `Build it there (\`docker build -t ${image} .\`) or pull it (\`docker pull ${image}\`), or set [container] image in hydra.toml.`,
      };
    return {
      spawnError: `the engine at ${hostLabel(host)} could not start its container: ${said}`,
      spawnHint: `Check the engine (\`docker info\`) and the image ${image}; \`hydra clean\` removes what a failed race left.`,
    };
  }
  if (exitCode === 126 || exitCode === 127)
    return {
      spawnError: `${file} is not in the image ${image} (or is not executable): ${said}`,
      spawnHint: `Add the CLI to the image (a Dockerfile with \`RUN npm install -g ...\`; \`hydra doctor\` probes the image), then race again.`,
    };
  return null;
};

/** A container's exit status: 128+N is read as signal N (a stop, a crash, the OOM killer). */
export const containerExit = (code: number | null): { exitCode: number | null; signal: string | null } => {
  if (code === null || code <= 128) return { exitCode: code, signal: null };
  const signal = Object.entries(os.constants.signals).find(([, number]) => number === code - 128)?.[0];
  return signal === undefined ? { exitCode: code, signal: null } : { exitCode: null, signal };
};

/** Where the repository's git directory is, for the bind mounts of a local engine (a linked worktree needs it). */
const gitCommonDir = async (worktree: string): Promise<string | null> => {
  try {
    const result = await runGit(worktree, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    return result.stdout.trim() || null;
  } catch {
    return null;
  }
};

const bind = (dir: string): string[] => ['-v', `${dir}:${dir}`];
const bindReadOnly = (dir: string): string[] => ['-v', `${dir}:${dir}:ro`];

/**
 * Starts the agent's container on its host. `processes` is the race's registry: the docker CLI's
 * group is killed with the agents' if hydra exits, and the watchdog is told the host, so a killed
 * hydra's containers are removed by label.
 */
export function startContainer(
  launch: ContainerAgentLaunch,
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
): Supervised {
  const { host, image, remote } = launch.container;
  const name = containerName(launch.runId, launch.agent);
  const runDir = path.dirname(launch.worktree);
  const labels = labelArgs(
    containerLabels({ runId: launch.runId, agent: launch.agent, repoRoot: launch.repoRoot }),
  );
  const homeVolume = volumeName(launch.runId, launch.agent, 'home');
  // On a local engine, a user other than root runs it as themselves (user.ts).
  const user = containerUser(remote);
  const workVolume = volumeName(launch.runId, launch.agent, 'work');
  const volumeArgs = [
    '-v',
    `${homeVolume}:${CONTAINER_HOME}`,
    ...(remote ? ['-v', `${workVolume}:${runDir}`] : []),
  ];
  // The CLI by name from the image's PATH (the host's path to it means nothing there), unless configured as a path.
  const file = launch.container.binaryPath ?? path.basename(launch.command.file);
  const graceS = Math.max(1, Math.ceil(launch.graceMs / 1000));
  const stderr = new TailBuffer(8 * 1024);
  const splitter = new LineSplitter(
    {
      line: (text) => callbacks.onLine(text),
      oversize: (bytes, head) => callbacks.onOversizeLine(bytes, head),
    },
    DEFAULT_MAX_LINE_BYTES,
  );
  let stopRequested: 'terminate' | 'kill' | null = null;
  let started = false;
  let exited = false;
  let pid: number | undefined;
  const stopContainer = (how: 'terminate' | 'kill'): void => {
    const args = how === 'terminate' ? ['stop', '-t', String(graceS), name] : ['kill', name];
    void docker(host, args, { okExitCodes: [1] }).catch(() => undefined);
  };

  const prepare = async (): Promise<{
    args: string[];
    env: Record<string, string>;
    cleanup: () => Promise<void>;
  }> => {
    processes.watchContainerHost(host);
    // A container of this agent's last round that was not removed (hydra was killed) goes first;
    // its volumes are made meanwhile (each CLI call costs a few hundred ms on a busy machine).
    await Promise.all([
      docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }),
      // The session store, kept for follow-ups (made the user's for a mapped user: user.ts).
      createHome(host, homeVolume, labels, user, image),
      ...(remote ? [dockerOk(host, ['volume', 'create', ...labels, workVolume])] : []),
    ]);
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
      name,
      ...labels,
      '--network',
      launch.container.network,
      '-w',
      launch.command.cwd,
      ...userArgs(user),
      ...(launch.command.stdinFile === undefined ? [] : ['-i']),
      ...env.args,
      ...volumeArgs,
    ];
    if (!remote) {
      const privateGit = path.join(runDir, '.git-private', launch.agent);
      // With its own repository (private-git.ts) the agent's git writes there (the worktree links to
      // it): the repository's shared git directory (hooks, config, refs, the objects its own
      // repository borrows) is mounted read-only, as in the sandbox.
      const own = existsSync(privateGit);
      const gitDir = await gitCommonDir(own ? launch.repoRoot : launch.worktree);
      const shared = await shareVolumes(launch.shares, labels, launch.container);
      const mounts = [
        ...[launch.worktree, launch.scratchDir].flatMap(bind),
        ...(gitDir === null ? [] : own ? bindReadOnly(gitDir) : bind(gitDir)),
        ...(own ? bind(privateGit) : []),
        ...shared.args,
      ];
      return {
        args: ['run', '--pull', 'never', ...common, ...mounts, image, file, ...launch.command.args],
        env: env.values,
        cleanup: shared.release,
      };
    }
    await dockerOk(
      host,
      [
        'create',
        ...common,
        image,
        '/bin/sh',
        '-c',
        REMOTE_ENTRY,
        'hydra-agent',
        file,
        ...launch.command.args,
      ],
      { env: env.values },
    );
    // The base, and the files the command reads (its scratch directory), copied in.
    const bundle = await bundleBranch(launch.repoRoot, launch.branch);
    try {
      await dockerOk(host, ['cp', bundle.file, `${name}:${bundlePaths(runDir, launch.agent).base}`]);
    } finally {
      await bundle.done();
    }
    await copyScratchIn(host, name, runDir, launch.scratchDir);
    return {
      args: ['start', '-a', ...(launch.command.stdinFile === undefined ? [] : ['-i']), name],
      env: {},
      cleanup: async () => {
        const last = launch.command.lastMessageFile;
        if (last !== undefined)
          await docker(host, ['cp', `${name}:${last}`, last], { okExitCodes: [1] }).catch(() => undefined);
        await bringBackResult({
          host,
          image,
          name: `${name}-result`,
          volumeArgs: ['-v', `${workVolume}:${runDir}`],
          labelArgs: labels,
          runDir,
          agent: launch.agent,
          worktree: launch.worktree,
          prompt: launch.prompt,
          runId: launch.runId,
        });
      },
    };
  };

  const run = async (): Promise<ProcessExit> => {
    let prepared: Awaited<ReturnType<typeof prepare>>;
    try {
      prepared = await prepare();
    } catch (error) {
      const info = error as { message?: string; hint?: string };
      return {
        exitCode: null,
        signal: null,
        stderrTail: '',
        spawnError: info.message ?? String(error),
        ...(info.hint === undefined ? {} : { spawnHint: info.hint }),
      };
    }
    if (stopRequested !== null) {
      await docker(host, ['rm', '-f', name], { okExitCodes: [1] }).catch(() => undefined);
      return { exitCode: null, signal: 'SIGTERM', stderrTail: '' };
    }
    trace(`agent ${launch.agent}: docker ${prepared.args[0] ?? ''} on ${hostLabel(host)}`);
    const child = startChild(dockerBinary(), prepared.args, {
      env: dockerEnv(host, prepared.env),
      stdin: launch.command.stdinFile === undefined ? 'ignore' : { file: launch.command.stdinFile },
      capture: false,
      detached: true,
    });
    pid = child.pid;
    started = true;
    if (pid !== undefined) processes.registerGroup(pid, { runId: launch.runId, agent: launch.agent });
    child.process.once('spawn', () => {
      if (pid !== undefined) callbacks.onSpawn(pid);
      if (stopRequested !== null) stopContainer(stopRequested);
    });
    let firstOutput = true;
    child.process.stdout?.on('data', (chunk: Buffer) => {
      // As the supervisor marks it for a local agent (the bench reads both).
      if (firstOutput) trace(`agent ${launch.agent}: first output`);
      firstOutput = false;
      splitter.push(chunk);
    });
    child.process.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const result = await child.result;
    splitter.end();
    if (pid !== undefined) processes.unregisterGroup(pid);
    trace(`agent ${launch.agent}: container ended (${result.exitCode ?? result.signal ?? '?'})`);
    const failure =
      result.spawnError !== undefined
        ? {
            spawnError: `the docker CLI could not be started: ${result.spawnError.message}`,
            spawnHint:
              'Install the docker CLI (Debian: `apt-get install docker.io`), or set HYDRA_DOCKER to its path.',
          }
        : startFailure(launch, file, result.exitCode ?? null, stderr.text());
    let broughtBack: string | null = null;
    if (failure === null) {
      try {
        await prepared.cleanup();
      } catch (error) {
        broughtBack = (error as Error).message;
      }
    }
    await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
    const tail = stderr.text() + (broughtBack === null ? '' : `\nhydra: ${broughtBack}`);
    if (failure !== null) return { exitCode: null, signal: null, stderrTail: tail, ...failure };
    return { ...containerExit(result.exitCode ?? null), stderrTail: tail };
  };

  const done = run().finally(() => {
    exited = true;
    // Its room on the host (max_agents) goes to the next agent waiting there (slots.ts).
    leaveRoom(launch);
  });
  return {
    get pid() {
      return pid;
    },
    terminate: () => {
      stopRequested ??= 'terminate';
      if (started && !exited) stopContainer('terminate');
    },
    kill: () => {
      stopRequested = 'kill';
      if (started && !exited) stopContainer('kill');
    },
    hasExited: () => exited,
    exited: done,
  };
}
