/**
 * The sandbox itself: Anthropic's sandbox-runtime (`@anthropic-ai/sandbox-runtime`, Claude Code's
 * own sandbox: bubblewrap + socat + a seccomp helper on Linux, Seatbelt on macOS). hydra's build
 * bundles it into a chunk of its own (scripts/sandbox-library.mjs), loaded only when an agent is
 * sandboxed; its helper programs ship in dist/vendor/ and are named to it (helpers.ts).
 *
 * The library is one manager per process. It starts an HTTP and a SOCKS proxy in this process
 * (the sandbox has no network of its own; socat inside it bridges to the proxies), which refuse
 * every host not on the allowlist. The filesystem policy is given per command, so each agent gets
 * its own writable trees; the host allowlist is the manager's, so it is the union of the hosts of
 * every agent sandboxed so far in this process (each agent's CLI host is open to its rivals too).
 * The proxies keep running while a sandboxed process does or a race holds them (holdSandbox: from
 * its support check to its end, so its agents find them started), and stop with the last user.
 *
 * Wrapping a command takes a moment (the library checks every path of the policy and runs ripgrep
 * and `which`): a race wraps each agent's command ahead (prewrapSandboxed), while git makes its
 * worktree, and the agent's spawn takes that wrap when it asks for the same command.
 */
import type * as SandboxRuntime from '@anthropic-ai/sandbox-runtime';
import { trace } from '../../trace.js';
import { withHelperMarker } from './helper-marker.js';
import { findSandboxHelpers } from './helpers.js';
import type { SandboxHelpers } from './helpers.js';
import type { SandboxPolicy } from './policy.js';
import { findSandboxTools } from './tools.js';
import type { SandboxTools } from './tools.js';

/** As bundled (scripts/sandbox-library.mjs), it also forgets the scans it keeps while the proxies run. */
type Library = typeof SandboxRuntime & { forgetScans?: () => void };
type RuntimeConfig = Parameters<Library['SandboxManager']['initialize']>[0];

let library: Promise<Library> | null = null;

/** The library, imported once (bundled, ~115 ms of CPU; from node_modules, 250-355 ms). */
export const loadLibrary = (): Promise<Library> =>
  (library ??= import('@anthropic-ai/sandbox-runtime').catch((error: unknown) => {
    library = null;
    throw error;
  }));

/** The manager's state: started (with the hosts it allows), and how many sandboxed processes use it. */
let started: Promise<Library['SandboxManager']> | null = null;
let stopping: Promise<void> = Promise.resolve();
let users = 0;
const hosts = new Set<string>();

const configFor = (tools: SandboxTools, helpers: SandboxHelpers): RuntimeConfig => ({
  network: { allowedDomains: [...hosts].sort(), deniedDomains: [], strictAllowlist: true },
  // Each command brings its own filesystem policy; this one is only the fallback.
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  ...(tools.bwrap === null ? {} : { bwrapPath: tools.bwrap }),
  ...(tools.socat === null ? {} : { socatPath: tools.socat }),
  ...(tools.rg === null ? {} : { ripgrep: { command: tools.rg } }),
  ...(helpers.seccomp === null ? {} : { seccomp: { applyPath: helpers.seccomp } }),
  ...(helpers.javaAgent === null ? {} : { javaAgentJarPath: helpers.javaAgent }),
});

/**
 * Starts the manager (its proxies) on first use. The library adds once-only SIGINT and SIGTERM
 * listeners of its own; they are taken off again, because a listener stops Node's default exit on
 * that signal and hydra handles its signals itself (process-registry.ts).
 */
const start = async (tools: SandboxTools): Promise<Library['SandboxManager']> => {
  await stopping;
  const { SandboxManager } = await loadLibrary();
  const before = new Map(
    (['SIGINT', 'SIGTERM'] as const).map((signal) => [signal, new Set(process.listeners(signal))]),
  );
  // Its helpers (socat bridges) carry this hydra's marker, so none outlives a kill -9 (helper-marker.ts).
  await withHelperMarker(() => SandboxManager.initialize(configFor(tools, findSandboxHelpers())));
  for (const [signal, kept] of before)
    for (const listener of process.listeners(signal))
      if (!kept.has(listener)) process.removeListener(signal, listener);
  trace('sandbox: proxies started');
  return SandboxManager;
};

