/**
 * Hosts as the sandbox's network allowlist takes them (issue 35, case 7), one definition for the
 * policy that builds the allowlist (engine/sandbox/policy.ts) and for the failures that name the
 * line allowing a refused host (engine/agent/refused-failure.ts, adapters/kit/failures.ts).
 *
 * A loopback host is allowed one port at a time, never as a whole address: a local model gateway
 * opens itself, not the database, dev server or Docker engine beside it. Every spelling of a
 * loopback address is one (the proxy dials the host as getaddrinfo spells it): `127.1`,
 * `2130706433`, `0x7f000001` are `127.0.0.1` (WHATWG URL's reading, which is getaddrinfo's),
 * `[::1]` and `::1` are `::1`, `localhost` and any `*.localhost` name the machine itself, and so
 * does `0.0.0.0` (a connection to it reaches the machine's own listeners on Linux and macOS).
 * Pure.
 */

/** The default port of a URL scheme the CLIs use, or undefined. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
};

/**
 * `host` as a URL's hostname spells it: lowercased, an IPv4 address in its dotted form (`127.1` →
 * `127.0.0.1`), an IPv6 address without brackets (`[::1]` → `::1`). As given when it is no host.
 */
export const canonicalHost = (host: string): string => {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  try {
    const parsed = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
    return parsed.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return bare.toLowerCase();
  }
};

/** Whether `host` (in any spelling, bracketed or not) names this machine. */
export const isLoopbackHost = (host: string): boolean => {
  const canonical = canonicalHost(host);
  return (
    canonical === 'localhost' ||
    canonical.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(canonical) ||
    canonical === '0.0.0.0' ||
    canonical === '::1' ||
    canonical === '::' ||
    // IPv4-mapped loopback (`::ffff:127.0.0.1`, which URL spells `::ffff:7f00:1`).
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical)
  );
};

/** `host:port`, an IPv6 address in brackets (`[::1]:4000`). */
const withPort = (host: string, port: string): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The allowlist entry for `host` reached on `port` (given, else the scheme's default): the
 * canonical host alone, or for a loopback host `host:port`. A loopback host whose port is not
 * known gets `<port>` in its place, for the user to fill in: never the whole address.
 */
export const allowEntry = (host: string, port?: string, scheme?: string): string => {
  const canonical = canonicalHost(host);
  if (!isLoopbackHost(canonical)) return canonical;
  const known =
    port !== undefined && port !== '' ? port : scheme === undefined ? undefined : DEFAULT_PORTS[scheme];
  return withPort(canonical, known ?? '<port>');
};

/** The allowlist entry for a URL (`http://127.1:4000/v1` → `127.0.0.1:4000`), or null when it is none. */
export const urlAllowEntry = (url: string): string | null => {
  try {
    const parsed = new URL(url);
    if (parsed.hostname === '') return null;
    return allowEntry(parsed.hostname, parsed.port, parsed.protocol);
  } catch {
    return null;
  }
};

/**
 * The allowlist entry for a `host[:port]` a refusal names (`127.1:4000`, `[::1]:4000`, `llm.example:443`).
 */
export const targetAllowEntry = (target: string): string => {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(target);
  if (match === null) return allowEntry(target);
  return allowEntry(match[1] ?? target, match[2]);
};

/** The host of an allowlist entry (`127.0.0.1:4000` → `127.0.0.1`, `[::1]:4000` → `::1`). */
export const hostOfEntry = (entry: string): string => {
  const bracketed = /^\[(.*)\](?::\d+)?$/.exec(entry);
  if (bracketed !== null) return bracketed[1] ?? entry;
  return /^[^:]+:\d+$/.test(entry) ? entry.slice(0, entry.lastIndexOf(':')) : entry;
};

/**
 * Whether an allowlist lets `host` through on `port`, as the sandbox's proxy does: an entry for
 * the host (in any spelling) without a port or with that port, or a `*.domain` pattern.
 */
export const allowsHost = (allowHosts: readonly string[], host: string, port: string): boolean => {
  const canonical = canonicalHost(host);
  return allowHosts.some((entry) => {
    if (entry.startsWith('*.')) return canonical.endsWith(entry.slice(1).toLowerCase());
    const entryHost = hostOfEntry(entry);
    if (canonicalHost(entryHost) !== canonical) return false;
    return entryHost === entry || entry.endsWith(`:${port}`);
  });
};
