/**
 * What the contract puts back (checks/contract): which files of a result are the base's tests or
 * configure how tests run, and, for the files that also hold other things (package.json,
 * pyproject.toml, Cargo.toml, a Makefile), which parts. Pure: paths and texts in, texts out.
 *
 * Put back whole: every test file and test helper by the runners' naming rules (cross-test/rules.ts);
 * the runners' own config (`.npmrc`, `.yarnrc*`, `bunfig.toml`, `.pnpmfile.cjs`, vitest/vite, jest,
 * mocha, ava, tap, c8 and nyc configs, `setupTests.*`, `conftest.py`, `pytest.ini`, `pytest.toml`,
 * `setup.cfg`, `tox.ini`, `.cargo/config*`); what Python loads before any test (`sitecustomize.py`,
 * `usercustomize.py`, `*.pth`); a module at the root that shadows a runner or its plugins
 * (`pytest.py`, `_pytest/`, `pluggy/`, `unittest/`...) and anything committed under `node_modules/`;
 * the environment files tests read (`.env.test*`, `.env.testing`); and the script files a check runs
 * by path. Put back in part: package.json's test scripts (`test`, `pretest`, `posttest`, the scripts
 * a check names and every script those run) and its runner fields (`jest`, `mocha`, `ava`, `c8`,
 * `nyc`, `tap`); pyproject.toml's `[tool.pytest*]`; Cargo.toml's `[[test]]` and `[profile.test]`; a
 * Makefile's `test` target and the targets a check makes.
 */
import { RUNNER_RULES, isTestSupport } from '../cross-test/rules.js';

/** A test file or a test's helper by the runners' naming rules. */
export const isTestFile = (file: string): boolean =>
  RUNNER_RULES.some((rule) => rule.matches(file)) || isTestSupport(file);

const CONFIG_NAME = new RegExp(
  [
    String.raw`\.npmrc`,
    String.raw`\.yarnrc(?:\.ya?ml)?`,
    String.raw`bunfig\.toml`,
    String.raw`\.pnpmfile\.c?js`,
    String.raw`(?:vitest|vite)\.(?:config|workspace|setup)\.[cm]?[jt]s`,
    String.raw`vitest\.workspace\.json`,
    String.raw`jest\.(?:config|setup|preset)\.[cm]?[jt]s(?:on)?`,
    String.raw`setupTests\.[cm]?[jt]sx?`,
    String.raw`\.mocharc(?:\.[a-z]+)?`,
    String.raw`ava\.config\.[cm]?js`,
    String.raw`\.taprc(?:\.[a-z]+)?`,
    String.raw`\.c8rc(?:\.json)?`,
    String.raw`\.nycrc(?:\.[a-z]+)?`,
    String.raw`conftest\.py`,
    String.raw`\.?pytest\.(?:ini|toml)`,
    String.raw`setup\.cfg`,
    String.raw`tox\.ini`,
    String.raw`sitecustomize\.py`,
    String.raw`usercustomize\.py`,
    String.raw`[^/]*\.pth`,
    String.raw`\.env\.test(?:\.[\w.-]+)?`,
    String.raw`\.env\.testing`,
  ]
    .map((name) => `(?:^|/)${name}$`)
    .join('|'),
);

/** At the root, `python3 -m pytest` imports these from the checkout before the installed ones. */
const ROOT_SHADOW = /^(?:pytest|_pytest|pluggy|iniconfig|unittest|doctest)(?:\.py|\/.*)$/;

/** A file that configures how tests run (put back whole): see the module comment. */
export const isTestConfig = (file: string): boolean =>
  CONFIG_NAME.test(file) ||
  ROOT_SHADOW.test(file) ||
  /(?:^|\/)node_modules\//.test(file) ||
  /(?:^|\/)\.cargo\/config(?:\.toml)?$/.test(file);

const baseName = (file: string): string => file.slice(file.lastIndexOf('/') + 1);

/** A file the contract puts back in part, and how. */
export type PartialKind = 'package.json' | 'pyproject.toml' | 'Cargo.toml' | 'Makefile';

export const partialKindOf = (file: string): PartialKind | null => {
  const name = baseName(file);
  if (name === 'package.json') return 'package.json';
  if (name === 'pyproject.toml') return 'pyproject.toml';
  if (name === 'Cargo.toml') return 'Cargo.toml';
  if (['Makefile', 'makefile', 'GNUmakefile'].includes(name)) return 'Makefile';
  return null;
};

/** package.json fields that configure a test runner. */
const RUNNER_FIELDS = ['jest', 'mocha', 'ava', 'c8', 'nyc', 'tap'] as const;

/** `npm run x`, `npm test`, `yarn x`, `pnpm run x`, `bun run x`: the scripts a script text runs. */
const scriptsRunBy = (text: string): string[] =>
  [
    ...text.matchAll(
      /\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+(?:--\S+\s+)*)?([\w:.-]+)|\bnpm\s+(t|tst|test)\b/g,
    ),
  ]
    .map((match) => (match[2] === undefined ? (match[1] ?? '') : 'test'))
    .map((name) => (['t', 'tst'].includes(name) ? 'test' : name))
    .filter((name) => name !== '' && !['run', 'install', 'ci', 'exec', 'x'].includes(name));

type Json = Record<string, unknown>;

const parseObject = (text: string | null): Json | null => {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
};

const scriptsOf = (json: Json | null): Record<string, unknown> => {
  const scripts = json?.['scripts'];
  return scripts !== null && typeof scripts === 'object' ? (scripts as Record<string, unknown>) : {};
};

