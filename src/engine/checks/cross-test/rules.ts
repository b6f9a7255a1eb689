/**
 * Which files of a result are tests, and how to run one: the test runners' own naming rules (their
 * default discovery), in one table. docs/cross-testing.md prints the same table for users.
 *
 * | runner  | its tests (default discovery)                                                   | one file's command                         |
 * | ------- | ------------------------------------------------------------------------------- | ------------------------------------------ |
 * | node    | `*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js`, `test/**\/*.js`   | `node --test <file>`                       |
 * | vitest  | `*.test.*`, `*.spec.*` (`.js .cjs .mjs .ts .jsx .tsx …`)                         | `npx --no-install vitest run <file>`       |
 * | jest    | `__tests__/**`, `*.test.*`, `*.spec.*`, `test.*`, `spec.*`                       | `npx --no-install jest --runTestsByPath <file>` |
 * | mocha   | `test/*.js` (`.cjs`, `.mjs`)                                                     | `npx --no-install mocha <file>`            |
 * | pytest  | `test_*.py`, `*_test.py`                                                         | `python3 -m pytest <file>`                 |
 * | go      | `*_test.go`                                                                      | `go test ./<dir> -run '^(TestA\|TestB)$'`   |
 * | cargo   | `tests/*.rs` (integration test targets)                                          | `cargo test --test <name>`                 |
 *
 * A check of the race that invokes the runner lends its prefix (`pnpm vitest run`, `uv run pytest`,
 * `node --import tsx --test`), with its `--flag=value` words after the runner; `npm test` and
 * friends are read through the base's `package.json` script. JavaScript files go to one runner: the
 * one a check runs, else the one package.json depends on (vitest, jest, mocha), else `node --test`.
 * Rust unit tests (`#[cfg(test)]` in `src/`) are not found: their file is not a test file by name.
 */

export type RunnerId = 'node' | 'vitest' | 'jest' | 'mocha' | 'pytest' | 'go' | 'cargo';

export interface RunnerRule {
  runner: RunnerId;
  /** JavaScript runners share one set of files: only one of them applies to a project. */
  javascript: boolean;
  /** The runner's default discovery, as a test of a repository-relative path. */
  matches: (file: string) => boolean;
  /** The words that start it when no check names it. */
  defaultPrefix: readonly string[];
  /** Where a check's command invokes it: the index of its last word (`--test`, `run`, `pytest`), or -1. */
  invokedAt: (words: readonly string[]) => number;
  /** The words after the prefix that run one file (null: nothing to run in it). */
  fileArgs: (file: string, content: string) => string[] | null;
}

const JS = String.raw`(?:c|m)?js`;
const JS_TS = String.raw`(?:c|m)?[jt]sx?`;
const NOT_VENDORED = (file: string): boolean => !/(?:^|\/)node_modules\//.test(file);
const pattern =
  (...sources: string[]) =>
  (file: string): boolean =>
    NOT_VENDORED(file) && sources.some((source) => new RegExp(source).test(file));

/** The word whose basename is `name` (`./node_modules/.bin/vitest`, `node`). */
const wordIs = (word: string | undefined, name: RegExp): boolean =>
  word !== undefined && name.test(word.slice(word.lastIndexOf('/') + 1));

/** A relative path a runner will not take for a flag. */
const asPath = (file: string): string => (file.startsWith('-') ? `./${file}` : file);

const GO_TEST = /^func\s+(Test[A-Za-z0-9_]*)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm;

