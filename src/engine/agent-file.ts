/**
 * Reading a file from a place an agent (or its checks) could write: its scratch directory, its
 * worktree, its private git directory, the checks checkout, a file its CLI was told to write. What
 * the agent wrote is data: a link there is never followed (a Codex agent that links its
 * last-message file to `~/.netrc`, which the jail hides from it, must not get hydra to read the
 * file into the run record for it: issue 35, case 5). The file is opened with O_NOFOLLOW, only
 * when it is a regular file, and only when what was opened is inside `root` as `root` really is
 * (no linked directory on the way leads out); anything else is refused with a reason that names
 * the path, which the caller shows as a warning.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A file read, a file that is not there, or one refused (the reason names the path). */
export type AgentFile =
  { kind: 'read'; content: Buffer } | { kind: 'missing' } | { kind: 'refused'; reason: string };

/** More than this is not read (a last message, a marker file, a list: all small). */
const MAX_BYTES = 16 * 2 ** 20;

const isInside = (parent: string, child: string): boolean => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/** Where the open descriptor really is (Linux's /proc), or null where that cannot be known. */
const openedPath = (fd: number): string | null => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
};

/**
 * Reads `file`, which must lie inside `root`, without following a link: the last component is
 * opened with O_NOFOLLOW, and the path of what was opened (or, where /proc cannot say, the real
 * path of its directory) must be inside the real `root`.
 */
export function readAgentFile(file: string, root: string, maxBytes = MAX_BYTES): AgentFile {
  const refused = (why: string): AgentFile => ({
    kind: 'refused',
    reason: `hydra did not read ${file}: ${why} (a file an agent could write is read only when it is a regular file inside ${root}, never through a link)`,
  });
  const absolute = path.resolve(file);
  if (!isInside(path.resolve(root), absolute))
    return refused('it is outside the directory it was expected in');
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { kind: 'missing' };
  }
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP' || code === 'EMLINK') return refused('it is a symbolic link');
    if (code === 'ENOTDIR') return refused('a directory on its way is not a directory');
    return refused(`it could not be opened (${code ?? 'error'})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return refused('it is not a regular file');
    let real = openedPath(fd);
    if (real === null) {
      try {
        real = path.join(realpathSync(path.dirname(absolute)), path.basename(absolute));
      } catch {
        return { kind: 'missing' };
      }
    }
    if (!isInside(realRoot, real)) return refused(`a linked directory on its way leads to ${real}`);
    if (stat.size > maxBytes) return refused(`it is larger than ${Math.round(maxBytes / 2 ** 20)} MB`);
    const content = Buffer.alloc(stat.size);
    let read = 0;
    while (read < content.length) {
      const count = readSync(fd, content, read, content.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return { kind: 'read', content: content.subarray(0, read) };
  } finally {
    closeSync(fd);
  }
}

/** The text of `file` (see readAgentFile), or undefined; a refusal goes to `warn`. */
export function readAgentText(
  file: string,
  root: string,
  warn: (reason: string) => void,
): string | undefined {
  const result = readAgentFile(file, root);
  if (result.kind === 'refused') warn(result.reason);
  return result.kind === 'read' ? result.content.toString('utf8') : undefined;
}
