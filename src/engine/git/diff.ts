/** What a result changed: per-file counts and the whole patch, asked of the repository. */
import { runGit, splitZ } from './git.js';

export interface FileStat {
  path: string;
  insertions: number;
  deletions: number;
  /** Binary files have no line counts. */
  binary?: boolean;
}

/** A secret a commit adds (results/secret-scan.ts). */
export interface SecretFound {
  file: string;
  /** What it looks like: `private key`, `github token`. */
  label: string;
}

/** A commit a merge would bring into the base branch. */
export interface BroughtCommit {
  commit: string;
  subject: string;
  /** Files its diff touches. */
  files: string[];
  /** Secrets its diff adds (empty for nearly every commit). */
  secrets: SecretFound[];
}

export interface DiffSummary {
  filesChanged: number;
  insertions: number;
  deletions: number;
  files: FileStat[];
  /**
   * The commits of the result a merge would bring into the base branch, oldest first, each with the
   * secrets it adds (results/secret-scan.ts): the net diff hides a key committed and deleted later.
   */
  commits?: BroughtCommit[];
  /** The result's tree: two results with the same tree made the same change (absent in older records). */
  tree?: string;
}

/** Parses `git diff --numstat -z --no-renames`. */
const parseNumstat = (text: string): DiffSummary => {
  const files: FileStat[] = [];
  for (const entry of splitZ(text)) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (match === null) continue;
    const [, ins = '0', del = '0', file = ''] = match;
    const binary = ins === '-' && del === '-';
    files.push({
      path: file,
      insertions: binary ? 0 : Number(ins),
      deletions: binary ? 0 : Number(del),
      ...(binary ? { binary: true } : {}),
    });
  }
  return {
    filesChanged: files.length,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    files,
  };
};

/**
 * The result's diff against `base`, with its tree (`--auto-merge best` tells the same change from a
 * coin flip by it): asked beside the diff, at once, unless the caller knows it (`knownTree`: a
 * result's commit asks for its tree with its id, result-commit.ts, one git process fewer).
 */
export async function diffSummary(
  root: string,
  base: string,
  commit: string,
  knownTree?: Promise<string | null>,
): Promise<DiffSummary> {
  if (commit === base) return parseNumstat('');
  const [numstat, tree] = await Promise.all([
    runGit(root, ['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', base, commit]),
    knownTree ??
      runGit(root, ['rev-parse', '--verify', `${commit}^{tree}`]).then(
        ({ stdout }) => stdout.trim(),
        () => null,
      ),
  ]);
  const summary = parseNumstat(numstat.stdout);
  return tree === null || tree === '' ? summary : { ...summary, tree };
}

export async function fullPatch(root: string, base: string, commit: string): Promise<string> {
  const { stdout } = await runGit(root, ['diff', '--no-color', '--no-ext-diff', base, commit]);
  return stdout;
}
