/**
 * Loaded into every Node process of a measured command (NODE_OPTIONS=--import=...): at exit it
 * writes the process's own peak RSS and CPU time to $HYDRA_BENCH_PROBE_DIR/<pid>.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.HYDRA_BENCH_PROBE_DIR;

if (dir !== undefined && dir !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const report = {
      pid: process.pid,
      script: process.argv[1] ?? '',
      maxRssKb: usage.maxRSS,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    };
    try {
      writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(report));
    } catch {
      // The bench reports a missing figure rather than break the measured process.
    }
  });
}
