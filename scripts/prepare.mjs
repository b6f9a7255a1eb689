/**
 * `npm prepare` (run by `npm install` in this checkout and by `npm install -g .`): builds dist/
 * with TypeScript. On a fresh clone whose dependencies were never installed there is no compiler,
 * and npm would only say `tsc: not found`: say instead what is missing and the command that fixes it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

if (!existsSync(tsc)) {
  console.error(
    [
      'hydra: cannot build dist/: the build dependencies of this checkout are not installed (no TypeScript compiler).',
      `Run \`npm install\` in ${root} first (it installs them and builds dist/), then \`npm install -g .\` again.`,
    ].join('\n'),
  );
  process.exit(1);
}

const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
