import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.js';
import { shellText } from './test/support/shell-text.js';

/**
 * `npm run test:unit`: the tests that need no build and start no agent, git or terminal: adapters
 * (parsers, probes on fixtures), the UI (layout, text, components), the pure engine parts and the
 * machines with fake actors. Seconds, for every change. `npm run test:e2e` is the rest: real
 * processes, git repositories, tmux, docker, the fault and security suites, against dist/. `npm test`
 * (and .ci/run) runs both, one file at a time unless HYDRA_TEST_WORKERS says more (docs/development.md).
 */
const UNIT = [
  'test/events.test.ts',
  'test/adapters/**/*.test.ts',
  'test/ui/**/*.test.{ts,tsx}',
  'test/engine/agent-checks.test.ts',
  'test/engine/agent-machine.test.ts',
  'test/engine/check-parts.test.ts',
  'test/engine/coalesce.test.ts',
  'test/engine/cross-test-rules.test.ts',
  'test/engine/line-splitter.test.ts',
  'test/engine/process-registry.test.ts',
  'test/engine/race-machine.test.ts',
  'test/engine/score.test.ts',
  'test/engine/setup/env-values.test.ts',
  'test/engine/test-counts.test.ts',
  'test/cli/agent-checks-config.test.ts',
  'test/cli/mode.test.ts',
  'test/cli/printers.test.ts',
  'test/tooling/fake-servers.test.ts',
  'test/tooling/normalize-fixture.test.ts',
  'test/sandbox/policy.test.ts',
  'test/container/silent-engine.test.ts',
  'test/demo/demo-pace.test.ts',
];

const ALL = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
const NEVER = ['test/vendor/**', 'node_modules/**'];

export default defineConfig({
  // src/engine/process imports its shell scripts as text, as esbuild bundles them.
  plugins: [shellText()],
  test: {
    // A bound for a test that hangs, not a speed check: files may share two cores (below).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time by default, as CI has passed; HYDRA_TEST_WORKERS=3 runs three at once (an
    // end-to-end test spends much of its time waiting on its child processes). Every test names its
    // own temp dirs, tmux servers, run markers and containers, so files that run at once do not
    // meet; but one full run with three on two cores (load ~6) took 1,405 s, no faster than one at a
    // time in CI (1,432 s), and showed load flakes, so three is not yet the default. vitest's
    // --maxWorkers does not reach the projects, which take this value.
    maxWorkers: Number(process.env['HYDRA_TEST_WORKERS'] ?? 1),
    // The slowest files start first (test/support/sequencer.ts), so none is left alone at the end.
    sequence: { sequencer: SlowestFirst },
    // The price database, loaded as the engine loads it before an agent starts.
    setupFiles: ['test/support/price-database.ts'],
    // Ink decides at import time whether it runs in CI (and then draws no live frames); the
    // component tests model a user's terminal, and CI=true is set where .ci/run runs.
    // The suites written before the sandbox race their fake agents unsandboxed, as they were
    // written to (HYDRA_SANDBOX is the user's default mode); test/sandbox/ races them in it.
    // The demo's simulated agents go 150 ms a line, not at the pace for a newcomer to watch (~6 s a
    // race, src/demo/fake-bin.ts): a test waits on hydra, not on the pacing.
    env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false', HYDRA_SANDBOX: 'off', HYDRA_DEMO_DELAY_MS: '150' },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: NEVER } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ALL,
          exclude: [...NEVER, ...UNIT],
          // The tests' fault agent, built from source into .cache/test-bin/ (not dist/) each run.
          globalSetup: ['test/support/build-fault-agent.ts'],
        },
      },
    ],
  },
});
