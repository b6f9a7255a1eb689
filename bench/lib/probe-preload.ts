/**
 * Loaded into every Node process of a measured command (NODE_OPTIONS=--import=...): at exit it
 * writes the process's own peak RSS, CPU time and start time (epoch ms) to $HYDRA_BENCH_PROBE_DIR/<pid>.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const dir = process.env.HYDRA_BENCH_PROBE_DIR;

if (dir !== undefined && dir !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const report = {
      pid: process.pid,
      script: process.argv[1] ?? '',
      maxRssKb: usage.maxRSS,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      startedAt: performance.timeOrigin,
    };
    try {
      writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(report));
    } catch {
      // The bench reports a missing figure rather than break the measured process.
    }
  });
}
