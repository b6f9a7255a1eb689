/**
 * An agent's own repository: while its process runs, the agent's worktree is linked to a private
 * git directory (`<runDir>/.git-private/<agent>`, see agentPrivateGitDir) instead of its entry in
 * the repository's shared git directory. The agent's `git status`, `add`, `commit`, `checkout`,
 * `tag` and `stash` work there, so the shared git directory (config, hooks, info/, refs,
 * packed-refs, objects, `worktrees/`) need not be writable by it: it reads the shared objects
 * through `objects/info/alternates` and writes its own objects and refs beside them.
 *
 * Once the process has ended, hydra (outside any sandbox) takes back the commit the agent left
 * (bringBackPrivateGit): it first replaces everything in the private directory that git would act
 * on (config, alternates, hooks, info/, commondir), fetches only the commits its HEAD and its own
 * branch reach into the repository, moves the agent's own branch (or detaches the worktree's HEAD
 * at the fetched commit, never moving any other ref), refreshes the worktree's index from the
 * trees, and links the worktree to its entry again. result-commit.ts then commits what is left in
 * the worktree as before. Which directory is whose comes from hydra's own paths and the shared
 * directory's `worktrees/*\/gitdir`, never from what the agent left in its `.git`.
 */
import { copyFile, lstat, mkdir, readFile, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readAgentFile } from '../agent-file.js';
import type { AgentFile } from '../agent-file.js';
import { trace } from '../../trace.js';
import { NO_HOOKS, runGit, splitZ } from './git.js';
import type { GitResult, RunGitOptions } from './git.js';
import { hardeningArgs } from './git-dir.js';
import { repositoryCommonDir as commonDirOf } from './pinned.js';
import type { WorktreeHead } from './result-commit.js';

/**
 * The private git directory of a worktree made by hydra (`<runDir>/<agent>`): records/paths.ts's
 * agentPrivateGitDir (records reads git, so git does not import it).
 */
export const privateGitDirOf = (worktree: string): string =>
  path.join(path.dirname(worktree), '.git-private', path.basename(worktree));

/** What the worktree's `.git` says while the agent runs, exactly as hydra writes it. */
const pointerTo = (gitDir: string): string => `gitdir: ${gitDir}\n`;

/**
 * Settings taken from the repository's own config into the private one: what decides how files
 * are read and written and who commits (never a program, a hook, a filter or an include).
 */
const COPIED_KEYS =
  /^(core\.(filemode|ignorecase|symlinks|autocrlf|eol|precomposeunicode|quotepath|safecrlf|checkroundtripencoding)|user\.(name|email)|extensions\.objectformat|init\.defaultbranch)$/;

/** The repository's config, as the private repository takes it (COPIED_KEYS), per common dir. */
const copiedConfig = new Map<string, Promise<Array<[string, string]>>>();

const readCopiedConfig = (commonDir: string): Promise<Array<[string, string]>> => {
  const known = copiedConfig.get(commonDir);
  if (known !== undefined) return known;
  const read = runGit(commonDir, ['config', '--file', path.join(commonDir, 'config'), '--list', '-z'], {
    okExitCodes: [1],
  }).then(({ stdout }) =>
    splitZ(stdout).flatMap((item): Array<[string, string]> => {
      const at = item.indexOf('\n');
      const key = (at < 0 ? item : item.slice(0, at)).toLowerCase();
      return COPIED_KEYS.test(key) ? [[key, at < 0 ? 'true' : item.slice(at + 1)]] : [];
    }),
  );
  copiedConfig.set(commonDir, read);
  read.catch(() => copiedConfig.delete(commonDir));
  return read;
};

