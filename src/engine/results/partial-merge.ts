/**
 * `hydra merge --only <path>...`: merging some files of a result. The chosen paths are checked to
 * lie inside the repository, then a commit is made (never on any branch) whose tree is the race's
 * base with the agent's changes to those paths only. That commit goes through the same merge as a
 * whole result (the conflict dry run, the check of the user's uncommitted work, the guarded
 * switch), always as one new commit on the user's branch.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { AgentName } from '../agent-name.js';
import { EngineError, listSome } from '../errors.js';
import { HYDRA_IDENTITY, gitLine, runGit, splitZ } from '../git/index.js';

const refuse = (message: string, hint: string): never => {
  throw new EngineError({ kind: 'Refused', message, hint });
};

/**
 * The paths as the merge uses them: relative to the repository root, normalized, with `/`. Refuses
 * a path that leaves the repository, names its root, or reaches into `.git`.
 */
export function checkOnlyPaths(paths: readonly string[]): string[] {
  if (paths.length === 0) refuse('--only needs at least one path.', 'Name the files or folders to merge.');
  const checked: string[] = [];
  for (const given of paths) {
    const normalized = path.posix.normalize(given.split(path.sep).join('/')).replace(/\/+$/, '');
    if (given.includes('\0') || path.isAbsolute(given) || path.posix.isAbsolute(normalized))
      refuse(
        `--only ${given}: not a path relative to the repository.`,
        'Give paths inside the repository, relative to where you are.',
      );
    if (normalized === '..' || normalized.startsWith('../'))
      refuse(`--only ${given}: outside the repository.`, 'Give paths inside the repository.');
    if (normalized === '.' || normalized === '')
      refuse(
        `--only ${given}: that is the whole repository.`,
        'Leave out --only to merge the whole result, or name some of its files.',
      );
    if (normalized.split('/').includes('.git'))
      refuse(`--only ${given}: git's own directory is not part of a result.`, 'Name files of the result.');
    if (!checked.includes(normalized)) checked.push(normalized);
  }
  return checked;
}

/** Each path as a literal pathspec (no globbing: a file named `*.ts` means that file). */
const literal = (paths: readonly string[]): string[] => paths.map((item) => `:(literal)${item}`);

/** `git diff --raw` entries from `from` to `to` under the paths. */
async function changedUnder(
  root: string,
  from: string,
  to: string,
  paths: readonly string[],
): Promise<Array<{ mode: string; object: string; deleted: boolean; file: string }>> {
  const { stdout } = await runGit(root, [
    'diff',
    '--raw',
    '-z',
    '--no-renames',
    '--no-abbrev',
    from,
    to,
    '--',
    ...literal(paths),
  ]);
  const parts = splitZ(stdout);
  const entries: Array<{ mode: string; object: string; deleted: boolean; file: string }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // ":<old mode> <new mode> <old object> <new object> <status>"
    const [, mode = '', , object = '', status = ''] = parts[i]!.slice(1).split(' ');
    entries.push({ mode, object, deleted: status.startsWith('D'), file: parts[i + 1]! });
  }
  return entries;
}

/**
 * A commit on top of `base` that holds the agent's changes (base..tip) to `paths` only. Refuses
 * when a path holds none of the agent's changes, naming the files it did change.
 */
export async function onlyCommit(
  root: string,
  agent: AgentName,
  base: string,
  tip: string,
  paths: readonly string[],
): Promise<string> {
  const changes = await changedUnder(root, base, tip, paths);
  for (const wanted of paths) {
    if (!changes.some((change) => change.file === wanted || change.file.startsWith(`${wanted}/`))) {
      const all = (await changedUnder(root, base, tip, ['.'])).map((change) => change.file);
      refuse(
        `${agent}'s result does not change ${wanted}.`,
        all.length === 0
          ? `Nothing was changed. ${agent} changed no file.`
          : `Nothing was changed. ${agent} changed: ${listSome(all)}.`,
      );
    }
  }
  const index = path.resolve(
    root,
    await gitLine(root, ['rev-parse', '--git-path', `hydra-only-${process.pid}.index`]),
  );
  const env = { GIT_INDEX_FILE: index };
  try {
    await runGit(root, ['read-tree', base], { env });
    const info = changes
      .map((change) =>
        change.deleted
          ? // A deleted file's new object is git's null id, in the repository's format (SHA-1 or SHA-256).
            `0 ${change.object}\t${change.file}`
          : `${change.mode} ${change.object}\t${change.file}`,
      )
      .join('\0');
    await runGit(root, ['update-index', '-z', '--index-info'], { env, input: `${info}\0` });
    const tree = await gitLine(root, ['write-tree'], env);
    const message = `hydra: ${agent}'s changes to ${paths.join(', ')}\n`;
    return (
      await runGit(root, ['commit-tree', tree, '-p', base], { input: message, env: { ...HYDRA_IDENTITY } })
    ).stdout.trim();
  } finally {
    await rm(index, { force: true });
  }
}
