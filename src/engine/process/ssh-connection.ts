/**
 * One SSH connection per `ssh://` engine for as long as hydra runs. The docker CLI opens a new SSH
 * connection for every call (`ssh ... -- host docker system dial-stdio`): a key exchange, a login
 * and a docker CLI started on the engine's machine, 0.5-1 s a call, and a race makes dozens. hydra
 * instead opens one master connection (`ssh -M -N`, with the user's own ssh, config, keys, agent
 * and known_hosts, as the docker CLI would) and forwards a local socket in a private directory
 * (mkdtemp, 0700; the socket 0600) to the engine's socket there (`ssh -O forward -L`); its docker
 * calls then go to `unix://<that socket>`, as fast as a local socket (docs/benchmarks.md, "An
 * engine over ssh://"). Everything else about the host is unchanged: it stays remote (container/hosts.ts),
 * messages and labels name the `ssh://` address, and the watchdog reaches it with the docker CLI's
 * own ssh after a `kill -9`.
 *
 * The master runs under a few lines of /bin/sh (ssh-keeper.sh) that read a pipe from hydra: when
 * hydra ends, however it ends, the kernel closes hydra's end, the keeper stops the master and
 * removes the directory. Should the connection fail to open, or the engine's socket not be a
 * `unix://` path, each call connects on its own as before (HYDRA_TRACE=1 says why); HYDRA_SSH_REUSE=0
 * asks for that. Here, below the container runner and the probe of CLIs in an image, which both
 * call the engine.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { startChild } from './child.js';
import { SHELL, shellScript } from './containment.js';
import { trace } from '../../trace.js';
import keeperScript from './ssh-keeper.sh';

/** HYDRA_SSH_REUSE=0: every docker call to an `ssh://` engine opens its own connection (the docker CLI's way). */
const SSH_REUSE_ENV = 'HYDRA_SSH_REUSE';

const KEEPER_SCRIPT = shellScript(keeperScript);

/** The login: the connection's time limit (the docker CLI's own) and a little for the key exchange. */
const CONNECT_MS = 35_000;
/** Each ssh command over the open connection (the engine's socket, the forward). */
const COMMAND_MS = 20_000;
/** A Unix socket's path is at most 108 bytes on Linux, 104 on macOS. */
const MAX_SOCKET_PATH = 103;
/** ssh binds the control socket at `<ControlPath>.<16 random characters>` first, then renames it. */
const CONTROL_TEMP_SUFFIX = 17;
const POLL_MS = 20;

/** What `ssh://[user@]host[:port]` says to ssh: the same arguments the docker CLI gives it. */
export interface SshTarget {
  user: string | undefined;
  host: string;
  port: string | undefined;
}

/** The target of an `ssh://` address, or null for any other address (or one with a path: docker refuses it). */
export function sshTarget(address: string | undefined): SshTarget | null {
  if (address === undefined || !address.startsWith('ssh://')) return null;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hostname === '') return null;
  return {
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? undefined : url.port,
  };
}

/** `-l user -p port -- host`, as the docker CLI passes them. */
const targetArgs = (target: SshTarget): string[] => [
  '-o',
  'ConnectTimeout=30',
  ...(target.user === undefined ? [] : ['-l', target.user]),
  ...(target.port === undefined ? [] : ['-p', target.port]),
  '--',
  target.host,
];

interface Connection {
  /** `unix://<socket>` forwarded to the engine; undefined while it opens and when it could not. */
  forwarded: string | undefined;
  /** Why it could not be opened (each call then connects on its own). */
  failed?: string;
  /** Settles once the connection is open or given up. */
  opened: Promise<void>;
}

/** By `ssh://` address; a failed one stays (its calls connect on their own), a dropped one goes. */
const connections = new Map<string, Connection>();

/** The `unix://` socket forwarded to the engine at `address`, when its connection is open. */
export const forwardedSocket = (address: string | undefined): string | undefined =>
  address === undefined ? undefined : connections.get(address)?.forwarded;

/**
 * How hydra reaches the engine at `address`, for `hydra doctor`: null when it is not an `ssh://`
 * engine (or its connection was not asked for yet).
 */
export function sshConnectionNote(address: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (sshTarget(address) === null) return null;
  if (env[SSH_REUSE_ENV] === '0') return `an SSH connection per docker call (${SSH_REUSE_ENV}=0)`;
  const connection = connections.get(address);
  if (connection === undefined) return null;
  if (connection.forwarded !== undefined)
    return 'one SSH connection for every docker call (a forwarded socket)';
  return `an SSH connection per docker call: ${connection.failed ?? 'it is still opening'}`;
}

/**
 * The address to give the docker CLI (`--host=`, DOCKER_HOST) for the engine at `address`: the
 * forwarded socket once hydra's connection to an `ssh://` engine is open (opened here if it is
 * not), else the address itself.
 */
export async function dockerAddress(address: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  await openSshConnection(address, env);
  return forwardedSocket(address) ?? address;
}

/**
 * Opens the connection to the `ssh://` engine at `address` (once: later calls wait for the first),
 * or does nothing for any other address. Never throws: a connection that cannot be made leaves the
 * docker CLI to connect on its own, and say why if the engine cannot be reached at all.
 */
