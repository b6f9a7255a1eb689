/**
 * hydra's build bundles zod with its English messages only (scripts/zod-locales.mjs): no other
 * locale is in any chunk of dist/, and zod still speaks English there (test/e2e/faults/damaged-records
 * reads zod's messages through `hydra runs` too). Needs `npm run build` first (npm test does it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/cli-helpers.js';

const CHUNKS = path.join(ROOT, 'dist', 'chunks');

describe("the bundle's zod", () => {
  it('holds the English locale and no other', () => {
    expect(existsSync(CHUNKS), 'run `npm run build` first').toBe(true);
    const bundled = readdirSync(CHUNKS)
      .filter((name) => name.endsWith('.js'))
      .flatMap((name) =>
        [
          ...readFileSync(path.join(CHUNKS, name), 'utf8').matchAll(
            /^\/\/ node_modules\/zod\/v4\/locales\/(\S+)$/gm,
          ),
        ].map((match) => match[1]),
      );
    expect(bundled).toEqual(['en.js']);
  });
});