/** The manager, started, with `allow` added to its hosts. */
const managerWith = async (allow: readonly string[]): Promise<Library['SandboxManager']> => {
  const fresh = allow.filter((host) => !hosts.has(host));
  for (const host of fresh) hosts.add(host);
  if (started === null) {
    started = start(findSandboxTools());
    started.catch(() => (started = null));
    return started;
  }
  const manager = await started;
  if (fresh.length > 0) {
    const config = manager.getConfig();
    if (config !== undefined)
      manager.updateConfig({ ...config, network: { ...config.network, allowedDomains: [...hosts].sort() } });
  }
  return manager;
};

/** The bundled library's scans of hydra's working directory are made again for the next user. */
const forgetScans = async (): Promise<void> => (await loadLibrary()).forgetScans?.();

/** One user of the manager is done: the last one stops the proxies. */
const release = (): void => {
  users = Math.max(0, users - 1);
  if (users > 0 || started === null) return;
  const manager = started;
  started = null;
  hosts.clear();
  stopping = manager
    .then((instance) => instance.reset())
    .then(forgetScans)
    .then(() => trace('sandbox: proxies stopped'))
    .catch(() => undefined);
};

/** One more user of the manager; the returned function (idempotent) is its release. */
const use = (): (() => void) => {
  users += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
};

/**
 * Keeps the manager's proxies running, once started, until the returned function is called
 * (idempotent): a race holds them from its support check, whose trial run starts them, until it
 * ends, so its agents and their checks do not start them again. Without a hold they stop with the
 * last sandboxed process (`hydra doctor`'s trial).
 */
export const holdSandbox = (): (() => void) => use();

/** A single-quoted shell word. */
const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** The address proxies are not used for inside the sandbox, minus the loopback hosts it must reach through them. */
const noProxy = (loopbackHosts: readonly string[]): string =>
  ['localhost', '127.0.0.1', '::1', '169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']
    .filter((entry) => !loopbackHosts.includes(entry))
    .join(',');

export interface SandboxedCommand {
  /** `/bin/sh -c <bwrap ... -- the command>`. */
  file: string;
  args: string[];
  /** Call once the process has ended: the last one stops the proxies. */
  done(): void;
}

/**
 * `file args` wrapped in the sandbox `policy` describes. `file` must be a path (the caller resolves
 * it: inside, a bare name would be looked up by the sandbox's shell). `key` names the process in
 * what the sandbox refused (refusalsOf).
 */
export async function sandboxedCommand(
  policy: SandboxPolicy,
  file: string,
  args: readonly string[],
  key: string,
): Promise<SandboxedCommand> {
  const ahead = prewrapped.get(key);
  if (ahead !== undefined) {
    prewrapped.delete(key);
    if (ahead.fingerprint === fingerprintOf(policy, file, args)) {
      const command = await ahead.command.catch(() => null);
      if (command !== null) return command;
    } else
      void ahead.command.then(
        (command) => command.done(),
        () => undefined,
      );
  }
  return wrap(policy, file, args, key);
}

/** What a wrap depends on: a wrap made ahead serves only the same policy and command. */
const fingerprintOf = (policy: SandboxPolicy, file: string, args: readonly string[]): string =>
  JSON.stringify([policy, file, args]);

/** Commands wrapped ahead (prewrapSandboxed), by key, until their process asks for them. */
const prewrapped = new Map<string, { fingerprint: string; command: Promise<SandboxedCommand> }>();

/**
 * Starts wrapping `file args` for `policy` now, for the sandboxedCommand call with the same key,
 * policy and command (any other gets a wrap of its own). Every path the policy makes writable must
 * exist already: the library leaves out one that does not. Until taken or discarded
 * (discardPrewrapped), the wrap keeps the manager started.
 */
export function prewrapSandboxed(
  policy: SandboxPolicy,
  file: string,
  args: readonly string[],
  key: string,
): void {
  const command = wrap(policy, file, args, key);
  command.catch(() => undefined);
  const before = prewrapped.get(key);
  prewrapped.set(key, { fingerprint: fingerprintOf(policy, file, args), command });
  if (before !== undefined)
    void before.command.then(
      (old) => old.done(),
      () => undefined,
    );
}

