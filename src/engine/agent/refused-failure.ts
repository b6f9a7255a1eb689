/**
 * A sandboxed agent that exits without a result after the sandbox refused it something fails with
 * that refusal named, and the `[sandbox]` line that allows it as the hint (issue 35): "Gemini CLI
 * failed after the sandbox refused a write to ~/.config/x (read-only file system)" and
 * `allow_write = ["~/.config"]`, instead of the last line of a stack trace. The refusals are the
 * ones the run reported (its proxy's refused hosts, its tools' refused writes) and what its stderr
 * says (a refused write, or a URL outside the allowlist); the last one is taken, as the one the CLI
 * died of.
 */
import os from 'node:os';
import path from 'node:path';
import { refusalsIn } from '../../adapters/kit/refusals.js';
import type { FailedEvent } from '../../core/events.js';
import { allowsHost, targetAllowEntry, urlAllowEntry } from '../../core/hosts.js';

export interface RefusalContext {
  displayName: string;
  /** The refusals reported while it ran (progress details of stage SANDBOX_REFUSED_STAGE). */
  refusals: readonly string[];
  stderrTail: string;
  worktree: string;
  /** The sandbox's allowlist: a URL its stderr names outside it was refused (a loopback port is, silently). */
  allowHosts: readonly string[];
}

/** `deny network-outbound host:port (…)`, the sandbox proxy's own line. */
const PROXY_LINE = /network-outbound\s+(\S+)/;
/** `a connection to host (…)`, `a write to /path (…)`, `access to /path (…)`: refusals.ts's details. */
const DETAIL = /^(a connection to|a write to|access to)\s+(.+?)\s+\(([^)]*)\)$/;

/** `~/x` for a path in the user's home: the spelling `[sandbox] allow_write` takes. */
const homeSpelled = (file: string): string => {
  const home = os.homedir();
  return file === home ? '~' : file.startsWith(`${home}/`) ? `~/${file.slice(home.length + 1)}` : file;
};

interface Refusal {
  what: string;
  line: string;
}

const refusalOf = (detail: string, worktree: string): Refusal | null => {
  const proxy = PROXY_LINE.exec(detail);
  if (proxy?.[1] !== undefined) {
    const entry = targetAllowEntry(proxy[1]);
    return { what: `a connection to ${proxy[1]}`, line: `allow_hosts = ["${entry}"]` };
  }
  const parts = DETAIL.exec(detail);
  if (parts === null) return null;
  const [, verb, target = '', reason] = parts;
  if (verb === 'a connection to')
    return { what: `a connection to ${target}`, line: `allow_hosts = ["${targetAllowEntry(target)}"]` };
  // The directory the write was in (a CLI writes a temp file beside the one it replaces), but
  // never the whole home: a file right in it is allowed alone.
  const full = path.resolve(worktree, target);
  const dir = path.dirname(full);
  return {
    what: `${verb} ${homeSpelled(full)} (${reason})`,
    line: `allow_write = ["${homeSpelled(dir === os.homedir() || dir === '/' ? full : dir)}"]`,
  };
};

/** `scheme://host[:port]` in a line of output. */
const URL_IN_TEXT = /\bhttps?:\/\/(\[[^\]\s]+\]|[^/:\s'"()]+)(?::(\d+))?/gi;

/**
 * The URLs its stderr names whose host the allowlist does not let through: a connection to a
 * loopback port the sandbox does not allow fails with no word from the proxy (only the allowed
 * ones go through it), so the CLI's own error ("error sending request for url (…)") is the trace.
 */
const unallowedUrls = (text: string, allowHosts: readonly string[]): Refusal[] =>
  [...text.matchAll(URL_IN_TEXT)].flatMap((match) => {
    const host = (match[1] ?? '').toLowerCase();
    const port = match[2] ?? (match[0].toLowerCase().startsWith('https') ? '443' : '80');
    if (host === '' || allowsHost(allowHosts, host, port)) return [];
    return [
      {
        what: `a connection to ${host}:${port}`,
        line: `allow_hosts = ["${urlAllowEntry(match[0]) ?? targetAllowEntry(`${host}:${port}`)}"]`,
      },
    ];
  });

/** The failure, naming the last refusal and the line that allows it; as it was when there is none. */
export function blameRefusal(failed: FailedEvent, context: RefusalContext): FailedEvent {
  const details = [
    ...context.refusals,
    ...refusalsIn(context.stderrTail, context.worktree).map((event) => event.detail ?? ''),
  ];
  const refusal =
    details
      .map((detail) => refusalOf(detail, context.worktree))
      .filter((item): item is Refusal => item !== null)
      .at(-1) ?? unallowedUrls(context.stderrTail, context.allowHosts).at(-1);
  if (refusal === undefined) return failed;
  return {
    ...failed,
    error: {
      ...failed.error,
      message: `${context.displayName} failed after the sandbox refused ${refusal.what}`,
      hint: `If it should be allowed, add under [sandbox] in hydra.toml: ${refusal.line}`,
    },
  };
}
