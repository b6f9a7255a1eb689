/**
 * A vite plugin that loads `.sh` files as their text, as esbuild's `text` loader does for dist/
 * (scripts/build.mjs): the tests run src/ directly, and src/engine/process imports its shell
 * scripts that way.
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vitest/config';

export const shellText = (): Plugin => ({
  name: 'hydra-shell-text',
  enforce: 'pre',
  load(id) {
    if (!id.endsWith('.sh')) return null;
    return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
  },
});
