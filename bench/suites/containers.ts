/**
 * Issue 25: a two-agent race with both agents in containers on the local engine against the same
 * race run locally (`hydra race --json`, alternating so a shared machine's drift hits both), and
 * each agent's start time: with HYDRA_TRACE=1, from `agent <name>: spawning` (local), or
 * `agent <name>: docker run` / `docker start` / `docker attach` (container; `attach` to the
 * container started while its worktree was made, `start` of one created then) to the agent's
 * `first output`, the runner's own marks, and from hydra's
 * start to that first output (what the container's creation ahead still delays). With
 * HYDRA_BENCH_TRACES=<file>, every race's stderr (its trace) is appended there.
 * Beside them `docker run --rm --network none <image> true`, the engine's floor for a container.
 * Then the same container race on the same engine reached as a remote one, which gets no bind
 * mount (a bundle through a volume): over `tcp://` (a proxy in this process to the engine's
 * socket) and over `ssh://` (an sshd on 127.0.0.1 started by scripts/test-sshd.sh, its own keys),
 * with hydra's one SSH connection for the race and with one per docker call as the docker CLI makes
 * them (HYDRA_SSH_REUSE=0). Without sshd those rows say why and are left out.
 *
 * The image is built as the container tests build theirs (test/support/container-image.ts: files
 * from this machine, `docker import`), duplicated here in small because the tests' builder finds
 * its fault agent beside its own source, which the bench's bundle moves: /bin/sh, `mktemp`, `true`,
 * `sleep`, node and their libraries, and this checkout's dist/ (the demo's fake agent) with its
 * fixtures, an sh wrapper per agent reading its scenario from HYDRA_FAKE_SCENARIO. It is removed at
 * the end, with every container and volume the races left (by the repository's label).
 *
 * Without an engine the suite says why and has no table (the bench is not a test).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName, type FakeScenario } from '../../src/demo/fake-bin.js';
import { removeContainers } from '../../src/engine/container/index.js';
import { expectExit, measureCommand } from '../lib/measure.js';
import { median, ratio } from '../lib/stats.js';
import { fixtureStream, PACKAGE_ROOT } from '../lib/streams.js';
import type { Workspace } from '../lib/workspace.js';

const AGENTS: AdapterId[] = ['claude', 'codex'];
const IMAGE_DIR = '/opt/hydra-bench';
const IMAGE_LABEL = 'io.hydra.bench=container-bench';

export interface ContainerStartRow {
  agent: string;
  localMs: number;
  containerMs: number;
  /** From hydra's start to the agent's first output. */
  localFirstMs: number;
  containerFirstMs: number;
}

/** The container race on this machine's engine reached as a remote one (wall ms, medians). */
export type RemoteRaces =
  | { skipped: string }
  | {
      tcpMs: number;
      /** hydra's one SSH connection for the race. */
      sshMs: number;
      /** One SSH connection per docker call (HYDRA_SSH_REUSE=0), the docker CLI's own way. */
      sshPerCallMs: number;
    };

export type ContainersResult =
  | { skipped: string }
  | {
      repeats: number;
      agentSeconds: number;
      localMs: number;
      containerMs: number;
      ratio: number;
      starts: ContainerStartRow[];
      /** `docker run --rm --network none <image> true`. */
      floorMs: number;
      remote: RemoteRaces;
    };

const docker = (args: string[], input?: Buffer): { status: number; stdout: string; stderr: string } => {
  const result = spawnSync('docker', args, {
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 1 << 30,
    ...(input === undefined ? {} : { input }),
  });
  return {
    status: result.status ?? 1,
    stdout: result.stdout ?? '',
    stderr: (result.stderr ?? '') || String(result.error ?? ''),
  };
};

/** Why the engine cannot be used, or null when it answers. */
const engineProblem = (): string | null => {
  const version = docker(['version', '--format', '{{.Server.Version}}']);
  return version.status === 0 ? null : `\`docker version\` failed: ${version.stderr.trim()}`;
};

