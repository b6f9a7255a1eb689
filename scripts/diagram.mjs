/**
 * `npm run diagram`: writes the race and agent machines' diagrams, generated from their
 * definitions (scripts/machine-diagram.ts), into ARCHITECTURE.md between its markers.
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outfile = path.join(root, '.cache', 'diagram', 'machine-diagram.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/machine-diagram.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // The process module imports its shell scripts as text, as the build does.
  loader: { '.sh': 'text' },
  logLevel: 'warning',
});
const { withDiagrams } = await import(pathToFileURL(outfile).href);
const file = path.join(root, 'ARCHITECTURE.md');
writeFileSync(file, withDiagrams(readFileSync(file, 'utf8')));
console.log('ARCHITECTURE.md: machine diagrams written');
