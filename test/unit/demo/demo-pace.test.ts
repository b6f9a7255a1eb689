/**
 * The demo's pace: each simulated agent at its adapter's own (for a newcomer to watch), unless
 * HYDRA_DEMO_DELAY_MS gives one pause for all (the tests set 150 ms, vitest.config.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listAdapters } from '../../../src/adapters/registry.js';
import { defaultScenarios } from '../../../src/demo/fake-bin.js';

afterEach(() => vi.unstubAllEnvs());

const paces = (): number[] => Object.values(defaultScenarios()).map((scenario) => scenario.delayMs ?? -1);
const adapterPaces = listAdapters().flatMap((adapter) =>
  adapter.demo === undefined ? [] : [adapter.demo.lineDelayMs],
);

describe("the demo's pace", () => {
  it("is each adapter's own without HYDRA_DEMO_DELAY_MS, or with a value that is not a whole number", () => {
    for (const value of [undefined, '', 'fast', '-5', '1.5']) {
      vi.stubEnv('HYDRA_DEMO_DELAY_MS', value);
      expect(paces(), String(value)).toEqual(adapterPaces);
    }
  });

  it('is HYDRA_DEMO_DELAY_MS for every simulated agent when it is set', () => {
    vi.stubEnv('HYDRA_DEMO_DELAY_MS', '0');
    expect(paces()).toEqual(adapterPaces.map(() => 0));
    vi.stubEnv('HYDRA_DEMO_DELAY_MS', ' 150 ');
    expect(paces()).toEqual(adapterPaces.map(() => 150));
  });

  it('is what the caller gives, whatever the environment says', () => {
    vi.stubEnv('HYDRA_DEMO_DELAY_MS', '150');
    expect(Object.values(defaultScenarios(7)).map((scenario) => scenario.delayMs)).toEqual(
      adapterPaces.map(() => 7),
    );
  });
});