const librariesOf = (binary: string): string[] => {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
  return [...out.matchAll(/(\/[^\s)]+)/g)].map((match) => match[1] ?? '').filter((file) => file !== '');
};

/** The agent's wrapper; without a scenario (the race's probe of the CLI in the image) it is the agent's own. */
const wrapperText = (agent: AdapterId): string =>
  [
    '#!/bin/sh',
    '# hydra bench fake (bench/suites/containers.ts): the demo fake agent with $HYDRA_FAKE_SCENARIO',
    'scenario=$(mktemp)',
    `if [ -n "$HYDRA_FAKE_SCENARIO" ]; then printf '%s' "$HYDRA_FAKE_SCENARIO" > "$scenario"; else printf '{"agent":"${agent}"}' > "$scenario"; fi`,
    `exec node ${IMAGE_DIR}/dist/demo/fake-agent.js --scenario "$scenario" -- "$@"`,
    '',
  ].join('\n');

/** Imports the bench's image from this machine's files; returns its tag. */
function buildImage(): string {
  const tag = `hydra-bench-container-bench:${process.pid}`;
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-image-'));
  try {
    // On PATH as a file (`command -v true` names the shell's builtin).
    const which = (name: string): string => {
      const dirs = (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter);
      const found = dirs.map((dir) => path.join(dir, name)).find((file) => existsSync(file));
      if (found === undefined) throw new Error(`bench: ${name} is not on PATH, for the containers' image`);
      return found;
    };
    // `sleep` as a user's image has it: the race's probe of the CLIs keeps one container alive with it.
    // git: a remote engine's agent clones its bundle in the container (the tcp:// and ssh:// races).
    for (const binary of [
      '/bin/sh',
      which('mktemp'),
      which('true'),
      which('sleep'),
      which('git'),
      process.execPath,
    ]) {
      for (const file of [binary, ...librariesOf(binary)]) {
        const target = path.join(root, file);
        mkdirSync(path.dirname(target), { recursive: true });
        copyFileSync(file, target);
        chmodSync(target, statSync(file).mode & 0o7777);
      }
    }
    // `node` on the image's PATH once, as a user's image has it (a second copy would double what
    // the engine copies for every container on `vfs`).
    mkdirSync(path.join(root, 'usr/local/bin'), { recursive: true });
    if (process.execPath !== '/usr/local/bin/node')
      symlinkSync(process.execPath, path.join(root, 'usr/local/bin/node'));
    // git runs its helpers (index-pack, ...) from its exec path; `cp -a` keeps their hard links.
    mkdirSync(path.join(root, 'usr/lib'), { recursive: true });
    execFileSync('cp', ['-a', '/usr/lib/git-core', path.join(root, 'usr/lib/')]);
    for (const dir of ['tmp', 'etc', `${IMAGE_DIR.slice(1)}/bin`])
      mkdirSync(path.join(root, dir), { recursive: true });
    chmodSync(path.join(root, 'tmp'), 0o1777);
    writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    const fakes = path.join(root, IMAGE_DIR.slice(1));
    for (const entry of ['dist', 'fixtures', 'package.json'])
      execFileSync('cp', ['-a', path.join(PACKAGE_ROOT, entry), fakes]);
    for (const agent of AGENTS) {
      const wrapper = path.join(fakes, 'bin', fakeBinaryName(agent));
      writeFileSync(wrapper, wrapperText(agent));
      chmodSync(wrapper, 0o755);
    }
    const tar = execFileSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 1 << 30 });
    const imported = docker(
      [
        'import',
        '--change',
        `ENV PATH=${IMAGE_DIR}/bin:/usr/local/bin:/usr/bin:/bin`,
        '--change',
        `LABEL ${IMAGE_LABEL}`,
        '-',
        tag,
      ],
      tar,
    );
    if (imported.status !== 0) throw new Error(`bench: docker import of ${tag} failed: ${imported.stderr}`);
    return tag;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const TRACE_LINE = /^hydra trace (\d+(?:\.\d+)?) agent ([^:]+): (.+)$/;

