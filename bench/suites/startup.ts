/**
 * Benchmark 3: start-up. `hydra --version` and `hydra doctor --json` (with a warm probe cache and
 * a cold one) against `node -e 0`, all in a temp repository with the fake agents on PATH.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { defaultScenarios } from '../../src/demo/fake-bin.js';
import { expectExit, measureCommand } from '../lib/measure.js';
import { median, ratio } from '../lib/stats.js';
import type { Workspace } from '../lib/workspace.js';

export interface StartupRow {
  name: string;
  command: string;
  wallMs: number;
  cpuMs: number;
  /** Wall time over `node -e 0`'s. */
  wallRatio: number;
  addedWallMs: number;
}

export interface StartupResult {
  repeats: number;
  rows: StartupRow[];
}

interface Variant {
  name: string;
  argv: string[];
  /** Run before each measured run (not timed). */
  prepare?: () => void;
}

export async function benchStartup(ws: Workspace, repeats: number): Promise<StartupResult> {
  const binDir = await ws.installBin('startup', defaultScenarios(0));
  const env = ws.env(binDir);
  const capabilityCache = path.join(ws.repo, '.cache', 'hydra', 'adapter-capabilities.json');
  const variants: Variant[] = [
    { name: 'node -e 0 (baseline)', argv: [process.execPath, '-e', '0'] },
    { name: 'hydra --version', argv: [...ws.hydra, '--version'] },
    { name: 'hydra doctor --json, cached probe', argv: [...ws.hydra, 'doctor', '--json'] },
    {
      name: 'hydra doctor --json, cold probe',
      argv: [...ws.hydra, 'doctor', '--json'],
      prepare: () => rmSync(capabilityCache, { force: true }),
    },
  ];
  // Warm the file cache and the probe cache once.
  for (const variant of variants) await measureCommand(variant.argv, { cwd: ws.repo, env });
  const walls = variants.map(() => [] as number[]);
  const cpus = variants.map(() => [] as number[]);
  for (let index = 0; index < repeats; index += 1) {
    for (const [position, variant] of variants.entries()) {
      variant.prepare?.();
      const sample = expectExit(await measureCommand(variant.argv, { cwd: ws.repo, env }), 0, variant.name);
      walls[position]?.push(sample.wallMs);
      cpus[position]?.push(sample.cpuMs);
    }
  }
  const baselineWall = median(walls[0] ?? []);
  const rows = variants.map((variant, position): StartupRow => {
    const wallMs = median(walls[position] ?? []);
    return {
      name: variant.name,
      command: variant.argv
        .map((arg) =>
          arg === process.execPath ? 'node' : path.isAbsolute(arg) ? path.relative(process.cwd(), arg) : arg,
        )
        .join(' '),
      wallMs,
      cpuMs: median(cpus[position] ?? []),
      wallRatio: ratio(wallMs, baselineWall),
      addedWallMs: wallMs - baselineWall,
    };
  });
  return { repeats, rows };
}
