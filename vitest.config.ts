import { defineConfig } from 'vitest/config';
import { shellText } from './test/support/shell-text.js';

export default defineConfig({
  plugins: [shellText()],
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['test/vendor/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Ink decides at import time whether it runs in CI (and then draws no live frames); the
    // component tests model a user's terminal, and CI=true is set where .ci/run runs.
    env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false' },
  },
});
