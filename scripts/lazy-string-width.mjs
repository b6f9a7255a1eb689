/**
 * How hydra's build bundles string-width (ui/text's displayWidth, the widths Ink measures): with
 * its set-up deferred to its first call. At import it builds an `Intl.Segmenter` (ICU's break
 * data) and compiles three Unicode-property regular expressions (`\p{RGI_Emoji}` among them):
 * ~20-35 ms of CPU in every hydra process, `hydra --version` and headless races included, which
 * measure no text width (issue 33). Here the module's body runs inside a function called by the
 * first `stringWidth`; its imports and its behaviour are the package's own. The build fails if the
 * package's shape changes and the change is no longer made.
 */
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const EXPORT = 'export default function stringWidth(';

/** @returns {import('esbuild').Plugin} */
export const lazyStringWidth = (root) => {
  // By its real path, as esbuild names the files it loads (node_modules may be a symlink).
  const entry = realpathSync(path.join(root, 'node_modules', 'string-width', 'index.js'));
  let made = false;
  return {
    name: 'hydra-lazy-string-width',
    setup(build) {
      build.onLoad({ filter: /[/\\]string-width[/\\]index\.js$/ }, async (args) => {
        if (args.path !== entry) return undefined;
        const source = await readFile(args.path, 'utf8');
        const lines = source.split('\n');
        const body = lines.findIndex((line) => line.trim() !== '' && !line.startsWith('import '));
        if (body === -1 || source.split(EXPORT).length !== 2) return undefined;
        made = true;
        const imports = lines.slice(0, body).join('\n');
        const rest = lines.slice(body).join('\n').replace(EXPORT, 'function stringWidth(');
        return {
          contents: [
            imports,
            'let measure;',
            'export default function lazyStringWidth(input, options) {',
            '  measure ??= setUp();',
            '  return measure(input, options);',
            '}',
            'function setUp() {',
            rest,
            'return stringWidth;',
            '}',
          ].join('\n'),
          loader: 'js',
          resolveDir: path.dirname(args.path),
        };
      });
      build.onEnd((result) => {
        if (result.errors.length === 0 && !made)
          return {
            errors: [
              {
                text: "hydra's build no longer defers string-width's set-up (its index.js changed?): see scripts/lazy-string-width.mjs",
              },
            ],
          };
        return undefined;
      });
    },
  };
};
