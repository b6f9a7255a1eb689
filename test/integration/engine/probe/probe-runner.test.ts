/**
 * Probes outside a race (`hydra doctor`) run many CLIs at once: they must not add a process `exit`
 * listener each (eleven of them made Node print MaxListenersExceededWarning on a cold probe cache).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProbeRunner } from '../../../../src/engine/probe/runner.js';

const warnings: Error[] = [];
const onWarning = (warning: Error): void => void warnings.push(warning);

afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('the probe runner outside a race', () => {
  it('listens for exit once however many probes run at once, and not at all afterwards', async () => {
    process.on('warning', onWarning);
    const before = process.listenerCount('exit');
    let most = before;
    const run = createProbeRunner(process.env);
    const probes = Array.from({ length: 14 }, () =>
      run('/bin/sh', ['-c', 'sleep 0.3; echo 1.0.0'], { timeoutMs: 20_000 }),
    );
    const watch = setInterval(() => (most = Math.max(most, process.listenerCount('exit'))), 10);

    const outputs = await Promise.all(probes);
    clearInterval(watch);

    expect(outputs.every((output) => output.stdout.trim() === '1.0.0')).toBe(true);
    expect(most - before).toBeLessThanOrEqual(1);
    expect(process.listenerCount('exit')).toBe(before);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });
});
