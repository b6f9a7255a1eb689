/**
 * What hydra's OS sandbox refused an agent, read from the output its tool printed, so the pane
 * shows an agent fighting the jail rather than a mysterious failure. Parsers apply it to every tool
 * result of a sandboxed run (ParserOptions.sandboxed); one rule for every CLI, per line of output:
 *
 * - a write refused by a read-only mount, `Read-only file system` (`EROFS`): always a refusal,
 *   whatever the path, because the sandbox mounts everything but the agent's worktree, temp and
 *   state directories read-only;
 * - `Permission denied` (`EACCES`), `Operation not permitted` (`EPERM`) and `Device or resource busy`
 *   (`EBUSY`: the sandbox binds protected files such as `.git/config`, and a rename over one fails
 *   with it): a refusal only when the line names a path outside the worktree, or inside a `.git`
 *   directory. A line with no path, or with a path inside the worktree (a test of the project's own
 *   that chmods a file and checks the error), is not;
 * - the sandbox proxy's answer to a host that is not allowed (sandbox-runtime 0.0.78): a 403 whose
 *   body is `Connection blocked by network allowlist` and whose `X-Proxy-Error` header is
 *   `blocked-by-allowlist`, and what clients make of a 403 to a CONNECT (curl and git
 *   `CONNECT tunnel failed, response 403`, Python `Tunnel connection failed: 403`, undici
 *   `Proxy response (403) !== 200 when HTTP Tunneling`). The proxy also reports the host it
 *   refused on hydra's side (engine/sandbox), also for clients that print nothing.
 *
 * Outputs of tools that show file contents or listings (Read, Grep, Glob, ls...) are not read: a
 * file that mentions these words is not a refusal. Reads the sandbox denies look like missing files
 * (`No such file or directory`) and are not told apart.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { ev } from '../../core/events.js';
import type { AgentEvent, ProgressEvent } from '../../core/events.js';
import { SANDBOX_REFUSED_STAGE } from '../../core/events.js';
import { oneLine, relativePath } from '../../core/text.js';

/** Any of the words below, anywhere: most outputs have none and are passed over in one test. */
const ANY =
  /read-only file system|erofs|permission denied|eacces|operation not permitted|eperm|resource busy|ebusy|blocked by network allowlist|blocked-by-|tunnel(?:ing)? (?:connection )?failed|proxy response \(403\)/i;

const READ_ONLY = /read-only file system|\bEROFS\b/i;
const DENIED =
  /permission denied|\bEACCES\b|operation not permitted|\bEPERM\b|device or resource busy|\bEBUSY\b/i;
/** The words for an errno a line names by code (`EACCES: permission denied, open '/x'`). */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  eacces: 'permission denied',
  eperm: 'operation not permitted',
  ebusy: 'device or resource busy',
};
const BLOCKED_HOST =
  /connection blocked by network allowlist|X-Proxy-Error:\s*blocked-by-|CONNECT tunnel failed,? response 403|Tunnel connection failed: 403|Proxy response \(403\) !== 200|Proxy tunneling failed: Forbidden/i;

/**
 * A quoted path (straight, typographic or back quotes), or a bare one: starting with `/`, `~/`,
 * `./`, `../`, or a name with a slash in it (`.git/config`).
 */
