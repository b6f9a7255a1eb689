/**
 * `npm run build`: bundles hydra's entry points into dist/ with esbuild. TypeScript only type-checks
 * (`npm run typecheck`); esbuild strips the types.
 *
 * Why a bundle: a race starts by loading ~150 modules (hydra's own, zod, xstate, smol-toml,
 * string-width), and resolving and compiling them one file at a time was ~100 ms of every start
 * before the first agent could spawn (issue 12). Bundled, they are a few shared chunks. The
 * dashboard's packages (Ink, React) stay in node_modules: they load only in the modes that need
 * them, and Ink is run as its authors ship it. So the package's runtime `dependencies` are exactly
 * Ink and React; everything bundled is a devDependency, and the build fails when dist/ imports a
 * package that is not a runtime dependency (it would be missing from an install). The sandbox
 * library is bundled too, in a chunk of its own loaded when an agent is sandboxed, and its helper
 * programs are copied to dist/vendor/ (sandbox-library.mjs).
 *
 * Entries (paths the code and the tests rely on): dist/cli/main.js (the `hydra` binary),
 * dist/engine/index.js (the engine, for tests that run it as a process of its own),
 * dist/demo/fake-agent.js (the demo's simulated agent CLIs; the tests' fault agent is built apart,
 * by test/support/build-fault-agent.ts, so dist/ ships no faults). Code shared between
 * them and the commands loaded on demand go to dist/chunks/. A chunk is two folders below the
 * package root, as every entry is, so `new URL('../../package.json', import.meta.url)` finds
 * package.json from either.
 */
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copySandboxHelpers, sandboxLibrary } from './sandbox-library.mjs';
import { lazyStringWidth } from './lazy-string-width.mjs';
import { priceData } from './price-data.mjs';
import { zodLocales } from './zod-locales.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const result = await build({
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
  external: ['ink', 'react', 'react/*'],
  plugins: [sandboxLibrary(root), zodLocales(root), lazyStringWidth(root), priceData(root)],
  jsx: 'automatic',
  // The watchdog's and the namespace init's /bin/sh scripts (src/engine/process/*.sh, checked by
  // shellcheck in `npm run lint`) become string constants of the bundle: no file read at run time.
  loader: { '.sh': 'text' },
  sourcemap: 'linked',
  // No keepNames: its `__name(() => ..., "f")` wrapper puts every arrow function of the bundle in
  // parentheses, which V8 compiles eagerly at load (~13 ms of CPU on every `hydra race`, issue 33).
  // Names still come from the bindings; only an identifier esbuild renamed (`git2`) shows so in a
  // stack trace (HYDRA_DEBUG), and hydra's errors name themselves (`name = 'EngineError'`).
  logLevel: 'warning',
  metafile: true,
});

/** The package a bare import names: `react/jsx-runtime` → react, `@scope/x/y` → @scope/x. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const runtime = Object.keys(
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies ?? {},
);
const missing = new Set();
for (const [file, output] of Object.entries(result.metafile.outputs))
  for (const { path: specifier, external } of output.imports)
    if (external && !specifier.startsWith('node:') && !builtinModules.includes(specifier))
      if (!runtime.includes(packageOf(specifier))) missing.add(`${packageOf(specifier)} (${file})`);
if (missing.size > 0) {
  console.error(
    `build: dist/ imports packages that are not runtime dependencies in package.json: ${[...missing].join(', ')}.\n` +
      'Bundle them (remove them from `external`) or move them to "dependencies".',
  );
  process.exit(1);
}
copySandboxHelpers(root, dist);
chmodSync(path.join(dist, 'cli', 'main.js'), 0o755);