/** Drops the wraps made ahead whose key starts with `prefix` and no process took (a race's, at its end). */
export function discardPrewrapped(prefix: string): void {
  for (const [key, ahead] of [...prewrapped])
    if (key.startsWith(prefix)) {
      prewrapped.delete(key);
      void ahead.command.then(
        (command) => command.done(),
        () => undefined,
      );
    }
}

/**
 * Inside the sandbox the library starts its two socat listeners (the HTTP proxy on 3128, SOCKS on
 * 1080) in the background and runs the command at once: a command that connects first thing (a
 * fake agent, a test) could find nothing listening yet and fail with "connection refused" (seen
 * under load). So the command waits, at most 2 s, until the sandbox's own /proc/net/tcp lists both
 * as listening; where there is no such file (no network namespace of Linux's), it does not wait.
 */
const LISTENERS_UP = [
  'i=0;',
  "while [ -r /proc/net/tcp ] && [ $i -lt 200 ] && ! { grep -q ' 00000000:0C38 00000000:0000 0A' /proc/net/tcp && grep -q ' 00000000:0438 00000000:0000 0A' /proc/net/tcp; }; do sleep 0.01; i=$((i + 1)); done;",
].join(' ');

async function wrap(
  policy: SandboxPolicy,
  file: string,
  args: readonly string[],
  key: string,
): Promise<SandboxedCommand> {
  const done = use();
  try {
    const manager = await managerWith(policy.allowHosts);
    // The library's TMPDIR (/tmp/claude) is shared by every sandbox: each agent gets its own. A
    // loopback host the agent may reach (a local API) goes through the proxy, so it leaves NO_PROXY.
    // Node's own fetch and http go through the proxy only when asked (Node 22.21+ and 24: see
    // docs/sandbox.md; Node 20 ignores it and reaches no host from the sandbox).
    const env = [
      `TMPDIR=${shellQuote(policy.tmpDir)}`,
      'NODE_USE_ENV_PROXY=1',
      ...(policy.loopbackHosts.length === 0
        ? []
        : ['NO_PROXY', 'no_proxy'].map((name) => `${name}=${shellQuote(noProxy(policy.loopbackHosts))}`)),
    ];
    const command = `${LISTENERS_UP} ${[...env, 'exec', ...[file, ...args].map(shellQuote)].join(' ')}`;
    // The shells inside are /bin/sh, not the library's default bash: a sandboxed start took
    // 130-200 ms less (dash starts faster; the command is plain POSIX).
    const wrapped = await manager.wrapWithSandbox(
      command,
      '/bin/sh',
      {
        filesystem: {
          allowWrite: policy.allowWrite,
          denyWrite: policy.denyWrite,
          denyRead: policy.denyRead,
          ...(policy.allowRead.length === 0 ? {} : { allowRead: policy.allowRead }),
        },
        network: { allowedDomains: policy.allowHosts, deniedDomains: [] },
      },
      undefined,
      { commandId: key, commandText: `${file} ${args.join(' ')}`.slice(0, 200) },
    );
    trace(`sandbox: ${key} wrapped`);
    return { file: '/bin/sh', args: ['-c', wrapped], done };
  } catch (error) {
    done();
    throw error;
  }
}

/**
 * Calls `listener` with each refusal the sandbox records for `key` from now on: on Linux the hosts
 * its proxy refused (`deny network-outbound evil.example:443 (host is not on the allow list)`).
 * Refused writes are not reported on Linux: the library's write monitor judges every process by
 * one process-wide policy (wrong for per-agent trees) and slowed a write-heavy command 1.5×; the
 * agent sees `Read-only file system` in its tool's output instead. Returns the unsubscribe.
 */
export function watchRefusals(key: string, listener: (line: string) => void): () => void {
  if (started === null) return () => undefined;
  let unsubscribe: (() => void) | null = null;
  let cancelled = false;
  void started.then((manager) => {
    if (cancelled) return;
    const store = manager.getSandboxViolationStore();
    let seen = store.getTotalCount();
    const wanted = Buffer.from(key.slice(0, 100)).toString('base64');
    unsubscribe = store.subscribe(() => {
      const total = store.getTotalCount();
      const fresh = store.getViolations(Math.min(total - seen, 100));
      seen = total;
      for (const violation of fresh) if (violation.encodedCommand === wanted) listener(violation.line);
    });
  });
  return () => {
    cancelled = true;
    unsubscribe?.();
  };
}