const QUOTED = /['"‘`]([^'"’`\n]{1,400})['"’`]/g;
const BARE = /(?:^|[\s:=(,])((?:~|\.{1,2}|[\w.-]+)?\/[^\s:'"’`,;)]*)/g;
const URL_HOST = /\b[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s'"]*@)?(\[[^\]\s]+\]|[^/:\s'"’`]+)/i;

/**
 * Tools whose output is file contents, matches or listings: read by name without case or
 * underscores (`read_file` is `ReadFile`).
 */
const READERS = new Set([
  'read',
  'readfile',
  'readmanyfiles',
  'notebookread',
  'grep',
  'grepsearch',
  'searchfilecontent',
  'glob',
  'list',
  'listdirectory',
  'ls',
  'readtoolcall',
  'greptoolcall',
  'globtoolcall',
  'lstoolcall',
]);

/** At most this many refusals from one output (a test run can repeat one a thousand times). */
const MAX_PER_OUTPUT = 3;

interface Candidate {
  path: string;
  start: number;
  end: number;
}

const pathCandidates = (line: string): Candidate[] => {
  const found: Candidate[] = [];
  for (const match of line.matchAll(QUOTED)) {
    const text = match[1] ?? '';
    if (text.includes('://') || !(text.includes('/') || /^[^\s]+$/.test(text))) continue;
    found.push({ path: text, start: match.index, end: match.index + match[0].length });
  }
  for (const match of line.matchAll(BARE)) {
    const text = match[1] ?? '';
    const start = match.index + match[0].length - text.length;
    if (
      text === '/' ||
      text.startsWith('//') ||
      found.some((quoted) => start >= quoted.start && start < quoted.end)
    )
      continue;
    found.push({ path: text, start, end: start + text.length });
  }
  return found.sort((a, b) => a.start - b.start);
};

/**
 * The path a line's error is about: the last one named before the error's words
 * (`touch: cannot touch '/x': Read-only file system`, `bash: line 1: ../x: Permission denied`),
 * else the first one after them (`EROFS: read-only file system, open '/x'`).
 */
const pathOf = (line: string, words: RegExp): string | undefined => {
  const at = words.exec(line)?.index ?? 0;
  const candidates = pathCandidates(line);
  return (
    candidates.findLast((candidate) => candidate.end <= at)?.path ??
    candidates.find((c) => c.start >= at)?.path
  );
};

/** Whether a path the agent was denied lies outside its worktree (or in a `.git` directory). */
const isOutside = (path: string, cwd: string): boolean => {
  if (path.startsWith('~')) return true;
  if (path.split('/').includes('.git')) return true;
  const full = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
  const root = resolve(cwd);
  return full !== root && !full.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
};

const shown = (path: string, cwd: string | undefined): string => oneLine(relativePath(path, cwd), 160);

/** What one line of output says was refused, as the `detail` of a refusal event, or nothing. */
const refusalOf = (line: string, cwd: string | undefined): string | undefined => {
  if (BLOCKED_HOST.test(line)) {
    const host = URL_HOST.exec(line)?.[1];
    const what = host === undefined ? 'a network connection' : `a connection to ${host}`;
    return `${what} (its host is not on the sandbox's network allowlist)`;
  }
  const readOnly = READ_ONLY.exec(line);
  if (readOnly !== null) {
    const path = pathOf(line, READ_ONLY);
    return `${path === undefined ? 'a write' : `a write to ${shown(path, cwd)}`} (read-only file system)`;
  }
  const denied = DENIED.exec(line);
  if (denied === null || cwd === undefined) return undefined;
  const path = pathOf(line, DENIED);
  if (path === undefined || !isOutside(path, cwd)) return undefined;
  const words = denied[0].toLowerCase();
  return `access to ${shown(path, cwd)} (${ERRNO_WORDS[words] ?? words})`;
};

/** Whether a tool's output is worth reading for refusals (not file contents or a listing). */
const readsRefusals = (toolName: string | undefined): boolean =>
  toolName === undefined || !READERS.has(toolName.replaceAll('_', '').toLowerCase());

/**
 * A warning event (`progress` of stage SANDBOX_REFUSED_STAGE) for each distinct refusal the output of one
 * tool call reports, at most a few; `cwd` is the agent's worktree (without it, only read-only
 * writes and blocked hosts are recognised).
 */
export const refusalsIn = (output: string, cwd: string | undefined): ProgressEvent[] => {
  if (!ANY.test(output)) return [];
  const details = new Set<string>();
  let more = 0;
  for (const line of output.split(/\r?\n/)) {
    if (!ANY.test(line)) continue;
    const detail = refusalOf(line, cwd);
    if (detail === undefined || details.has(detail)) continue;
    if (details.size < MAX_PER_OUTPUT) details.add(detail);
    else more += 1;
  }
  const events = [...details].map((detail) => ev({ kind: 'progress', stage: SANDBOX_REFUSED_STAGE, detail }));
  if (more > 0)
    events.push(
      ev({ kind: 'progress', stage: SANDBOX_REFUSED_STAGE, detail: `${more} more in the same output` }),
    );
  return events;
};

/** A tool's result event followed by the refusals its output reports (see refusalsIn). */
export const withRefusals = (
  result: AgentEvent,
  name: string | undefined,
  output: string,
  cwd: string | undefined,
): AgentEvent[] => (readsRefusals(name) ? [result, ...refusalsIn(output, cwd)] : [result]);
