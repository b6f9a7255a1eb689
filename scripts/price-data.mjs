/**
 * How hydra's build bundles the price database (`@pydantic/genai-prices`, src/adapters/prices.ts):
 * its ~0.8 MB of prices, a JavaScript array literal in the package, become one JSON text that the
 * chunk hands to `JSON.parse`. V8 reads JSON text several times faster than it compiles and runs the
 * same data as code: loading the chunk, which every race does once an agent spawns, cost ~29 ms of
 * CPU and costs ~10 ms so (issue 33's fixed CPU per race). The data is the same: the build checks
 * that the JSON text parses back to a value deep-equal to the literal, and fails if the package's
 * file no longer has the shape this expects (`const E = [` ... `], J = {`).
 */
import { deepStrictEqual } from 'node:assert';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { runInThisContext } from 'node:vm';

const HEAD = 'const E = [';
/** The line that ends the array and declares the package's next constant. */
const TAIL = /^\], J = \{$/m;

/** The package's source with its price array read from JSON text; throws when the shape changed. */
export const pricesAsJson = (source) => {
  const tail = TAIL.exec(source);
  if (!source.startsWith(HEAD) || tail === null)
    throw new Error('its dist/index.js no longer starts with the price array `const E = [ ... ], J = {`');
  const literal = source.slice(HEAD.length - 1, tail.index + 1);
  const value = runInThisContext(`(${literal})`);
  const json = JSON.stringify(value);
  // No undefined, function, NaN, Infinity or -0 that JSON would change.
  deepStrictEqual(JSON.parse(json), value);
  return `const E = JSON.parse(${JSON.stringify(json)})${source.slice(tail.index + 1)}`;
};

/** @returns {import('esbuild').Plugin} */
export const priceData = (root) => {
  // By its real path, as esbuild names what it loads (node_modules may be a symlink).
  const entry = realpathSync(
    path.join(root, 'node_modules', '@pydantic', 'genai-prices', 'dist', 'index.js'),
  );
  let made = false;
  return {
    name: 'hydra-price-data',
    setup(build) {
      build.onLoad({ filter: /genai-prices[\\/]dist[\\/]index\.js$/ }, (args) => {
        if (args.path !== entry) return undefined;
        let contents;
        try {
          contents = pricesAsJson(readFileSync(entry, 'utf8'));
        } catch (error) {
          return {
            errors: [
              {
                text: `hydra's build cannot read the price database as JSON (${error instanceof Error ? error.message : String(error)}): see scripts/price-data.mjs`,
              },
            ],
          };
        }
        made = true;
        return { contents, loader: 'js', resolveDir: path.dirname(entry) };
      });
      build.onEnd((result) => {
        if (result.errors.length === 0 && !made)
          return {
            errors: [
              {
                text: "hydra's build no longer bundles the price database's dist/index.js (moved?): see scripts/price-data.mjs",
              },
            ],
          };
        return undefined;
      });
    },
  };
};
