import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { shellText } from '../support/shell-text.js';

/** `npm run test:vendor`: the real pinned CLIs against the fake model servers. */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [shellText()],
  test: {
    include: ['test/vendor/**/*.test.ts'],
    // The fault agent goes into the container tests' image, which the vendor image is built on.
    globalSetup: ['test/vendor/global-setup.ts', 'test/support/build-fault-agent.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // Two cores shared with other work: one test file at a time.
    fileParallelism: false,
  },
});
