/**
 * `--check auto`: the project's own test command, found from its files in this order of evidence
 * (hydra.toml's checks come first; the config layer sees those, see config/auto-checks.ts):
 * `package.json` `scripts.test` run by the package manager its lockfile names, pytest's config,
 * `go.mod`, `Cargo.toml`, a Makefile `test` target. Only reads files: whether the command may run
 * (the file it came from is the repository's code) is the trust rule's to say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DetectedCheck {
  /** The check's name: `test`. */
  name: string;
  /** The command to run, e.g. `npm test`, `python3 -m pytest`. */
  run: string;
  /** The file that says so (relative to the repository root): the one to trust. */
  source: string;
  /** Why, in a few words: `package.json scripts.test "vitest run", package-lock.json`. */
  evidence: string;
}

/** Every file detection reads, in its order; `hydra trust` accepts these besides hydra.toml. */
export const DETECTION_SOURCES: readonly string[] = [
  'package.json',
  'pyproject.toml',
  'pytest.ini',
  'setup.cfg',
  'tox.ini',
  'go.mod',
  'Cargo.toml',
  'GNUmakefile',
  'Makefile',
  'makefile',
];

const readText = (root: string, file: string): string | null => {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return null;
  }
};

/** npm's default script when `npm init` was given no test command: it only fails. */
const NPM_DEFAULT_TEST = /no test specified/;

/** The package manager a lockfile names (the first present), npm without one. */
const LOCKFILES: ReadonlyArray<{ file: string; manager: string }> = [
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'bun.lockb', manager: 'bun' },
  { file: 'bun.lock', manager: 'bun' },
];

const fromPackageJson = (root: string): DetectedCheck | null => {
  const text = readText(root, 'package.json');
  if (text === null) return null;
  let script: unknown;
  try {
    script = (JSON.parse(text) as { scripts?: { test?: unknown } }).scripts?.test;
  } catch {
    return null;
  }
  if (typeof script !== 'string' || script.trim() === '' || NPM_DEFAULT_TEST.test(script)) return null;
  const lock = LOCKFILES.find((entry) => readText(root, entry.file) !== null);
  const manager = lock?.manager ?? 'npm';
  return {
    name: 'test',
    run: `${manager} test`,
    source: 'package.json',
    evidence: `package.json scripts.test ${JSON.stringify(script)}, ${lock === undefined ? 'no lockfile' : lock.file}`,
  };
};

/** pytest's own config files, or a pyproject.toml that configures or names pytest. */
const PYTEST_FILES: ReadonlyArray<{ file: string; says: (text: string) => boolean; what: string }> = [
  { file: 'pyproject.toml', says: (text) => /\bpytest\b/.test(text), what: 'names pytest' },
  { file: 'pytest.ini', says: () => true, what: "is pytest's config" },
  { file: 'setup.cfg', says: (text) => /^\[tool:pytest\]/m.test(text), what: 'has [tool:pytest]' },
  { file: 'tox.ini', says: (text) => /^\[pytest\]/m.test(text), what: 'has [pytest]' },
];

const fromPytest = (root: string): DetectedCheck | null => {
  for (const { file, says, what } of PYTEST_FILES) {
    const text = readText(root, file);
    if (text !== null && says(text))
      return { name: 'test', run: 'python3 -m pytest', source: file, evidence: `${file} ${what}` };
  }
  return null;
};

const fromFile =
  (file: string, run: string) =>
  (root: string): DetectedCheck | null =>
    readText(root, file) === null ? null : { name: 'test', run, source: file, evidence: `${file} exists` };

/** A Makefile with a `test:` target (GNU make's order of names). */
const fromMakefile = (root: string): DetectedCheck | null => {
  for (const file of ['GNUmakefile', 'makefile', 'Makefile']) {
    const text = readText(root, file);
    if (text === null) continue;
    return /^test\s*:(?!=)/m.test(text)
      ? { name: 'test', run: 'make test', source: file, evidence: `${file} has a test target` }
      : null;
  }
  return null;
};

const DETECTORS: ReadonlyArray<(root: string) => DetectedCheck | null> = [
  fromPackageJson,
  fromPytest,
  fromFile('go.mod', 'go test ./...'),
  fromFile('Cargo.toml', 'cargo test'),
  fromMakefile,
];

/** The project's test command from the files at `root`, the first evidence in order; null when none. */
export const detectTestCommand = (root: string): DetectedCheck | null => {
  for (const detect of DETECTORS) {
    const found = detect(root);
    if (found !== null) return found;
  }
  return null;
};