/** The test scripts: test's and the checks', with their pre/post scripts and every script they run, on either side. */
const testScripts = (base: Json | null, result: Json | null, named: readonly string[]): string[] => {
  const found = new Set<string>();
  const queue = ['test', ...named];
  while (queue.length > 0) {
    const name = queue.shift() ?? '';
    if (found.has(name)) continue;
    for (const each of [name, `pre${name}`, `post${name}`]) {
      found.add(each);
      for (const side of [base, result]) {
        const text = scriptsOf(side)[each];
        if (typeof text === 'string') queue.push(...scriptsRunBy(text).filter((next) => !found.has(next)));
      }
    }
  }
  return [...found];
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The indentation package.json was written with (two spaces when it cannot tell). */
const indentOf = (text: string): string | number => {
  const match = /^\{\s*\n([ \t]+)"/.exec(text);
  return match?.[1] ?? 2;
};

/**
 * The result's package.json with its test scripts and runner fields put back to the base's (a field
 * the base has not is removed); the text unchanged when none differs. A result whose package.json
 * does not parse gets the base's whole.
 */
export const restorePackageJson = (
  baseText: string | null,
  resultText: string,
  namedScripts: readonly string[],
): { text: string | null; changed: string[] } => {
  const base = parseObject(baseText);
  const result = parseObject(resultText);
  if (result === null) return { text: baseText, changed: ['package.json (does not parse)'] };
  const changed: string[] = [];
  const scripts = { ...scriptsOf(result) };
  for (const name of testScripts(base, result, namedScripts)) {
    const before = scriptsOf(base)[name];
    if (same(before, scripts[name])) continue;
    changed.push(`scripts.${name}`);
    if (before === undefined) delete scripts[name];
    else scripts[name] = before;
  }
  const fixed: Json = { ...result, ...(changed.length > 0 ? { scripts } : {}) };
  for (const field of RUNNER_FIELDS) {
    if (same(base?.[field], result[field])) continue;
    changed.push(field);
    if (base?.[field] === undefined) delete fixed[field];
    else fixed[field] = base[field];
  }
  if (changed.length === 0) return { text: resultText, changed };
  return { text: `${JSON.stringify(fixed, null, indentOf(resultText))}\n`, changed };
};

/** The header of a TOML table line (`tool.pytest.ini_options`, `test` for `[[test]]`), or null. */
const tomlHeader = (line: string): string | null => {
  const match = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
  return match?.[1] ?? null;
};

/** The lines of the tables `wanted` picks, and the other lines, of a TOML text. */
const splitToml = (text: string, wanted: (header: string) => boolean): { picked: string; rest: string } => {
  const picked: string[] = [];
  const rest: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    const header = tomlHeader(line);
    if (header !== null) inside = wanted(header);
    (inside ? picked : rest).push(line);
  }
  return { picked: picked.join('\n').trim(), rest: rest.join('\n').trimEnd() };
};

/** The tables of each partly restored TOML file, and what they are called in a listing. */
export const TOML_TABLES: Record<
  'pyproject.toml' | 'Cargo.toml',
  { wanted: (header: string) => boolean; what: string }
> = {
  'pyproject.toml': { wanted: (header) => header.startsWith('tool.pytest'), what: '[tool.pytest]' },
  'Cargo.toml': {
    wanted: (header) => header === 'test' || header === 'profile.test',
    what: '[[test]]/[profile.test]',
  },
};

/** The result's TOML text with the wanted tables put back to the base's; unchanged when they are the same. */
export const restoreToml = (
  baseText: string | null,
  resultText: string,
  wanted: (header: string) => boolean,
): string | null => {
  const base = splitToml(baseText ?? '', wanted).picked;
  const result = splitToml(resultText, wanted);
  if (base === result.picked) return null;
  return `${[result.rest, base].filter((part) => part !== '').join('\n\n')}\n`;
};

/** A Makefile's rule for `target` (its line and recipe), or null. */
const makeRuleRange = (lines: readonly string[], target: string): [number, number] | null => {
  const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const start = lines.findIndex((line) => new RegExp(`^(?:[^\\s:#=]+\\s+)*${escaped}\\s*:(?!=)`).test(line));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && (lines[end]?.startsWith('\t') === true || lines[end]?.trim() === '')) end += 1;
  return [start, end];
};

/** The result's Makefile with each target's rule put back to the base's; null when none differs. */
export const restoreMakeTargets = (
  baseText: string | null,
  resultText: string,
  targets: readonly string[],
): { text: string; changed: string[] } | null => {
  const baseLines = (baseText ?? '').split('\n');
  let lines = resultText.split('\n');
  const changed: string[] = [];
  for (const target of targets) {
    const baseRange = makeRuleRange(baseLines, target);
    const ownRange = makeRuleRange(lines, target);
    const baseRule = baseRange === null ? [] : baseLines.slice(...baseRange);
    const ownRule = ownRange === null ? [] : lines.slice(...ownRange);
    if (baseRule.join('\n').trimEnd() === ownRule.join('\n').trimEnd()) continue;
    changed.push(`target ${target}`);
    lines =
      ownRange === null
        ? [...lines, '', ...baseRule]
        : [...lines.slice(0, ownRange[0]), ...baseRule, ...lines.slice(ownRange[1])];
  }
  return changed.length === 0 ? null : { text: lines.join('\n'), changed };
};