/** A config value in git's syntax (quoted, so nothing in it is read as syntax). */
const quoted = (value: string): string =>
  `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;

/**
 * The private repository's config, written by hydra: the repository's format, the COPIED_KEYS, and
 * the one setting hydra's fetch back needs (the commit is asked for by its id).
 */
const privateConfig = (copied: ReadonlyArray<[string, string]>): string => {
  const sha256 = copied.some(([key, value]) => key === 'extensions.objectformat' && value === 'sha256');
  const sections = new Map<string, string[]>([
    ['core', [`repositoryformatversion = ${sha256 ? 1 : 0}`, 'bare = false', 'logallrefupdates = true']],
  ]);
  for (const [key, value] of copied) {
    const dot = key.lastIndexOf('.');
    const section = key.slice(0, dot);
    sections.set(section, [...(sections.get(section) ?? []), `${key.slice(dot + 1)} = ${quoted(value)}`]);
  }
  sections.set('uploadpack', ['allowAnySHA1InWant = true']);
  return [...sections]
    .map(([name, lines]) => `[${name}]\n${lines.map((line) => `\t${line}\n`).join('')}`)
    .join('');
};

/** The repository's entry for a worktree (`<common>/worktrees/<id>`), found from the entries' side. */
async function worktreeEntry(commonDir: string, worktree: string): Promise<string | null> {
  const entries = path.join(commonDir, 'worktrees');
  const wanted = path.resolve(worktree, '.git');
  for (const name of await readdir(entries).catch(() => [] as string[])) {
    const back = await readFile(path.join(entries, name, 'gitdir'), 'utf8').catch(() => null);
    if (back !== null && path.resolve(back.trim()) === wanted) return path.join(entries, name);
  }
  return null;
}

/** Writes a file whole or not at all (a temporary file renamed over it). */
const writeAtomic = async (file: string, content: string | Buffer): Promise<void> => {
  const temporary = `${file}.hydra-${process.pid}`;
  await writeFile(temporary, content, { mode: 0o644 });
  await rename(temporary, file);
};

export interface PrivateGitRequest {
  /** The user's repository (its main checkout). */
  root: string;
  /** The agent's worktree (`<runDir>/<agent>`), linked to its entry in the shared git directory. */
  worktree: string;
  /** The agent's branch (`hydra/<run>/<agent>`, no `refs/heads/`). */
  branch: string;
  /** Every ref of the repository (refname → object), as refsAtStart took them: copied as data. */
  refs: Readonly<Record<string, string>>;
}

/**
 * Makes the agent's private repository and links its worktree to it, just before its process
 * starts (a first round, a rerun, each follow-up): its own empty object store reading the shared
 * one through alternates, HEAD as the worktree's (its own branch at its tip), the repository's
 * refs as one packed-refs file, hydra's own config, and a copy of the worktree's index (so its
 * first `git status` hashes nothing). Returns the private directory.
 */
export async function preparePrivateGit(request: PrivateGitRequest): Promise<string> {
  const { root, worktree, branch, refs } = request;
  const commonDir = await commonDirOf(root);
  const entry = await worktreeEntry(commonDir, worktree);
  if (entry === null) throw new Error(`${worktree} has no entry in ${commonDir}/worktrees.`);
  const dir = privateGitDirOf(worktree);
  // Emptied, not replaced: a container started ahead has this directory bind-mounted (container/precreate.ts).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await Promise.all(
    (await readdir(dir)).map((name) => rm(path.join(dir, name), { recursive: true, force: true })),
  );
  await mkdir(path.join(dir, 'objects', 'info'), { recursive: true, mode: 0o700 });
  await Promise.all([
    mkdir(path.join(dir, 'refs', 'heads'), { recursive: true }).then(() =>
      mkdir(path.join(dir, 'refs', 'tags')),
    ),
    mkdir(path.join(dir, 'info')),
  ]);
  const [head, own, copied] = await Promise.all([
    readFile(path.join(entry, 'HEAD'), 'utf8'),
    branchTip(root, commonDir, branch),
    readCopiedConfig(commonDir),
  ]);
  const packed = Object.entries(refs)
    .filter(([ref]) => ref !== `refs/heads/${branch}` && ref.startsWith('refs/'))
    .map(([ref, sha]) => `${sha} ${ref}\n`);
  if (own !== '') packed.push(`${own} refs/heads/${branch}\n`);
  await Promise.all([
    writeFile(path.join(dir, 'HEAD'), head),
    writeFile(path.join(dir, 'packed-refs'), packed.join('')),
    writeFile(path.join(dir, 'config'), privateConfig(copied)),
    writeFile(path.join(dir, 'objects', 'info', 'alternates'), `${path.join(commonDir, 'objects')}\n`),
    copyFile(path.join(entry, 'index'), path.join(dir, 'index')).catch(() => undefined),
    copyFile(path.join(commonDir, 'info', 'exclude'), path.join(dir, 'info', 'exclude')).catch(
      () => undefined,
    ),
    copyFile(path.join(commonDir, 'info', 'attributes'), path.join(dir, 'info', 'attributes')).catch(
      () => undefined,
    ),
  ]);
  await writeAtomic(path.join(worktree, '.git'), pointerTo(dir));
  trace(`git: private repository of ${path.basename(worktree)} ready`);
  return dir;
}

/** The branch's commit: its loose ref file (where `worktree add -b` wrote it), else git's answer. */
const branchTip = async (root: string, commonDir: string, branch: string): Promise<string> => {
  const loose = (
    await readFile(path.join(commonDir, 'refs', 'heads', branch), 'utf8').catch(() => '')
  ).trim();
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(loose)) return loose;
  const asked = await runGit(root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`], {
    okExitCodes: [1],
  });
  return asked.stdout.trim();
};

