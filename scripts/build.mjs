/**
 * `npm run build`: bundles hydra's entry points into dist/ with esbuild. TypeScript only type-checks
 * (`npm run typecheck`); esbuild strips the types.
 *
 * Why a bundle: a race starts by loading ~150 modules (hydra's own, zod, xstate, smol-toml), and
 * resolving and compiling them one file at a time was ~100 ms of every start before the first
 * agent could spawn (issue 12). Bundled, the race command is one chunk. The dashboard's packages
 * (Ink, React) and the demo's execa stay in node_modules: they load only in the modes that need
 * them, and Ink is run as its authors ship it.
 *
 * Entries (paths the code and the tests rely on): dist/cli/main.js (the `hydra` binary),
 * dist/engine/index.js (the engine, for tests that run it as a process of its own),
 * dist/demo/fake-agent.js (the simulated agent CLIs of the demo and the tests). Code shared between
 * them and the commands loaded on demand go to dist/chunks/. A chunk is two folders below the
 * package root, as every entry is, so `new URL('../../package.json', import.meta.url)` finds
 * package.json from either.
 */
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts', 'src/engine/index.ts', 'src/demo/fake-agent.ts'],
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'bundle',
  external: ['ink', 'react', 'react/*', 'execa'],
  jsx: 'automatic',
  sourcemap: 'linked',
  keepNames: true,
  logLevel: 'warning',
});
chmodSync(path.join(dist, 'cli', 'main.js'), 0o755);
