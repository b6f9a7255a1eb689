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
 * - Its ripgrep scan of hydra's working directory, made for every wrapped command, is made once
 *   while the proxies run (sandbox-library/ripgrep.mjs; the library's entry also exports its
 *   `forgetScans`, which runtime.ts calls when they stop).
 * - @pondwader/socks5-server is taken as ES module (its `module` build): its CommonJS build
 *   requires `net`, which an ES module bundle cannot.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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
  // esbuild gives importers by their real path: a node_modules that is a symlink (a git worktree
  // sharing another checkout's) is named by its target.
  const library = realpathSync(path.join(root, 'node_modules', ...LIBRARY.split('/')));
  const inLibrary = (importer) => importer.startsWith(`${library}${path.sep}`);
  const replacement = (name) => path.join(root, 'scripts', 'sandbox-library', name);
  // Each change above, once it was made: a new version of the library that moved what one changes
  // fails the build instead of losing the change unseen.
  const made = new Set();
  const making = (change, result) => {
    made.add(change);
    return result;
  };
  return {
    name: 'hydra-sandbox-library',
    setup(build) {
      build.onResolve({ filter: /^node-forge$/ }, (args) =>
        inLibrary(args.importer)
          ? making('node-forge', { path: 'node-forge', namespace: 'hydra-forge-stand-in' })
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'hydra-forge-stand-in' }, () => ({
        contents: FORGE_STAND_IN,
        loader: 'js',
      }));
      build.onResolve({ filter: /\/utils\/which\.js$/ }, (args) =>
        inLibrary(args.importer) ? making('which', { path: replacement('which.mjs') }) : undefined,
      );
      build.onResolve({ filter: /\/utils\/ripgrep\.js$/ }, (args) =>
        inLibrary(args.importer) ? making('ripgrep', { path: replacement('ripgrep.mjs') }) : undefined,
      );
      build.onLoad({ filter: /\/dist\/index\.js$/ }, async (args) =>
        args.path === path.join(library, 'dist', 'index.js')
          ? making('forgetScans', {
              contents: `${await readFile(args.path, 'utf8')}\nexport { forgetScans } from ${JSON.stringify(replacement('ripgrep.mjs'))};\n`,
              loader: 'js',
              resolveDir: path.dirname(args.path),
            })
          : undefined,
      );
      build.onResolve({ filter: /^@pondwader\/socks5-server$/ }, (args) =>
        inLibrary(args.importer)
          ? making('socks5-server', {
              path: path.join(root, 'node_modules', '@pondwader', 'socks5-server', 'dist', 'index.mjs'),
            })
          : undefined,
      );
      build.onEnd((result) => {
        const missed = ['node-forge', 'which', 'ripgrep', 'forgetScans', 'socks5-server'].filter(
          (change) => !made.has(change),
        );
        if (result.errors.length === 0 && missed.length > 0)
          return {
            errors: [
              {
                text: `hydra's changes to the sandbox library were not all made (${missed.join(', ')}): see scripts/sandbox-library.mjs`,
              },
            ],
          };
        return undefined;
      });
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
