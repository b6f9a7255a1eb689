/**
 * `npm run docs:keys`: writes the dashboard's key table, generated from the key bindings
 * (scripts/keys-doc.ts), into docs/dashboard.md between its markers.
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outfile = path.join(root, '.cache', 'keys-doc', 'keys-doc.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/keys-doc.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { withKeyTable } = await import(pathToFileURL(outfile).href);
const file = path.join(root, 'docs', 'dashboard.md');
writeFileSync(file, await withKeyTable(readFileSync(file, 'utf8')));
console.log('docs/dashboard.md: key table written');
