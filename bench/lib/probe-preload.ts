/**
 * Loaded into every Node process of a measured command (NODE_OPTIONS=--import=...): at exit it
 * writes the process's own peak RSS and CPU time to $HYDRA_BENCH_PROBE_DIR/<pid>.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.HYDRA_BENCH_PROBE_DIR;

/**
 * The fake agent calls process.exit() right after its last write; when its stdout is a pipe the
 * reader has not drained, the tail still queued in libuv is lost (the race then sees no result
 * line). In the fake agent only, let exit wait until stdout has flushed.
 */
if (process.argv[1]?.endsWith('fake-agent.js') === true) {
  const exitNow = process.exit.bind(process);
  const exitAfterFlush = (code?: number | string | null): never => {
    process.exitCode = code ?? undefined;
    process.stdout.write('', () => exitNow(code ?? undefined));
    return undefined as never;
  };
  process.exit = exitAfterFlush;
}

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
