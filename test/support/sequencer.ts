/**
 * vitest's file order (vitest.config.ts): the files that take longest start first, so that no
 * worker is left running one of them alone at the end while the others have nothing to do. vitest
 * orders by the durations it cached in a previous run, and without a cache (a clean CI checkout)
 * by file size; the files below come first in either case, in this order. Seconds are one file's
 * time alone on a quiet two-core machine; a list that is out of date costs time, never a test.
 */
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

const SLOWEST_FIRST = [
  'test/system/container/container-race.test.ts', // 102 s: seven races in containers
  'test/system/terminal/dashboard.test.ts', // 71 s: seven races in tmux
  'test/e2e/security/concurrent-commands.test.ts', // 60 s
  'test/system/container/clean-containers.test.ts', // 51 s: waits out an engine that does not answer (15 s)
  'test/e2e/faults/damaged-records.test.ts', // 50 s: nine races
  'test/e2e/tooling/readme-commands.test.ts', // 40 s: npm install -g
  'test/integration/engine/race/race.test.ts', // 38 s
  'test/system/terminal/many-agents.test.ts', // 58 s with the demo paced for a newcomer, less at the tests' pace
  'test/e2e/cli/continue.test.ts', // 36 s
  'test/integration/engine/setup/setup-run.test.ts', // 33 s
  'test/e2e/faults/git-hooks.test.ts', // 26 s
  'test/system/container/doctor-image.test.ts', // 26 s
  'test/e2e/faults/stubborn-agents.test.ts', // 25 s: waits out kill graces
];

const rank = (file: TestSpecification): number => {
  const index = SLOWEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
  return index === -1 ? SLOWEST_FIRST.length : index;
};

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