export function openSshConnection(
  address: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const target = sshTarget(address);
  if (address === undefined || target === null || env[SSH_REUSE_ENV] === '0' || process.platform === 'win32')
    return Promise.resolve();
  const known = connections.get(address);
  if (known !== undefined) return known.opened;
  const connection: Connection = { forwarded: undefined, opened: Promise.resolve() };
  connections.set(address, connection);
  const started = performance.now();
  connection.opened = connect(address, target, env, connection)
    .then((why) => {
      if (why !== null) connection.failed = why;
      trace(
        why === null
          ? `ssh connection to ${address}: ${Math.round(performance.now() - started)} ms`
          : `ssh connection to ${address} not shared (each docker call connects on its own): ${why}`,
      );
    })
    .catch(() => undefined);
  return connection.opened;
}

/** Opens the master and the forward; null once `connection.forwarded` is set, else why not. */
async function connect(
  address: string,
  target: SshTarget,
  env: NodeJS.ProcessEnv,
  connection: Connection,
): Promise<string | null> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-ssh-'));
  const control = path.join(dir, 'control');
  const socket = path.join(dir, 'docker.sock');
  if (Math.max(socket.length, control.length + CONTROL_TEMP_SUFFIX) > MAX_SOCKET_PATH) {
    rmSync(dir, { recursive: true, force: true });
    return `the temporary directory's path ${dir} is too long for a socket in it (TMPDIR)`;
  }
  const keeper = startKeeper(
    dir,
    ['ssh', '-M', '-S', control, '-N', '-o', 'ControlPersist=no', ...targetArgs(target)],
    env,
  );
  if (keeper === null) {
    rmSync(dir, { recursive: true, force: true });
    return 'the keeper could not be started';
  }
  let ended = false;
  keeper.process.once('exit', () => {
    ended = true;
    // A connection that dropped mid-way: the next call opens a new one.
    if (connection.forwarded !== undefined && connections.get(address) === connection)
      connections.delete(address);
    connection.forwarded = undefined;
  });
  const deadline = performance.now() + CONNECT_MS;
  while (!existsSync(control) && !ended && performance.now() < deadline) await sleep(POLL_MS);
  const close = (why: string): string => {
    keeper.close();
    return why;
  };
  if (!existsSync(control)) return close(ended ? 'ssh could not log in' : 'ssh did not log in in time');
  const over = ['-S', control, '-o', 'ControlMaster=no', ...targetArgs(target)];
  const engine = await ssh(
    [...over, 'docker', 'context', 'inspect', '--format', '{{.Endpoints.docker.Host}}'],
    env,
  );
  // The last line: a login script may print before it.
  const remote = engine.stdout.trim().split('\n').at(-1)?.trim() ?? '';
  if (engine.exitCode !== 0 || !remote.startsWith('unix://'))
    return close(`the engine's socket there is not a unix:// path (${remote || firstLine(engine.stderr)})`);
  const forward = await ssh(
    [
      '-S',
      control,
      '-O',
      'forward',
      '-L',
      `${socket}:${remote.slice('unix://'.length)}`,
      ...targetArgs(target),
    ],
    env,
  );
  if (forward.exitCode !== 0 || !existsSync(socket))
    return close(`the engine's socket could not be forwarded: ${firstLine(forward.stderr)}`);
  // The server may refuse each forwarded connection (AllowStreamLocalForwarding no) though the
  // forward itself was set up: ask the engine once through it.
  if (!(await pings(socket))) return close("the engine's socket could not be reached through the forward");
  if (ended) return 'the connection dropped';
  connection.forwarded = `unix://${socket}`;
  return null;
}

/** A short ssh command over the open connection, bounded in time. */
async function ssh(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = startChild('ssh', args, { env });
  const timer = setTimeout(() => child.process.kill('SIGKILL'), COMMAND_MS);
  const result = await child.result.finally(() => clearTimeout(timer));
  return {
    exitCode: result.exitCode ?? 1,
    stdout: result.stdout,
    stderr: result.spawnError?.message ?? result.stderr,
  };
}

/**
 * The keeper (ssh-keeper.sh) of the master `command`: detached, so a Ctrl-C at the terminal does not
 * end the connection hydra still removes its containers through; neither it nor its pipe keeps
 * hydra running.
 */
function startKeeper(
  dir: string,
  command: string[],
  env: NodeJS.ProcessEnv,
): { process: ChildProcess; close: () => void } | null {
  try {
    const child = spawn(SHELL, ['-c', KEEPER_SCRIPT, 'hydra-ssh', dir, ...command], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env,
    });
    child.on('error', () => undefined);
    const lifeline = child.stdin as (Writable & { unref?: () => void }) | null;
    lifeline?.on('error', () => undefined);
    child.unref();
    lifeline?.unref?.();
    return { process: child, close: () => lifeline?.end('done\n') };
  } catch {
    return null;
  }
}

/** Whether the engine answers `GET /_ping` on `socket` (its API's cheapest request) within the time limit. */
const pings = (socket: string): Promise<boolean> =>
  new Promise((resolve) => {
    let answer = '';
    const client = net.connect(socket);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      client.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), COMMAND_MS);
    client.setEncoding('utf8');
    client.on('connect', () => client.write('GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n'));
    client.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n')) done(/^HTTP\/1\.[01] 200/.test(answer));
    });
    client.on('error', () => done(false));
    client.on('close', () => done(/^HTTP\/1\.[01] 200/.test(answer)));
  });

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
