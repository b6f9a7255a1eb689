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
  'test/container/container-race.test.ts', // 128 s: seven races in containers
  'test/e2e/dashboard.test.ts', // 83 s: seven races in tmux
  'test/e2e/many-agents.test.ts', // 81 s: four demos, paced to be watched
  'test/security/concurrent-commands.test.ts', // 59 s
  'test/cli/race.test.ts', // 46 s
  'test/cli/clean-containers.test.ts', // 39 s
  'test/cli/continue.test.ts', // 39 s
  'test/cli/demo.test.ts', // 39 s
  'test/tooling/readme-commands.test.ts', // 37 s
  'test/cli/doctor-image.test.ts', // 25 s
  'test/faults/stubborn-agents.test.ts', // 23 s: waits out kill graces
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
