/**
 * The commits a merge would bring into the user's history, and the secrets each one adds. The net
 * diff is not enough: a key committed and deleted in a later commit is in no net diff, yet a
 * fast-forward puts it in the user's history for good. Each commit's own diff is read (`git log -p`,
 * merges against their first parent) and its added lines are matched against the shapes redaction
 * removes (records/redact.ts: private key blocks, vendor API keys and tokens).
 */
import type { BroughtCommit, SecretFound } from '../git/index.js';
import { runGit } from '../git/index.js';
import { createHash } from 'node:crypto';
import { secretsIn } from '../records/index.js';
import type { KnownSecret } from '../records/index.js';
import { MIN_SECRET_LENGTH } from '../setup/index.js';

/** Commits listed at most (an agent's branch holds a handful). */
const MAX_COMMITS = 200;
const RECORD = '\u0000\u0000';

/** `+++ b/path` or `--- a/path` (quoted by git when unusual): the path. */
const patchPath = (line: string): string | null => {
  const raw = line.slice(4).trim();
  if (raw === '/dev/null') return null;
  const unquoted = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  return unquoted.replace(/^[ab]\//, '');
};

/** The files of one commit's patch and the lines it adds to each. */
const addedLines = (patch: string): Map<string, string[]> => {
  const files = new Map<string, string[]>();
  let current: string[] | null = null;
  let from: string | null = null;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = null;
      from = null;
    } else if (line.startsWith('--- ') && current === null) {
      from = patchPath(line);
    } else if (line.startsWith('+++ ') && current === null) {
      const file = patchPath(line) ?? from;
      if (file === null) continue;
      current = files.get(file) ?? [];
      files.set(file, current);
    } else if (line.startsWith('+') && current !== null) {
      current.push(line.slice(1));
    } else if (line.startsWith('Binary files ') && current === null) {
      const match = / and (?:"?b\/)?(.+?)"? differ$/.exec(line);
      if (match?.[1] !== undefined) files.set(match[1], []);
    }
  }
  return files;
};

/**
 * Values known to be secret besides the shapes: those of files copied from the user's checkout
 * (setup/copy.ts), and hashes of recorded values the checkout no longer holds (hash → name).
 */
export interface KnownValues {
  values: readonly KnownSecret[];
  hashes: ReadonlyMap<string, string>;
}

const NO_VALUES: KnownValues = { values: [], hashes: new Map() };

/** A value is matched whole; a hashed one as a token of the text (split at spaces, quotes, `=`, `:`, `,`). */
const knownIn = (text: string, known: KnownValues): string[] => {
  const found = known.values.filter((secret) => text.includes(secret.value)).map((secret) => secret.name);
  if (known.hashes.size > 0)
    for (const token of new Set(text.split(/[\s"'`=:,;()[\]{}<>]+/)))
      if (token.length >= MIN_SECRET_LENGTH) {
        const name = known.hashes.get(createHash('sha256').update(token).digest('hex'));
        if (name !== undefined) found.push(name);
      }
  return [...new Set(found)].map((name) => `the value of ${name}`);
};

const scanFiles = (files: Map<string, string[]>, known: KnownValues = NO_VALUES): SecretFound[] =>
  [...files].flatMap(([file, lines]) => {
    const text = lines.join('\n');
    return [...secretsIn(text), ...knownIn(text, known)].map((label) => ({ file, label }));
  });

/**
 * The commits `tip` has that `from` does not, oldest first, each with its files and the secrets it
 * adds. The patch is read without the repository's diff drivers or textconv (an agent could set one).
 */
export async function commitsBrought(
  root: string,
  from: string,
  tip: string,
  known: KnownValues = NO_VALUES,
): Promise<BroughtCommit[]> {
  const { stdout } = await runGit(root, [
    '-c',
    'core.quotePath=false',
    'log',
    '--reverse',
    `--max-count=${MAX_COMMITS}`,
    '--format=%x00%x00%H%x00%s',
    '--diff-merges=first-parent',
    '-p',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    `${from}..${tip}`,
    '--',
  ]);
  return stdout
    .split(RECORD)
    .filter((record) => record.trim() !== '')
    .map((record) => {
      const [commit = '', rest = ''] = record.split('\u0000');
      const newline = rest.indexOf('\n');
      const subject = newline < 0 ? rest : rest.slice(0, newline);
      const files = addedLines(newline < 0 ? '' : rest.slice(newline + 1));
      return { commit, subject, files: [...files.keys()], secrets: scanFiles(files, known) };
    });
}

/** The secrets a plain diff between two commits or trees adds (a squash brings only that). */
export async function secretsInDiff(
  root: string,
  from: string,
  to: string,
  known: KnownValues = NO_VALUES,
): Promise<SecretFound[]> {
  const { stdout } = await runGit(root, [
    '-c',
    'core.quotePath=false',
    'diff',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    from,
    to,
    '--',
  ]);
  return scanFiles(addedLines(stdout), known);
}
