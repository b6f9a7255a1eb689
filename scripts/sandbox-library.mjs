/**
 * How hydra's build bundles the sandbox library (`@anthropic-ai/sandbox-runtime`, src/engine/sandbox)
 * into dist/: imported from node_modules it cost 250-355 ms of CPU per race (~100 files, 600 KB of
 * node-forge among them); as one chunk of dist/, without node-forge, ~115 ms.
 *
 * - Its helpers, which it runs as programs (the seccomp filter `apply-seccomp` per architecture,
 *   the JVM proxy agent), are copied to dist/vendor/ with its licence: where the library's own
 *   lookup finds them from a chunk of dist/ (`../vendor/...`), and where runtime.ts names them.
 * - node-forge is left out: the library uses it only to make the certificates of TLS termination
 *   (`network.tlsTerminate`, `mitmProxy`) and of its Windows sandbox, none of which hydra uses. A
 *   stand-in throws a clear error if anything calls it.
 * - Its `whichSync` (a `which` run with spawnSync, on every wrapped command) is replaced by a lookup
 *   of the files (sandbox-library/which.mjs): spawnSync stalls hydra's event loop and the
 *   library's proxies with it.
 * - @pondwader/socks5-server is taken as ES module (its `module` build): its CommonJS build
 *   requires `net`, which an ES module bundle cannot.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const LIBRARY = '@anthropic-ai/sandbox-runtime';

/** The files of the library's package that dist/vendor/ gets (paths inside its package). */
const HELPERS = [
  'vendor/seccomp/x64/apply-seccomp',
  'vendor/seccomp/arm64/apply-seccomp',
  'vendor/java-proxy-agent/srt-proxy-agent.jar',
];

const FORGE_STAND_IN = `
const refuse = () => {
  throw new Error('hydra bundles the sandbox library without node-forge: TLS termination (network.tlsTerminate, mitmProxy) and the Windows sandbox are not available.');
};
const standIn = new Proxy(refuse, { get: () => standIn, apply: refuse, construct: refuse });
export default standIn;
`;

/** The esbuild plugin for the library's modules (see above). */
export const sandboxLibrary = (root) => {
  const library = path.join(root, 'node_modules', ...LIBRARY.split('/'));
  const inLibrary = (importer) => importer.startsWith(`${library}${path.sep}`);
  return {
    name: 'hydra-sandbox-library',
    setup(build) {
      build.onResolve({ filter: /^node-forge$/ }, (args) =>
        inLibrary(args.importer) ? { path: 'node-forge', namespace: 'hydra-forge-stand-in' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'hydra-forge-stand-in' }, () => ({
        contents: FORGE_STAND_IN,
        loader: 'js',
      }));
      build.onResolve({ filter: /\/utils\/which\.js$/ }, (args) =>
        inLibrary(args.importer)
          ? { path: path.join(root, 'scripts', 'sandbox-library', 'which.mjs') }
          : undefined,
      );
      build.onResolve({ filter: /^@pondwader\/socks5-server$/ }, (args) =>
        inLibrary(args.importer)
          ? { path: path.join(root, 'node_modules', '@pondwader', 'socks5-server', 'dist', 'index.mjs') }
          : undefined,
      );
    },
  };
};

/**
 * Copies the library's helpers and licence to dist/vendor/ (executables stay executable); fails
 * the build when one is missing, as a sandbox without its seccomp filter would be weaker.
 */
export const copySandboxHelpers = (root, dist) => {
  const library = path.join(root, 'node_modules', ...LIBRARY.split('/'));
  for (const file of [...HELPERS, 'LICENSE']) {
    const from = path.join(library, file);
    if (!existsSync(from)) {
      console.error(`build: ${from} is missing: reinstall the sandbox library (npm ci).`);
      process.exit(1);
    }
    const to =
      file === 'LICENSE' ? path.join(dist, 'vendor', 'LICENSE.sandbox-runtime') : path.join(dist, file);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    if (file.endsWith('apply-seccomp')) chmodSync(to, 0o755);
  }
};
