/** The contract's rules: which files are put back whole, and the parts of package.json, TOML and Makefiles. */
import { describe, expect, it } from 'vitest';
import {
  TOML_TABLES,
  isTestConfig,
  isTestFile,
  restoreMakeTargets,
  restorePackageJson,
  restoreToml,
} from '../../../../../src/engine/checks/contract/files.js';
import { addedMarkers } from '../../../../../src/engine/checks/contract/markers.js';

describe('files the contract puts back whole', () => {
  it.each([
    'lib.test.js',
    'test/helpers.js',
    'src/__tests__/a.ts',
    'tests/test_calc.py',
    'tests/helpers.py',
    'pkg/calc_test.go',
    'tests/it.rs',
  ])('%s is a test file', (file) => expect(isTestFile(file)).toBe(true));

  it.each([
    '.npmrc',
    '.yarnrc.yml',
    'bunfig.toml',
    'vitest.config.ts',
    'jest.config.js',
    '.mocharc.json',
    'conftest.py',
    'sub/conftest.py',
    'pytest.ini',
    'setup.cfg',
    'tox.ini',
    'sitecustomize.py',
    'evil.pth',
    'pytest.py',
    '_pytest/__init__.py',
    'unittest/__init__.py',
    'node_modules/assert/index.js',
    '.cargo/config.toml',
    '.env.test',
    '.env.test.local',
  ])('%s configures how tests run', (file) => expect(isTestConfig(file)).toBe(true));

  it.each(['lib.js', 'src/pytest_helpers.py', 'docs/pytest.py', 'package.json', '.env', 'README.md'])(
    '%s is neither',
    (file) => expect(isTestFile(file) || isTestConfig(file)).toBe(false),
  );
});

describe('package.json', () => {
  const base = JSON.stringify(
    { name: 'p', scripts: { test: 'npm run unit', unit: 'node --test', build: 'tsc' }, dependencies: {} },
    null,
    2,
  );

  it('puts back the test scripts, the scripts they run, and the runner fields, keeping the rest', () => {
    const result = JSON.stringify(
      {
        name: 'p',
        scripts: { test: 'npm run unit', unit: 'echo ok', build: 'tsc -b', pretest: 'node fix.js' },
        dependencies: { lodash: '1' },
        jest: { setupFiles: ['x.js'] },
      },
      null,
      2,
    );
    const restored = restorePackageJson(base, result, []);
    expect(restored.changed).toEqual(['scripts.pretest', 'scripts.unit', 'jest']);
    expect(JSON.parse(restored.text ?? '')).toEqual({
      name: 'p',
      scripts: { test: 'npm run unit', unit: 'node --test', build: 'tsc -b' },
      dependencies: { lodash: '1' },
    });
  });

  it('leaves a package.json whose test parts are the base’s as it is', () => {
    const result = base.replace('"tsc"', '"tsc -b"');
    expect(restorePackageJson(base, result, [])).toEqual({ text: result, changed: [] });
  });

  it('puts back the script a check names', () => {
    const result = base.replace('"tsc"', '"true"');
    expect(restorePackageJson(base, result, ['build']).changed).toEqual(['scripts.build']);
  });
});

describe('TOML tables and Makefile targets', () => {
  it("puts back pyproject.toml's [tool.pytest*] tables and keeps the others", () => {
    const base = '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
    const result = '[project]\nname = "p"\nversion = "2"\n\n[tool.pytest.ini_options]\naddopts = "-p fix"\n';
    expect(restoreToml(base, result, TOML_TABLES['pyproject.toml'].wanted)).toBe(
      '[project]\nname = "p"\nversion = "2"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    );
    expect(restoreToml(base, base.replace('"p"', '"q"'), TOML_TABLES['pyproject.toml'].wanted)).toBeNull();
  });

  it("puts back a Makefile's test target", () => {
    const base = 'build:\n\tcc x.c\n\ntest:\n\t./run-tests\n';
    const result = 'build:\n\tcc -O2 x.c\n\ntest:\n\ttrue\n';
    expect(restoreMakeTargets(base, result, ['test'])).toEqual({
      text: 'build:\n\tcc -O2 x.c\n\ntest:\n\t./run-tests\n',
      changed: ['target test'],
    });
    expect(restoreMakeTargets(base, base.replace('cc x.c', 'cc -g x.c'), ['test'])).toBeNull();
  });
});

describe('added skip markers', () => {
  it.each([
    ['test_a.py', '@pytest.mark.xfail(reason="later")'],
    ['test_a.py', '    pytest.skip("no")'],
    ['a.test.js', "it.skip('adds', () => {})"],
    ['a.test.js', "test.todo('adds')"],
    ['a.test.js', "describe.skip('math', () => {})"],
    ['a.test.js', "xit('adds', () => {})"],
    ['a.test.js', "test('adds', { skip: true }, () => {})"],
    ['a_test.go', '\tt.Skip("flaky")'],
    ['tests/a.rs', '#[ignore]'],
  ])('%s: %s', (file, line) => expect(addedMarkers(file, [line])).toEqual([line.trim()]));

  it('finds none in ordinary test lines', () => {
    expect(addedMarkers('a.test.js', ["test('skips nothing', () => assert.equal(skip(1), 2))"])).toEqual([]);
    expect(addedMarkers('test_a.py', ['def test_skip_list():', '    assert skip([1]) == []'])).toEqual([]);
  });
});
