// Builds the benchmark (`npm run bench`) with esbuild, as scripts/build.mjs builds hydra: src/
// imports its shell scripts as text, which tsc's output cannot load. The probe preload is a file of
// its own beside run.js (bench/lib/measure.ts finds it there). The bench bundles the sandbox
// library as dist/ does (sandbox-library.mjs), so its in-process sandboxed spawns run what ships.
import { build } from 'esbuild';
import { sandboxLibrary } from './sandbox-library.mjs';

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  loader: { '.sh': 'text' },
  jsx: 'automatic',
  logLevel: 'warning',
};
await build({
  ...common,
  packages: 'bundle',
  external: ['ink', 'react', 'react/*'],
  plugins: [sandboxLibrary(process.cwd())],
  entryPoints: ['bench/run.ts'],
  outfile: '.cache/bench/bench/run.js',
});
// The verdict benchmark (issue 34): `npm run bench:verdict`.
await build({
  ...common,
  entryPoints: ['bench/verdict/run.ts'],
  outfile: '.cache/bench/bench/verdict.js',
});
await build({
  ...common,
  entryPoints: ['bench/lib/probe-preload.ts'],
  outfile: '.cache/bench/bench/probe-preload.js',
});