/**
 * Per agent: ms from its start mark (`spawning`, `docker run`, or `docker start` of a container
 * created while its worktree was made) to its first output, and ms from hydra's start to it.
 */
const startTimes = (stderr: string): { starts: Map<string, number>; firsts: Map<string, number> } => {
  const marks = new Map<string, { start?: number; first?: number }>();
  for (const line of stderr.split('\n')) {
    const match = TRACE_LINE.exec(line);
    if (match === null) continue;
    const [, at, agent = '', phase = ''] = match;
    const mark = marks.get(agent) ?? {};
    if (/^(spawning|docker (run|start|attach))/.test(phase)) mark.start ??= Number(at);
    else if (phase === 'first output') mark.first ??= Number(at);
    marks.set(agent, mark);
  }
  const starts = new Map<string, number>();
  const firsts = new Map<string, number>();
  for (const [agent, mark] of marks) {
    if (mark.first !== undefined) firsts.set(agent, mark.first);
    if (mark.start !== undefined && mark.first !== undefined) starts.set(agent, mark.first - mark.start);
  }
  return { starts, firsts };
};

interface RaceSample {
  wallMs: number;
  starts: Map<string, number>;
  /** ms from hydra's start to each agent's first output. */
  firsts: Map<string, number>;
}

async function race(
  ws: Workspace,
  binDir: string,
  config: string,
  what: string,
  env: (base: NodeJS.ProcessEnv) => NodeJS.ProcessEnv = (base) => base,
): Promise<RaceSample> {
  const sample = await measureCommand([...ws.hydra, 'race', '--json', '--config', config, 'bench prompt'], {
    cwd: ws.repo,
    env: env({ ...ws.env(binDir), HYDRA_TRACE: '1' }),
    timeoutMs: 600_000,
  });
  expectExit(sample, 0, what);
  const keep = process.env['HYDRA_BENCH_TRACES'];
  if (keep !== undefined)
    appendFileSync(keep, `=== ${what} ${Math.round(sample.wallMs)} ms\n${sample.stderrTail}\n`);
  const statuses = ws.lastRunStatuses();
  if (AGENTS.some((agent) => statuses[agent] !== 'completed'))
    throw new Error(`bench: ${what} did not complete both agents: ${JSON.stringify(statuses)}`);
  return { wallMs: sample.wallMs, ...startTimes(sample.stderrTail) };
}

const timeRun = (args: string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('docker', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`bench: docker ${args.join(' ')} failed: ${stderr}`)),
    );
  });

const tomlString = (value: string): string => JSON.stringify(value);

