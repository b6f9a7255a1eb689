/**
 * The pin on an agent's worktree: every git command hydra runs there names the repository's entry
 * for it, so nothing an agent does to the worktree's `.git` can make hydra act in another repository.
 */
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { readAgentFile } from '../agent-file.js';
import { EngineError } from '../errors.js';
import { gitLine, runGit } from './git.js';
import type { GitResult, RunGitOptions } from './git.js';
import { hardeningArgs } from './git-dir.js';

/**
 * An agent's worktree pinned to the repository hydra made it in: every git command hydra runs there
 * names the worktree's git directory (`<repo>/.git/worktrees/<id>`) and the work tree explicitly,
 * so nothing the agent did to the worktree's `.git` (deleted it, `git init` a repository of its
 * own, pointed it elsewhere) can make hydra commit in another repository.
 */
export interface PinnedWorktree {
  root: string;
  worktree: string;
  /** The worktree's entry in the repository's git directory. */
  gitDir: string;
  /** The repository's shared git directory. */
  commonDir?: string;
  /** `-c` switches against config an agent added since the race started (git-dir.ts). */
  guard?: string[];
}

/**
 * The repository's common git directory, asked of git once per repository in this process (every
 * agent of a race settles in the same one); a failed answer is asked again next time.
 */
const commonDirs = new Map<string, Promise<string>>();

/**
 * Asks for the repository's common git directory ahead of time (an agent started: its settling will
 * need it), so the question is off the path from the agent's exit to its result. Never fails.
 */
export const knowRepository = (root: string): void => {
  commonDirOf(root).catch(() => undefined);
};

/** The repository's common git directory (absolute), asked of git once per repository in this process. */
export const repositoryCommonDir = (root: string): Promise<string> => commonDirOf(root);

const commonDirOf = (root: string): Promise<string> => {
  const known = commonDirs.get(root);
  if (known !== undefined) return known;
  const asked = gitLine(root, ['rev-parse', '--git-common-dir']).then((dir) => path.resolve(root, dir));
  commonDirs.set(root, asked);
  asked.catch(() => commonDirs.delete(root));
  return asked;
};

const realOrResolved = async (file: string): Promise<string> =>
  realpath(file).catch(() => path.resolve(file));

const brokenWorktree = (root: string, worktree: string, detail: string): EngineError =>
  new EngineError({
    kind: 'AgentFailed',
    message: `The agent broke its worktree ${worktree}: ${detail}, so it is no longer linked to ${root}. Hydra committed nothing; the agent's files are kept there.`,
    hint: `Copy what you need from ${worktree}, then run \`hydra clean\` to remove it.`,
  });

/**
 * Checks that the worktree's `.git` is still the file git wrote, pointing at this repository's entry
 * for it, and that the entry points back; then every later command can name both explicitly.
 */
export async function pinWorktree(root: string, worktree: string): Promise<PinnedWorktree> {
  const commonDir = await commonDirOf(root);
  const entries = path.join(commonDir, 'worktrees');
  const realWorktree = await realOrResolved(worktree);
  let gitDir: string | null = null;
  for (const name of await readdir(entries).catch(() => [] as string[])) {
    const back = await readFile(path.join(entries, name, 'gitdir'), 'utf8').catch(() => null);
    if (back === null || back.trim() === '') continue;
    if ((await realOrResolved(path.dirname(back.trim()))) === realWorktree) {
      gitDir = path.join(entries, name);
      break;
    }
  }
  if (gitDir === null) throw brokenWorktree(root, worktree, 'the repository has no worktree entry for it');
  const dotGit = path.join(worktree, '.git');
  const stat = await lstat(dotGit).catch(() => null);
  if (stat === null) throw brokenWorktree(root, worktree, 'its .git was deleted');
  if (stat.isDirectory())
    throw brokenWorktree(root, worktree, 'its .git is a repository of its own (made by `git init`)');
  if (!stat.isFile()) throw brokenWorktree(root, worktree, 'its .git is no longer a plain file');
  // Read as data: never through a link the agent put in its place (agent-file.ts).
  const read = readAgentFile(dotGit, worktree);
  if (read.kind !== 'read') throw brokenWorktree(root, worktree, 'its .git is no longer a plain file');
  const pointer = /^gitdir: (.+)$/m.exec(read.content.toString('utf8'))?.[1]?.trim();
  if (
    pointer === undefined ||
    (await realOrResolved(path.resolve(worktree, pointer))) !== (await realOrResolved(gitDir))
  ) {
    throw brokenWorktree(root, worktree, `its .git points at ${pointer ?? 'nothing'} instead of ${gitDir}`);
  }
  const guard = await hardeningArgs(commonDir, worktree, ['--git-dir', gitDir]);
  return { root, worktree, gitDir, commonDir, guard };
}

/**
 * Runs git on a pinned worktree, naming its git directory and work tree. Hooks are off: hydra's own
 * bookkeeping there (detaching, committing, replaying) runs no hook.
 */
export const runPinned = (
  pinned: PinnedWorktree,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> => runGit(pinned.worktree, pinnedArgs(pinned, args), options);

export const pinnedArgs = (pinned: PinnedWorktree, args: readonly string[]): string[] => [
  '--git-dir',
  pinned.gitDir,
  '--work-tree',
  pinned.worktree,
  '-c',
  'core.hooksPath=/dev/null',
  ...(pinned.guard ?? []),
  ...args,
];

export const pinnedLine = async (pinned: PinnedWorktree, args: readonly string[]): Promise<string> =>
  (await runPinned(pinned, args)).stdout.trim();
