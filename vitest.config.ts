import path from 'node:path';
import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.js';
import { shellText } from './test/support/shell-text.js';

/**
 * The tests in four tiers, one folder each (docs/development.md); within a tier the tree mirrors
 * src/. `npm test` (and .ci/run) runs every tier, one after the other; `npm run test:<tier>` one.
 *
 * - unit: starts no process and touches no git (adapters on fixtures, the UI, the pure engine
 *   parts, the machines with fake actors). No build. Its files share one module cache
 *   (`isolate: false`): none of them may leave state behind (run it with --sequence.shuffle).
 * - integration: the engine in-process, with real git repositories in temp dirs and child
 *   processes (the fake agents). No build.
 * - e2e: the built dist/: hydra spawned, the fault and security suites, what dist/ contains.
 * - system: a real terminal (tmux), a docker engine, the OS sandbox (bubblewrap), against dist/.
 */
// Ink decides at import time whether it runs in CI (and then draws no live frames); the component
// tests model a user's terminal, and CI=true is set where .ci/run runs. The suites written before
// the sandbox race their fake agents unsandboxed, as they were written to (HYDRA_SANDBOX is the
// user's default mode); test/system/sandbox/ races them in it. The demo's simulated agents go 150 ms
// a line, not at the pace for a newcomer to watch (~6 s a race, src/demo/fake-bin.ts): a test waits
// on hydra, not on the pacing.
const ENV = {
  CI: 'false',
  CONTINUOUS_INTEGRATION: 'false',
  HYDRA_SANDBOX: 'off',
  HYDRA_DEMO_DELAY_MS: '150',
  // Every race remembers its repository for `hydra stats --all` (engine/ledger): in the checkout's
  // ignored .cache/, not in the user's data directory.
  XDG_DATA_HOME: path.resolve('.cache', 'test-data'),
  // ... and journals its run for `hydra stats` in the ledger cache (engine/ledger/ledger-cache.ts).
  XDG_CACHE_HOME: path.resolve('.cache', 'test-cache'),
};

const FAKE_AGENT_BUILD = ['test/support/build-fault-agent.ts'];

/**
 * Files at once in a tier. Every test names its own temp dirs, tmux servers, ports, run markers
 * and containers, so files that run at once do not meet, and a file that races fake agents waits
 * on them more than it computes. HYDRA_TEST_WORKERS overrides every tier (1: one file at a time,
 * as CI ran before the tiers). vitest's --maxWorkers does not reach the projects: this does.
 */
const override = process.env['HYDRA_TEST_WORKERS'];
const workers = (tierDefault: number): number => (override === undefined ? tierDefault : Number(override));

const tier = (
  name: string,
  order: number,
  maxWorkers: number,
  more: TestProjectInlineConfiguration['test'] = {},
): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name,
    include: [`test/${name}/**/*.test.{ts,tsx}`],
    maxWorkers,
    // One tier at a time, in this order, each with its own number of workers (vitest runs
    // projects of one group order together, and then they must share one maxWorkers).
    sequence: { groupOrder: order },
    ...more,
  },
});

export default defineConfig({
  // src/engine/process imports its shell scripts as text, as esbuild bundles them.
  plugins: [shellText()],
  test: {
    // A bound for a test that hangs, not a speed check: files share two cores (above).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    exclude: ['test/vendor/**', 'node_modules/**'],
    // The slowest files start first (test/support/sequencer.ts), so none is left alone at the end.
    sequence: { sequencer: SlowestFirst },
    // The price database, loaded as the engine loads it before an agent starts.
    setupFiles: ['test/support/price-database.ts'],
    env: ENV,
    projects: [
      // Chalk decides on colour support once, when the first file imports Ink, and the unit files
      // share their modules: colour forced for all of them, as the dashboard's tests force it for
      // themselves, so that NO_COLOR is what turns it off whichever file comes first.
      tier('unit', 0, workers(2), { isolate: false, env: { ...ENV, FORCE_COLOR: '1' } }),
      // The tests' fault agent, built from source into .cache/test-bin/ (not dist/) each run.
      tier('integration', 1, workers(2), { globalSetup: FAKE_AGENT_BUILD }),
      tier('e2e', 2, workers(2), { globalSetup: FAKE_AGENT_BUILD }),
      tier('system', 3, workers(2), { globalSetup: FAKE_AGENT_BUILD }),
    ],
  },
});
