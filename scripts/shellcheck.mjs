/**
 * `npm run lint:sh`: shellcheck on hydra's shell scripts (the watchdog and the namespace init in
 * src/engine/process/*.sh, which dist/ runs with /bin/sh, .ci/run, and the tests' ps shim). Fails, saying how to
 * install it, when shellcheck is missing: a lint that silently skips checks nothing.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Every `.sh` file under `dir`, relative to the package root. */
const shellFiles = (dir) =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return shellFiles(relative);
    return entry.name.endsWith('.sh') ? [relative] : [];
  });

const files = [...shellFiles('src'), ...shellFiles('scripts'), '.ci/run', 'test/support/bsd-ps/ps'];
const result = spawnSync('shellcheck', ['--external-sources', ...files], { cwd: root, stdio: 'inherit' });
if (result.error !== undefined) {
  const missing = result.error.code === 'ENOENT';
  console.error(
    missing
      ? 'lint: shellcheck is not installed, so the shell scripts were not checked. Install it (Debian/Ubuntu: apt-get install shellcheck; macOS: brew install shellcheck) and run npm run lint again.'
      : `lint: could not run shellcheck: ${result.error.message}`,
  );
  process.exit(1);
}
if (result.status !== 0) process.exit(result.status ?? 1);
console.log(`shellcheck: ${files.length} scripts clean (${files.join(', ')})`);
