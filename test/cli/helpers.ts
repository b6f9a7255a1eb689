/**
 * The CLI suites' helpers, over the one stack in test/support/: a sandbox (bin/ first on PATH, its
 * own HOME), a repository copied from a template, `hydra(args, {cwd, env})` (in-process unless the
 * process is the point: test/support/hydra.ts), `git(cwd, args[])` and fake agent CLIs.
 */
import { installFaultAgents } from '../support/fault-bin.js';
import type { FaultScenario } from '../support/fault-bin.js';
import { gitLines } from '../support/git.js';

export { createRepo, createSandbox } from '../support/sandbox.js';
export type { Sandbox } from '../support/sandbox.js';
export { hydra, MAIN, parseNdjson, ROOT } from '../support/hydra.js';
export type { HydraOptions, HydraResult } from '../support/hydra.js';

/** `git(cwd, ['log', '--oneline'])`: git's output without its final newline. */
export const git = gitLines;

export async function installFakes(bin: string, scenarios: Record<string, FaultScenario>): Promise<void> {
  await installFaultAgents(bin, scenarios);
}