/** A TCP port in this process forwarding to the engine's socket, half-open both ways (as `socat -t`). */
async function startTcpProxy(): Promise<{ host: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ path: '/var/run/docker.sock', allowHalfOpen: true });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: `tcp://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An sshd on 127.0.0.1 (scripts/test-sshd.sh): its address and wrapper's directory, or why not. */
function startSshd(): { host: string; bin: string; stop: () => void } | { skipped: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-sshd-'));
  const dir = path.join(root, 'sshd');
  const remove = (): void => rmSync(root, { recursive: true, force: true });
  const started = spawnSync('bash', [path.join(PACKAGE_ROOT, 'scripts/test-sshd.sh'), dir], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (started.status !== 0) {
    remove();
    return { skipped: `no sshd on 127.0.0.1: ${(started.stderr ?? '').trim() || `exit ${started.status}`}` };
  }
  return {
    host: readFileSync(path.join(dir, 'address'), 'utf8').trim(),
    bin: path.join(dir, 'bin'),
    stop: () => {
      try {
        process.kill(Number(readFileSync(path.join(dir, 'sshd.pid'), 'utf8').trim()), 'SIGTERM');
      } catch {
        // Already gone.
      }
      remove();
    },
  };
}

/**
 * The container race (`config` lines, plus `hosts`) on this machine's engine as a remote one:
 * tcp://, ssh:// over hydra's one connection, ssh:// with a connection per call; in turn, medians.
 */
async function remoteRaces(
  ws: Workspace,
  binDir: string,
  config: (hosts: string[]) => string,
  repeats: number,
): Promise<RemoteRaces> {
  const sshd = startSshd();
  if ('skipped' in sshd) return sshd;
  const proxy = await startTcpProxy();
  try {
    const tcp = path.join(ws.root, 'containers-tcp.toml');
    const ssh = path.join(ws.root, 'containers-ssh.toml');
    writeFileSync(tcp, config([proxy.host]));
    writeFileSync(ssh, config([sshd.host]));
    // The sshd's wrapper first on PATH: its key and known_hosts, for hydra's ssh and the docker CLI's.
    const viaSsh =
      (more: NodeJS.ProcessEnv = {}) =>
      (base: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
        ...base,
        ...more,
        PATH: `${sshd.bin}${path.delimiter}${base['PATH'] ?? ''}`,
      });
    await race(ws, binDir, tcp, 'container race on tcp://');
    await race(ws, binDir, ssh, 'container race on ssh://', viaSsh());
    const tcps: number[] = [];
    const sshs: number[] = [];
    const perCall: number[] = [];
    for (let index = 0; index < repeats; index += 1) {
      tcps.push((await race(ws, binDir, tcp, 'container race on tcp://')).wallMs);
      sshs.push((await race(ws, binDir, ssh, 'container race on ssh://', viaSsh())).wallMs);
      perCall.push(
        (
          await race(
            ws,
            binDir,
            ssh,
            'container race on ssh://, a connection per call',
            viaSsh({ HYDRA_SSH_REUSE: '0' }),
          )
        ).wallMs,
      );
    }
    return { tcpMs: median(tcps), sshMs: median(sshs), sshPerCallMs: median(perCall) };
  } finally {
    await proxy.close();
    sshd.stop();
  }
}

export async function benchContainers(
  ws: Workspace,
  repeats: number,
  agentSeconds: number,
): Promise<ContainersResult> {
  const problem = engineProblem();
  if (problem !== null) return { skipped: `no container engine: ${problem}` };
  const lines = (agent: AdapterId): number => Math.max(1, fixtureStream(agent).length - 1);
  const scenarios: Record<string, FakeScenario> = Object.fromEntries(
    AGENTS.map((agent) => [agent, { agent, delayMs: Math.round((agentSeconds * 1000) / lines(agent)) }]),
  );
  // On the host: the local race's agents, and the probe's for the container race.
  const binDir = await ws.installBin(
    'containers',
    Object.fromEntries(AGENTS.map((agent) => [fakeBinaryName(agent), { agent, ...scenarios[agent] }])),
  );
  const image = buildImage();
  const local = path.join(ws.root, 'containers-local.toml');
  const inContainers = path.join(ws.root, 'containers-container.toml');
  const agentsLine = `agents = [${AGENTS.map(tomlString).join(', ')}]`;
  writeFileSync(local, ['[race]', agentsLine, ''].join('\n'));
  const containerConfig = (hosts: string[] = []): string =>
    [
      '[race]',
      agentsLine,
      'runner = "container"',
      '',
      '[container]',
      `image = ${tomlString(image)}`,
      // This machine's engine has no working default bridge; the fakes need no network.
      'network = "none"',
      ...(hosts.length === 0 ? [] : [`hosts = [${hosts.map(tomlString).join(', ')}]`]),
      '',
      ...AGENTS.flatMap((agent) => [
        `[agents.${agent}]`,
        `env = { HYDRA_FAKE_SCENARIO = ${tomlString(JSON.stringify(scenarios[agent]))} }`,
        '',
      ]),
    ].join('\n');
  writeFileSync(inContainers, containerConfig());
  const floorArgs = ['run', '--rm', '--pull', 'never', '--network', 'none', image, 'true'];
  try {
    // One of each first, not timed: the probe cache, the page cache and the engine warm up.
    await race(ws, binDir, local, 'local race');
    await race(ws, binDir, inContainers, 'container race');
    await timeRun(floorArgs);
    const locals: RaceSample[] = [];
    const containers: RaceSample[] = [];
    const floors: number[] = [];
    for (let index = 0; index < repeats; index += 1) {
      locals.push(await race(ws, binDir, local, 'local race'));
      containers.push(await race(ws, binDir, inContainers, 'container race'));
      floors.push(await timeRun(floorArgs));
    }
    const startOf = (samples: RaceSample[], agent: string, what: 'starts' | 'firsts' = 'starts'): number =>
      median(samples.map((sample) => sample[what].get(agent) ?? Number.NaN).filter(Number.isFinite));
    const localMs = median(locals.map((sample) => sample.wallMs));
    const containerMs = median(containers.map((sample) => sample.wallMs));
    return {
      repeats,
      agentSeconds,
      localMs,
      containerMs,
      ratio: ratio(containerMs, localMs),
      starts: AGENTS.map((agent) => ({
        agent,
        localMs: startOf(locals, agent),
        containerMs: startOf(containers, agent),
        localFirstMs: startOf(locals, agent, 'firsts'),
        containerFirstMs: startOf(containers, agent, 'firsts'),
      })),
      floorMs: median(floors),
      remote: await remoteRaces(ws, binDir, containerConfig, repeats),
    };
  } finally {
    await removeContainers('default', { repoRoot: ws.repo }).catch(() => undefined);
    docker(['image', 'rm', '-f', image]);
  }
}

export const containersTable = (
  result: ContainersResult,
): { title: string; head: string[]; rows: Array<Array<string | number>> } | string => {
  if ('skipped' in result) return `11. Agents in containers: skipped (${result.skipped})`;
  const row = (what: string, localMs: number, containerMs: number): Array<string | number> => [
    what,
    Math.round(localMs),
    Math.round(containerMs),
    Math.round(containerMs - localMs),
    `${Math.round(ratio(containerMs, localMs) * 100) / 100}x`,
  ];
  return {
    title: `11. Agents in containers on the local engine vs on this machine: hydra race --json, and each agent's start (runner's mark to its first output) (wall ms, median of ${result.repeats})`,
    head: ['what', 'local ms', 'container ms', 'added ms', 'ratio'],
    rows: [
      row(`whole race, two agents of ~${result.agentSeconds} s each`, result.localMs, result.containerMs),
      ...result.starts.map((start) =>
        row(
          `start of ${start.agent} (spawn, docker run, start or attach to first output)`,
          start.localMs,
          start.containerMs,
        ),
      ),
      // The container created ahead is not in the row above: this one counts it where it delays.
      ...result.starts.map((start) =>
        row(`first output of ${start.agent}, from hydra's start`, start.localFirstMs, start.containerFirstMs),
      ),
      [
        'engine floor: docker run --rm --network none <image> true',
        '—',
        Math.round(result.floorMs),
        '—',
        '—',
      ],
      ...remoteRows(result.remote),
    ],
  };
};

/** The remote engine's races, against the tcp:// one (in the table's "local ms" column). */
const remoteRows = (remote: RemoteRaces): Array<Array<string | number>> => {
  if ('skipped' in remote)
    return [[`whole race on ssh:// and tcp://: skipped (${remote.skipped})`, '—', '—', '—', '—']];
  const against = (what: string, ms: number): Array<string | number> => [
    what,
    Math.round(remote.tcpMs),
    Math.round(ms),
    Math.round(ms - remote.tcpMs),
    `${Math.round(ratio(ms, remote.tcpMs) * 100) / 100}x`,
  ];
  return [
    [
      'whole race, the same engine as a remote one over tcp:// (bundles, no bind mount)',
      '—',
      Math.round(remote.tcpMs),
      '—',
      '—',
    ],
    against('whole race over ssh://, one connection for the race (against tcp://)', remote.sshMs),
    against(
      'whole race over ssh://, a connection per docker call (HYDRA_SSH_REUSE=0, against tcp://)',
      remote.sshPerCallMs,
    ),
  ];
};
