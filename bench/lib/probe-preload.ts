/**
 * Loaded into every Node process of a measured command (NODE_OPTIONS=--import=...): at exit it
 * writes the process's own peak RSS, CPU time, start and exit time (epoch ms) to $HYDRA_BENCH_PROBE_DIR/<pid>-<uuid>.json.
 */
import { randomUUID } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
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
      endedAt: performance.timeOrigin + performance.now(),
    };
    try {
      // Agents in PID namespaces of their own share small pids: the name needs more than the pid.
      const name = `${process.pid}-${randomUUID()}`;
      writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(report));
      renameSync(path.join(dir, `${name}.tmp`), path.join(dir, `${name}.json`));
    } catch {
      // The bench reports a missing figure rather than break the measured process.
    }
  });
}