/** What bringBackPrivateGit did. */
export interface BroughtBack {
  /** Where the agent left HEAD, for commitAgentResult (the worktree is already off any foreign branch). */
  head: WorktreeHead;
  /** What the user should know (the private repository was damaged, its commits were not taken). */
  warnings: string[];
}

/** The top of a private directory that hydra reads back; everything else there is removed first. */
const KEPT = new Set(['HEAD', 'refs', 'packed-refs', 'objects']);

/**
 * Whether `dir` still has the shape hydra made (real folders, a plain HEAD), after removing
 * everything at its top that git would act on (config, hooks, info/, commondir, ...) and the
 * object store's `info/`; then writes hydra's own config and alternates again.
 */
async function sanitize(dir: string, commonDir: string): Promise<boolean> {
  const top = await lstat(dir).catch(() => null);
  if (top === null || !top.isDirectory()) return false;
  for (const name of await readdir(dir)) {
    if (!KEPT.has(name)) await rm(path.join(dir, name), { recursive: true, force: true });
  }
  const kinds = await Promise.all(
    ['HEAD', 'refs', 'objects'].map((name) => lstat(path.join(dir, name)).catch(() => null)),
  );
  const [head, refs, objects] = kinds;
  if (head?.isFile() !== true || refs?.isDirectory() !== true || objects?.isDirectory() !== true)
    return false;
  await rm(path.join(dir, 'objects', 'info'), { recursive: true, force: true });
  await mkdir(path.join(dir, 'objects', 'info'));
  await writeFile(path.join(dir, 'objects', 'info', 'alternates'), `${path.join(commonDir, 'objects')}\n`);
  await writeFile(path.join(dir, 'config'), privateConfig(await readCopiedConfig(commonDir)));
  return true;
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A ref name git would take (no `..`, no control characters), else null. */
const safeRef = (ref: string): string | null =>
  // eslint-disable-next-line no-control-regex
  /^refs\/[^\u0000-\u0020~^:?*[\\]+$/.test(ref) &&
  !ref.split('/').some((part) => part === '..' || part === '.')
    ? ref
    : null;

/** The text of a file read as data (agent-file.ts); empty when it is missing or refused. */
const textOf = (file: AgentFile): string => (file.kind === 'read' ? file.content.toString('utf8') : '');

/**
 * A ref's object id read as data from a git directory's files (its loose file, else its line in
 * `packed-refs`): null when it is neither, or not plainly an object id (git is asked then).
 */
async function readRefAsData(gitDir: string, ref: string): Promise<string | null> {
  const loose = readAgentFile(path.join(gitDir, ref), gitDir);
  if (loose.kind !== 'missing') {
    const id = loose.kind === 'read' ? loose.content.toString('utf8').trim() : '';
    return OBJECT_ID.test(id) ? id : null;
  }
  const packed = textOf(readAgentFile(path.join(gitDir, 'packed-refs'), gitDir));
  for (const line of packed.split('\n')) {
    const [id, name] = line.split(' ');
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return null;
}

/** The commit a HEAD file names, read as data (the ref it names in `refsDir`); null when unsure. */
async function headAsData(headFile: string, refsDir: string): Promise<string | null> {
  const content = textOf(readAgentFile(headFile, path.dirname(headFile))).trim();
  if (OBJECT_ID.test(content)) return content;
  const ref = content.startsWith('ref: ') ? safeRef(content.slice('ref: '.length).trim()) : null;
  return ref === null ? null : readRefAsData(refsDir, ref);
}

/** What the private repository's HEAD says: the ref it names, or null when detached. */
const headRef = async (dir: string): Promise<string | null> => {
  const head = readAgentFile(path.join(dir, 'HEAD'), dir);
  if (head.kind !== 'read') throw new Error(head.kind === 'refused' ? head.reason : `${dir} has no HEAD`);
  const content = head.content.toString('utf8').trim();
  return content.startsWith('ref: ') ? content.slice('ref: '.length).trim() : null;
};

export interface BringBackRequest {
  root: string;
  worktree: string;
  branch: string;
  /** Cancels the fetch (its whole process group). */
  signal?: AbortSignal;
}

/**
 * Takes the agent's work back from its private repository once its process has ended, and links
 * the worktree to its entry in the shared git directory again. Null when there is nothing to take
 * back: the worktree was never linked to a private repository (a shell, a run before this), or the
 * agent changed its `.git` (then pinWorktree says how it broke its worktree, as before).
 */
export async function bringBackPrivateGit(request: BringBackRequest): Promise<BroughtBack | null> {
  const { root, worktree, branch } = request;
  const dir = privateGitDirOf(worktree);
  const dotGit = path.join(worktree, '.git');
  const stat = await lstat(dotGit).catch(() => null);
  if (stat === null || !stat.isFile()) return null;
  if ((await readFile(dotGit, 'utf8').catch(() => '')) !== pointerTo(dir)) return null;
  const commonDir = await commonDirOf(root);
  const entry = await worktreeEntry(commonDir, worktree);
  if (entry === null) return null;
  // Asked only when a git command runs (an agent that committed nothing needs none).
  let guard: Promise<string[]> | null = null;
  const git = async (args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> => {
    guard ??= hardeningArgs(commonDir, root);
    return runGit(root, [...NO_HOOKS, ...(await guard), ...args], options);
  };
  const admin = (args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> =>
    git(['--git-dir', entry, '--work-tree', worktree, ...args], options);
  const warnings: string[] = [];
  let head: WorktreeHead = { onOwnBranch: true, switchedTo: null };
  const before =
    (await headAsData(path.join(entry, 'HEAD'), commonDir)) ??
    (await admin(['rev-parse', '--verify', '-q', 'HEAD'], { okExitCodes: [1] })).stdout.trim();
  try {
    const taken = await takeCommits(dir, commonDir, branch, git, request.signal, before);
    if (taken === null) {
      warnings.push(
        `The agent's own git repository (${dir}) was damaged, so the commits it made there were not taken; its files are committed as it left them.`,
      );
      head = await adminHeadOf(admin, branch);
    } else {
      const adminHead = (await readFile(path.join(entry, 'HEAD'), 'utf8').catch(() => '')).trim();
      const unchanged =
        taken.headRef === `refs/heads/${branch}` &&
        adminHead === `ref: refs/heads/${branch}` &&
        taken.headCommit === before;
      // The agent committed nothing and stayed on its branch (the common case): nothing to move.
      head = unchanged ? { onOwnBranch: true, switchedTo: null } : await moveHead(admin, branch, taken);
    }
  } catch (error) {
    if (request.signal?.aborted === true) throw error;
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    warnings.push(
      `The commits the agent made in its own git repository could not be taken (${why}); its files are committed as it left them.`,
    );
    head = await adminHeadOf(admin, branch);
  }
  await writeAtomic(dotGit, pointerTo(entry));
  const after =
    (await headAsData(path.join(entry, 'HEAD'), commonDir)) ??
    (await admin(['rev-parse', '--verify', '-q', 'HEAD'], { okExitCodes: [1] })).stdout.trim();
  await refreshIndex(admin, before, after);
  await removePrivateGit(worktree);
  return { head, warnings };
}

/** The worktree entry's own HEAD (untouched by the agent), as result-commit reads it. */
const adminHeadOf = async (
  admin: (args: readonly string[], options?: RunGitOptions) => Promise<GitResult>,
  branch: string,
): Promise<WorktreeHead> => {
  const current = await admin(['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [1] });
  const name = current.exitCode === 0 ? current.stdout.trim() : null;
  return { onOwnBranch: name === `refs/heads/${branch}`, switchedTo: null };
};

interface Taken {
  /** The ref the private HEAD named (`refs/heads/...`), or null when detached. */
  headRef: string | null;
  /** The commit at the private HEAD, now in the repository (null: HEAD names no commit). */
  headCommit: string | null;
  /** The agent's own branch in the private repository, now in the repository (null: it deleted it). */
  ownCommit: string | null;
}

/**
 * Cleans the private directory, reads its HEAD and own branch, and fetches the commits they reach
 * into the repository (only those: whatever else the agent made there stays behind). Null when
 * the directory is not one hydra can read any more.
 */
async function takeCommits(
  dir: string,
  commonDir: string,
  branch: string,
  git: (args: readonly string[], options?: RunGitOptions) => Promise<GitResult>,
  signal: AbortSignal | undefined,
  /** The commit the worktree's HEAD was on: the repository has it. */
  before: string,
): Promise<Taken | null> {
  if (!(await sanitize(dir, commonDir))) return null;
  const ref = await headRef(dir);
  const own = `refs/heads/${branch}`;
  const resolve = async (name: string): Promise<string | null> => {
    const known =
      name === 'HEAD' ? await headAsData(path.join(dir, 'HEAD'), dir) : await readRefAsData(dir, name);
    if (known !== null) return known;
    const result = await git(['--git-dir', dir, 'rev-parse', '--verify', '-q', `${name}^{commit}`], {
      okExitCodes: [1, 128],
    });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  };
  const headCommit = await resolve('HEAD');
  const ownCommit = ref === own ? headCommit : await resolve(own);
  const wanted = [
    ...new Set([headCommit, ownCommit].filter((sha): sha is string => sha !== null && sha !== before)),
  ];
  // The commits the repository has already (the agent committed nothing) need no fetch.
  const known =
    wanted.length === 0
      ? ''
      : (
          await git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
            input: `${wanted.join('\n')}\n`,
          })
        ).stdout;
  const missing = wanted.filter((sha) => !known.includes(`${sha} commit`));
  if (missing.length > 0) {
    await git(
      [
        '-c',
        'transfer.fsckObjects=true',
        'fetch',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-recurse-submodules',
        '--quiet',
        dir,
        ...missing,
      ],
      { ...(signal === undefined ? {} : { signal }), step: `taking the agent's commits from ${dir}` },
    );
  }
  return { headRef: ref, headCommit, ownCommit };
}

/**
 * Moves the agent's own branch to where its private branch is, and puts the worktree's HEAD where
 * the private HEAD was: on its own branch, or detached at the commit (it had switched to another
 * branch, perhaps its copy of one of the user's, or detached): no other ref moves.
 */
async function moveHead(
  admin: (args: readonly string[], options?: RunGitOptions) => Promise<GitResult>,
  branch: string,
  taken: Taken,
): Promise<WorktreeHead> {
  const own = `refs/heads/${branch}`;
  if (taken.ownCommit !== null)
    await admin(['update-ref', '-m', 'hydra: agent commits', own, taken.ownCommit]);
  if (taken.headRef === own) {
    await admin(['symbolic-ref', 'HEAD', own]);
    return { onOwnBranch: true, switchedTo: null };
  }
  if (taken.headCommit !== null) await admin(['update-ref', '--no-deref', 'HEAD', taken.headCommit]);
  const switchedTo = taken.headRef?.startsWith('refs/heads/') === true ? taken.headRef : null;
  return { onOwnBranch: false, switchedTo };
}

/**
 * The entry's index was the worktree's when the agent started; HEAD may have moved since (the
 * agent's commits). Its entries are brought to the new HEAD's tree where the two trees differ
 * (`read-tree -m`: stat data kept for every other file, so `git add -A` hashes only what changed),
 * or, when git refuses that, to HEAD's tree whole.
 */
async function refreshIndex(
  admin: (args: readonly string[], options?: RunGitOptions) => Promise<GitResult>,
  before: string,
  after: string,
): Promise<void> {
  if (after === before || after === '') return;
  const merged =
    before === ''
      ? { exitCode: 1 }
      : await admin(['read-tree', '-m', before, after], { okExitCodes: [1, 128] });
  if (merged.exitCode !== 0) await admin(['read-tree', after]);
}

/** Removes a worktree's private git directory, and `.git-private` once it is empty. */
export async function removePrivateGit(worktree: string): Promise<void> {
  const dir = privateGitDirOf(worktree);
  await rm(dir, { recursive: true, force: true });
  await rmdir(path.dirname(dir)).catch(() => undefined);
}

/**
 * A worktree left linked to its private repository (hydra was killed while the agent ran): its
 * commits are taken back as at the end of an agent and the worktree is linked to its entry again;
 * when they cannot be, the link alone is put back. Nothing when the worktree is not so linked.
 */
export async function repairPrivateGit(root: string, worktree: string): Promise<boolean> {
  const dotGit = path.join(worktree, '.git');
  const dir = privateGitDirOf(worktree);
  if ((await readFile(dotGit, 'utf8').catch(() => '')) !== pointerTo(dir)) return false;
  // The branch hydra named after the run and the agent (the worktree's folder names both).
  const branch = `hydra/${path.basename(path.dirname(worktree))}/${path.basename(worktree)}`;
  const back = await bringBackPrivateGit({ root, worktree, branch }).catch(() => null);
  if (back === null) {
    const entry = await worktreeEntry(await commonDirOf(root), worktree);
    if (entry !== null) await writeAtomic(dotGit, pointerTo(entry));
    await removePrivateGit(worktree);
  }
  trace(`git: ${worktree} linked to its entry again after a private repository was left`);
  return true;
}
