// Builds the scripts `npm run fixtures:record` runs with esbuild, as scripts/build.mjs builds hydra:
// src/ imports its shell scripts as text, which tsc's output cannot load (tsc only checks them:
// tsconfig.scripts.json). Out into .cache/scripts/scripts/, where vendor-cli's findProjectRoot
// looks for the project above it.
import { build } from 'esbuild';

await build({
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  loader: { '.sh': 'text' },
  logLevel: 'warning',
  entryPoints: ['scripts/record-fixtures.ts', 'scripts/vendor-cli.ts'],
  outbase: 'scripts',
  outdir: '.cache/scripts/scripts',
});
