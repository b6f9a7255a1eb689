/**
 * How hydra's build bundles zod: without the error messages of its 40-odd other languages. zod's
 * `z` is a namespace object that hydra imports as a value (`import { z } from 'zod'`, and the
 * adapter kit re-exports it), so the bundle keeps everything it names, `z.locales` among them:
 * ~370 KB of the 1.7 MB chunk every hydra command loads, parsed on every start (`hydra runs` in a
 * repository: 0.66 -> 0.63 CPU-s, median of 15, at load ~12). hydra reads zod's messages in English only (zod's default, which zod imports
 * from locales/en.js itself), so `z.locales` holds English alone here; the build fails if zod's
 * files move and the change is no longer made.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** zod's entry points that re-export every locale as `locales`. */
const REEXPORTERS = ['classic/external.js', 'core/index.js', 'mini/external.js'];

/** @returns {import('esbuild').Plugin} */
export const zodLocales = (root) => {
  // By its real path, as esbuild names importers (node_modules may be a symlink).
  const v4 = realpathSync(path.join(root, 'node_modules', 'zod', 'v4'));
  const importers = new Set(REEXPORTERS.map((file) => path.join(v4, file)));
  let made = false;
  return {
    name: 'hydra-zod-locales',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
        if (!importers.has(args.importer)) return undefined;
        made = true;
        return { path: path.join(v4, 'locales', 'index.js'), namespace: 'hydra-zod-locales' };
      });
      build.onLoad({ filter: /.*/, namespace: 'hydra-zod-locales' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};\n`,
        loader: 'js',
        resolveDir: path.dirname(args.path),
      }));
      build.onEnd((result) => {
        if (result.errors.length === 0 && !made)
          return {
            errors: [
              {
                text: "hydra's build no longer leaves out zod's other locales (zod's files moved?): see scripts/zod-locales.mjs",
              },
            ],
          };
        return undefined;
      });
    },
  };
};