export const RUNNER_RULES: readonly RunnerRule[] = [
  {
    runner: 'node',
    javascript: true,
    matches: pattern(
      String.raw`^(?:.*/)?[^/]*[.\-_]test\.${JS}$`,
      String.raw`^(?:.*/)?test-[^/]*\.${JS}$`,
      String.raw`^(?:.*/)?test\.${JS}$`,
      String.raw`(?:^|/)test/(?:.*/)?[^/]*\.${JS}$`,
    ),
    defaultPrefix: ['node', '--test'],
    invokedAt: (words) => (wordIs(words[0], /^node$/) ? words.indexOf('--test') : -1),
    fileArgs: (file) => [asPath(file)],
  },
  {
    runner: 'vitest',
    javascript: true,
    matches: pattern(String.raw`^(?:.*/)?[^/]*\.(?:test|spec)\.${JS_TS}$`),
    defaultPrefix: ['npx', '--no-install', 'vitest', 'run'],
    invokedAt: (words) => {
      const at = words.findIndex((word) => wordIs(word, /^vitest$/));
      return at >= 0 && words[at + 1] === 'run' ? at + 1 : at;
    },
    fileArgs: (file) => [asPath(file)],
  },
  {
    runner: 'jest',
    javascript: true,
    matches: pattern(
      String.raw`(?:^|/)__tests__/(?:.*/)?[^/]*\.${JS_TS}$`,
      String.raw`^(?:.*/)?(?:[^/]*\.)?(?:spec|test)\.${JS_TS}$`,
    ),
    defaultPrefix: ['npx', '--no-install', 'jest'],
    invokedAt: (words) => words.findIndex((word) => wordIs(word, /^jest$/)),
    fileArgs: (file) => ['--runTestsByPath', asPath(file)],
  },
  {
    runner: 'mocha',
    javascript: true,
    matches: pattern(String.raw`^test/[^/]*\.${JS}$`),
    defaultPrefix: ['npx', '--no-install', 'mocha'],
    invokedAt: (words) => words.findIndex((word) => wordIs(word, /^mocha$/)),
    fileArgs: (file) => [asPath(file)],
  },
  {
    runner: 'pytest',
    javascript: false,
    matches: pattern(String.raw`^(?:.*/)?(?:test_[^/]*|[^/]*_test)\.py$`),
    defaultPrefix: ['python3', '-m', 'pytest'],
    invokedAt: (words) => words.findIndex((word) => wordIs(word, /^(?:pytest|py\.test)$/)),
    fileArgs: (file) => [asPath(file)],
  },
  {
    runner: 'go',
    javascript: false,
    matches: pattern(String.raw`^(?:.*/)?[^/]*_test\.go$`),
    defaultPrefix: ['go', 'test'],
    invokedAt: (words) => (wordIs(words[0], /^go$/) && words[1] === 'test' ? 1 : -1),
    fileArgs: (file, content) => {
      // Only the file's own tests: the package's others (failing on the base or not) are not its evidence.
      const names = [...content.matchAll(GO_TEST)].map((match) => match[1] ?? '');
      if (names.length === 0) return null;
      const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
      return [`./${dir}`, '-run', `^(${names.join('|')})$`];
    },
  },
  {
    runner: 'cargo',
    javascript: false,
    matches: pattern(String.raw`(?:^|/)tests/[^/]+\.rs$`),
    defaultPrefix: ['cargo', 'test'],
    invokedAt: (words) => (wordIs(words[0], /^cargo$/) && words[1] === 'test' ? 1 : -1),
    fileArgs: (file) => {
      const at = file.lastIndexOf('tests/');
      const crate = file.slice(0, at);
      const target = file.slice(at + 'tests/'.length, -'.rs'.length);
      return [...(crate === '' ? [] : ['--manifest-path', `${crate}Cargo.toml`]), '--test', target];
    },
  },
];

/** Files a test needs beside it (helpers, fixtures, conftest.py): copied with the tests, never run. */
export const isTestSupport = (file: string): boolean =>
  NOT_VENDORED(file) &&
  (/(?:^|\/)(?:tests?|__tests__|__fixtures__|fixtures|testdata|spec)\//.test(file) ||
    /(?:^|\/)conftest\.py$/.test(file));

/** The words of a command line, split like checkCommand splits them (no shell, no quotes). */
const wordsOf = (line: string): string[] => line.trim().split(/\s+/).filter(Boolean);

/** `a && b; c || d`: the simple commands of a line (a check may build before it tests). */
const commandsOf = (line: string): string[][] =>
  line
    .split(/&&|\|\||;/)
    .map(wordsOf)
    .filter((words) => words.length > 0);

/** A runner a command line invokes, with the prefix it lends (its `--flag=value` words kept). */
export interface Invocation {
  rule: RunnerRule;
  prefix: string[];
}

/** The runners a command line invokes, in order. */
export const invocationsIn = (line: string): Invocation[] =>
  commandsOf(line).flatMap((words) =>
    RUNNER_RULES.flatMap((rule): Invocation[] => {
      const at = rule.invokedAt(words);
      if (at < 0) return [];
      const prefix = [
        ...words.slice(0, at + 1),
        ...words.slice(at + 1).filter((word) => /^--[\w-]+=/.test(word)),
      ];
      // A JavaScript runner named bare (a package.json script) is found in node_modules/.bin by npx.
      const bare = rule.javascript && rule.runner !== 'node' && at === 0;
      const watchless = rule.runner === 'vitest' && !prefix.includes('run') ? ['run'] : [];
      return [{ rule, prefix: [...(bare ? ['npx', '--no-install'] : []), ...prefix, ...watchless] }];
    }),
  );

/** The JavaScript runner a package.json depends on (vitest, jest, mocha), or null. */
export const dependedRunner = (packageJson: Record<string, unknown> | null): RunnerId | null => {
  if (packageJson === null) return null;
  const names = new Set(
    ['dependencies', 'devDependencies'].flatMap((key) => {
      const deps = packageJson[key];
      return deps !== null && typeof deps === 'object' ? Object.keys(deps) : [];
    }),
  );
  return (['vitest', 'jest', 'mocha'] as const).find((name) => names.has(name)) ?? null;
};

/** Quotes a word for `sh -c` when it needs it (a file name is an agent's, so anything can be in it). */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
