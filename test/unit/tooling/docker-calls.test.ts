/**
 * The tests call the docker CLI only through test/support/docker-cli.ts, where every call has a time
 * limit: a synchronous call without one, on an engine that hangs, blocks its worker where vitest's
 * timeouts cannot reach it, and the whole run never ends (docs/development.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const HELPER = path.join('test', 'support', 'docker-cli.ts');
const SELF = path.join('test', 'unit', 'tooling', 'docker-calls.test.ts');
/** A child process started with the docker CLI as its program: spawn('docker'…), execa('docker'…)… */
const DIRECT_CALL =
  /\b(?:spawn|spawnSync|execFile|execFileSync|execa|execaSync|exec|execSync)\(\s*['"`]docker['"`\s]/;

function testFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

it('calls the docker CLI only through the helper with a time limit', () => {
  const direct = testFiles('test')
    .filter((file) => file !== HELPER && file !== SELF && !file.startsWith(path.join('test', 'vendor')))
    .filter((file) => DIRECT_CALL.test(readFileSync(path.join(ROOT, file), 'utf8')));
  expect(direct).toEqual([]);
});
