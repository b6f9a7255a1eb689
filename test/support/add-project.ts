/**
 * The cross-testing scenario's project: a library whose `add` is wrong while the base's suite tests
 * only `mul`, so the suite passes on the base; a fix, and agents' scripts that write new tests
 * (reproductions, or tests that prove nothing). Shared by cross-testing's and
 * `--stop first-verified`'s integration tests.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckSpec } from '../../src/engine/index.js';
import { git } from './engine-helpers.js';
import type { Sandbox } from './engine-helpers.js';
import { sedInPlace } from './posix-edit.js';

export const BUGGY = 'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n';

/** The suite at the base: it tests mul only, so it passes although add is wrong. */
export const SUITE = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mul } from './lib.js';

test('multiplies', () => assert.equal(mul(2, 3), 6));
`;

export const makeProject = (box: Sandbox): void => {
  writeFileSync(
    path.join(box.repo, 'package.json'),
    `${JSON.stringify({ name: 'p', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(path.join(box.repo, 'lib.js'), BUGGY);
  writeFileSync(path.join(box.repo, 'lib.test.js'), SUITE);
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'a library whose add has no test');
};

export const NODE_TEST: CheckSpec = { name: 'test', run: 'node --test', timeoutMs: 60_000, gate: true };

/** The fix of add. */
export const FIX = sedInPlace('s/a - b/a + b/', 'lib.js');

/** A new test file written by an agent's script. */
export const writeTest = (file: string, body: string): string => `cat > ${file} <<'EOF'
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from './lib.js';

${body}
EOF`;
