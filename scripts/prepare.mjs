/**
 * `npm prepare` (run by `npm install` in this checkout and by `npm install -g .`): builds dist/
 * (scripts/build.mjs, esbuild). On a fresh clone whose dependencies were never installed there is
 * no bundler, and node would only say `Cannot find package 'esbuild'`: say instead what is missing
 * and the command that fixes it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const esbuild = path.join(root, 'node_modules', 'esbuild', 'package.json');

if (!existsSync(esbuild)) {
  console.error(
    [
      'hydra: cannot build dist/: the build dependencies of this checkout are not installed (no esbuild).',
      `Run \`npm install\` in ${root} first (it installs them and builds dist/), then \`npm install -g .\` again.`,
    ].join('\n'),
  );
  process.exit(1);
}

const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
