/**
 * vitest's global setup for the suites that run fake agents: compiles the fault agent
 * (fault-agent.ts, with the demo's replay it imports) into one file, .cache/test-bin/fault-agent.js,
 * from the current source on every run. It is the tests' own build: scripts/build.mjs (dist/)
 * leaves it out, so the package ships none of the faults.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { FAULT_AGENT_SCRIPT } from './fault-scenario.js';

export default async function setup(): Promise<void> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('fault-agent.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild wrote no fault agent');
  // Written aside, then renamed: a second vitest in this checkout never runs a half-written file.
  mkdirSync(path.dirname(FAULT_AGENT_SCRIPT), { recursive: true });
  const partial = `${FAULT_AGENT_SCRIPT}.${process.pid}.tmp`;
  writeFileSync(partial, output.contents);
  renameSync(partial, FAULT_AGENT_SCRIPT);
}
