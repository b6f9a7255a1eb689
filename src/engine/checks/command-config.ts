/**
 * What a check's command is made of besides its own words: the `package.json` script it names, the
 * test runner's config, the Makefile target, a script file, hydra.toml. A result that changes any
 * of it no longer runs what the baseline ran (an `echo` of passing counts in `scripts.test` wins
 * every check), so those changes are found here, by reading both commits with git.
 */
import type { CheckSpec } from '../check-types.js';
import { runGit, splitZ } from '../git/index.js';

/** Runner words (in the command or the script it names) and the files that configure them. */
const RUNNER_CONFIGS: ReadonlyArray<{ runner: RegExp; files: RegExp }> = [
  { runner: /\bvitest\b/, files: /^(?:.*\/)?(?:vitest|vite)\.(?:config|workspace)\.[cm]?[jt]s$/ },
  { runner: /\bjest\b/, files: /^(?:.*\/)?jest\.config\.[cm]?[jt]s(?:on)?$/ },
  { runner: /\bmocha\b/, files: /^(?:.*\/)?\.mocharc(?:\.[a-z]+)?$/ },
  {
    runner: /\b(?:pytest|py\.test|tox)\b/,
    files: /^(?:(?:.*\/)?conftest\.py|pytest\.ini|tox\.ini|setup\.cfg)$/,
  },
];

/** `npm test`, `npm run x`, `pnpm x`, `yarn x`, `bun run x`: the package.json script a command runs. */
export const scriptOf = (words: readonly string[]): string | null => {
  const [tool, first, second] = words;
  if (tool === undefined || !['npm', 'pnpm', 'yarn', 'bun'].includes(tool)) return null;
  if (first === 'run' || first === 'run-script') return second ?? null;
  if (first === 'test' || first === 't' || first === 'tst') return tool === 'bun' ? null : 'test';
  // `pnpm lint`, `yarn lint`: a script name right after the tool.
  if (tool !== 'npm' && tool !== 'bun' && first !== undefined && /^[\w:.-]+$/.test(first)) return first;
  return null;
};

/** The Makefile target `make [target]` runs (null: the first one). */
export const makeTargetOf = (words: readonly string[]): string | null | undefined => {
  if (words[0] !== 'make') return undefined;
  return words.slice(1).find((word) => !word.startsWith('-') && !word.includes('=')) ?? null;
};

/** Script files the command runs by path (`./run-tests.sh`, `sh scripts/test.sh`). */
export const scriptFiles = (words: readonly string[]): string[] =>
  words.filter(
    (word, index) =>
      /\.(?:sh|bash)$/.test(word) || (index === 0 && word.includes('/') && !word.startsWith('/')),
  );

const showFile = async (root: string, commit: string, file: string): Promise<string | null> => {
  const result = await runGit(root, ['show', `${commit}:${file}`], { okExitCodes: [128] }).catch(() => null);
  return result === null || result.exitCode !== 0 ? null : result.stdout;
};

const parseJson = (text: string | null): Record<string, unknown> | null => {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

const field = (json: Record<string, unknown> | null, ...keys: string[]): string => {
  let value: unknown = json;
  for (const key of keys)
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return JSON.stringify(value ?? null);
};

/** A TOML table's text (`[tool.pytest.ini_options]` up to the next table), or '' without one. */
const tomlSection = (text: string | null, prefix: string): string => {
  if (text === null) return '';
  const lines = text.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (/^\s*\[/.test(line)) inside = line.trim().startsWith(`[${prefix}`);
    if (inside) out.push(line);
  }
  return out.join('\n');
};

/** A Makefile target's rule and recipe (null: the first target's). */
const makeRule = (text: string | null, target: string | null): string => {
  if (text === null) return '';
  const lines = text.split('\n');
  const start =
    target === null
      ? lines.findIndex((line) => /^[A-Za-z0-9_.-]+\s*:/.test(line) && !line.startsWith('.'))
      : lines.findIndex((line) => new RegExp(`^(?:.*\\s)?${target.replace(/[.]/g, '\\.')}\\s*:`).test(line));
  if (start < 0) return '';
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('\t') && line.trim() !== '');
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
};

interface Sources {
  root: string;
  base: string;
  commit: string;
  changed: ReadonlySet<string>;
}

/** Both commits' text of a file, read only when the diff touches it. */
const bothSides = async (src: Sources, file: string): Promise<[string | null, string | null] | null> =>
  src.changed.has(file)
    ? [await showFile(src.root, src.base, file), await showFile(src.root, src.commit, file)]
    : null;

/** What of one check's command changed between the base and the result. */
async function changesFor(spec: CheckSpec, src: Sources): Promise<string[]> {
  const words = spec.run.trim().split(/\s+/);
  const found: string[] = [];
  let commandText = spec.run;
  const packageJson = await bothSides(src, 'package.json');
  const script = scriptOf(words);
  if (script !== null) {
    const base = parseJson(packageJson?.[0] ?? (await showFile(src.root, src.base, 'package.json')));
    commandText += ` ${field(base, 'scripts', script)}`;
    if (packageJson !== null) {
      const result = parseJson(packageJson[1]);
      for (const name of [`pre${script}`, script, `post${script}`])
        if (field(base, 'scripts', name) !== field(result, 'scripts', name))
          found.push(`package.json scripts.${name}`);
    }
  }
  if (/\bjest\b/.test(commandText) && packageJson !== null) {
    if (field(parseJson(packageJson[0]), 'jest') !== field(parseJson(packageJson[1]), 'jest'))
      found.push('package.json jest');
  }
  for (const { runner, files } of RUNNER_CONFIGS)
    if (runner.test(commandText)) for (const file of src.changed) if (files.test(file)) found.push(file);
  if (/\b(?:pytest|py\.test|tox)\b/.test(commandText)) {
    const pyproject = await bothSides(src, 'pyproject.toml');
    if (
      pyproject !== null &&
      tomlSection(pyproject[0], 'tool.pytest') !== tomlSection(pyproject[1], 'tool.pytest')
    )
      found.push('pyproject.toml [tool.pytest]');
  }
  const target = makeTargetOf(words);
  if (target !== undefined) {
    for (const file of ['Makefile', 'makefile', 'GNUmakefile']) {
      const sides = await bothSides(src, file);
      if (sides !== null && makeRule(sides[0], target) !== makeRule(sides[1], target))
        found.push(`${file} target ${target ?? '(default)'}`);
    }
  }
  for (const file of scriptFiles(words)) {
    const clean = file.replace(/^\.\//, '');
    if (src.changed.has(clean)) found.push(clean);
  }
  // Where the race's checks are configured: a result that edits it changes the next race's checks.
  if (src.changed.has('hydra.toml')) found.push('hydra.toml');
  return [...new Set(found)];
}

/**
 * For each check (by name), what of its command the result changed against the base; a check with
 * no such change is left out. Never throws: a git failure reads as no change found.
 */
export async function commandChanges(
  root: string,
  base: string,
  commit: string,
  specs: readonly CheckSpec[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (specs.length === 0 || base === commit) return out;
  try {
    const diff = await runGit(root, ['diff', '--name-only', '-z', '--no-renames', base, commit]);
    const src: Sources = { root, base, commit, changed: new Set(splitZ(diff.stdout)) };
    if (src.changed.size === 0) return out;
    for (const spec of specs) {
      const changes = await changesFor(spec, src);
      if (changes.length > 0) out.set(spec.name, changes);
    }
  } catch {
    // Not knowing is not evidence of tampering.
  }
  return out;
}
