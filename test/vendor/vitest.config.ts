import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { shellText } from '../support/shell-text.js';

/** `npm run test:vendor`: the real pinned CLIs against the fake model servers. */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [shellText()],
  test: {
    include: ['test/vendor/**/*.test.ts'],
    globalSetup: ['test/vendor/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // Two cores shared with other work: one test file at a time.
    fileParallelism: false,
  },
});
