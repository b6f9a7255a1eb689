/**
 * An agent's CLI in a container of its own: the same Supervised handle the local supervisor gives
 * (supervised-container.ts: stdout split into the same bounded lines, a stderr tail, terminate and
 * kill, how it exited), so the agent's process actor, its parser, timeouts and budgets do not know
 * where it runs.
 *
 * The docker CLI is the child: on a local engine `docker start -a` of the container created while
 * its worktree was made (precreate.ts), else `docker run` (the worktree, its scratch directory and
 * the repository's git directory bind-mounted at the same paths: run-args.ts); on a remote engine
 * `docker create` + `docker cp` of the base bundle + `docker start -a` (a `work` volume,
 * workspace.ts). Never a tty, stdin only when the command reads a file there, `--init` so the
 * CLI's children are reaped and signalled. Stop is `docker stop -t <grace>` (SIGTERM, SIGKILL
 * after the grace), kill is `docker kill`; once it ended, a remote agent's work is brought back,
 * then the container is removed (`docker rm -f`, while the agent is settled: removal.ts). The
 * agent's `home` volume (its CLI's session store) stays for follow-ups.
 */
import os from 'node:os';
import path from 'node:path';
import type { ProcessRegistry, Supervised, SupervisorCallbacks } from '../process/index.js';
import { trace } from '../../trace.js';
import { docker, dockerOk, hostLabel } from './docker.js';
import { containerName, volumeName } from './labels.js';
import { startExitCode, takePrecreated } from './precreate.js';
import { removalOf, removeContainer } from './removal.js';
import { shareVolumes } from './share-volumes.js';
import { leaveRoom } from './slots.js';
import type { ContainerAgentLaunch } from './run-args.js';
import { agentLabelArgs, cliFile, containerArgs, createAgentHome, localRunArgs } from './run-args.js';
import type { Attached } from './supervised-container.js';
import { cliFailure, supervisedContainer } from './supervised-container.js';
import { bringBackResult, bundleBranch, bundlePaths, copyScratchIn, REMOTE_ENTRY } from './workspace.js';
import { copyWorktreeFilesIn } from './remote-checkout.js';

export type { ContainerAgentLaunch } from './run-args.js';

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
  const labels = agentLabelArgs(launch);
  const workVolume = volumeName(launch.runId, launch.agent, 'work');
  const file = cliFile(launch);
  const prepare = async (): Promise<Attached & { cleanup: () => Promise<void>; precreated?: boolean }> => {
    processes.watchContainerHost(host);
    // This agent's last container (an earlier round in this process) is gone first.
    await removalOf(host, name);
    const { common, env } = containerArgs(launch);
    // `[setup] share` on a local engine: overlay volumes the daemon mounts (share-volumes.ts). A
    // container created ahead has none, so one with shares is not taken (its fingerprint differs).
    const shared = remote ? null : await shareVolumes(launch.shares, labels, launch.container);
    if (shared?.note != null) callbacks.onPlaceNote?.(shared.note);
    const release = shared?.release ?? (async () => undefined);
    const localRun = remote ? [] : await localRunArgs(launch, shared?.args ?? []);
    // Created ahead while its worktree was made (precreate.ts): started as it is, if it is this run.
    const ahead = remote ? null : await takePrecreated(launch, localRun, env.values);
    if (ahead !== null) return { args: ahead, env: {}, cleanup: release, precreated: true };
    // A container of this agent's last round that was not removed (hydra was killed) goes first;
    // its volumes are made meanwhile (each CLI call costs a few hundred ms on a busy machine).
    await Promise.all([
      docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }),
      // The session store, kept for follow-ups (made the user's for a mapped user: user.ts).
      createAgentHome(launch),
      ...(remote ? [dockerOk(host, ['volume', 'create', ...labels, workVolume])] : []),
    ]);
    if (!remote) return { args: localRun, env: env.values, cleanup: release };
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
      await copyWorktreeFilesIn(host, name, launch.worktree);
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
          root: launch.repoRoot,
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

  return supervisedContainer({
    host,
    name,
    graceMs: launch.graceMs,
    owner: { runId: launch.runId, agent: launch.agent },
    callbacks,
    processes,
    ...(launch.command.stdinFile === undefined ? {} : { stdinFile: launch.command.stdinFile }),
    prepare,
    startTrace: (prepared) => `agent ${launch.agent}: docker ${prepared.args[0] ?? ''} on ${hostLabel(host)}`,
    // As the supervisor marks it for a local agent (the bench reads both).
    firstOutputTrace: `agent ${launch.agent}: first output`,
    finish: async ({ result, prepared, stderr }) => {
      trace(`agent ${launch.agent}: container ended (${result.exitCode ?? result.signal ?? '?'})`);
      const failure =
        cliFailure(result) ??
        startFailure(
          launch,
          file,
          prepared.precreated === true
            ? startExitCode(result.exitCode ?? null, stderr)
            : (result.exitCode ?? null),
          stderr,
        );
      let broughtBack: string | null = null;
      if (failure === null) {
        try {
          await prepared.cleanup();
        } catch (error) {
          broughtBack = (error as Error).message;
        }
      }
      // Removed while the agent is settled (the race waits for it before it ends: removal.ts).
      removeContainer(host, name, processes, { runId: launch.runId, agent: launch.agent });
      const tail = stderr + (broughtBack === null ? '' : `\nhydra: ${broughtBack}`);
      if (failure !== null) return { exitCode: null, signal: null, stderrTail: tail, ...failure };
      return { ...containerExit(result.exitCode ?? null), stderrTail: tail };
    },
    // Its room on the host (max_agents) goes to the next agent waiting there (slots.ts).
    onExited: () => leaveRoom(launch),
  });
}
