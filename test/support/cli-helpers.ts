/**
 * The CLI suites' helpers, over the one stack in test/support/: a sandbox (bin/ first on PATH, its
 * own HOME), a repository copied from a template, `hydra(args, {cwd, env})` (in-process unless the
 * process is the point: test/support/hydra.ts), `git(cwd, args[])` and fake agent CLIs.
 */
import { installFaultAgents } from './fault-bin.js';
import type { FaultScenario } from './fault-bin.js';
import { gitLines } from './git.js';

export { createRepo, createSandbox } from './sandbox.js';
export type { Sandbox } from './sandbox.js';
export { hydra, MAIN, parseNdjson, ROOT } from './hydra.js';
export type { HydraOptions, HydraResult } from './hydra.js';

/** `git(cwd, ['log', '--oneline'])`: git's output without its final newline. */
export const git = gitLines;

export async function installFakes(bin: string, scenarios: Record<string, FaultScenario>): Promise<void> {
  await installFaultAgents(bin, scenarios);
}
