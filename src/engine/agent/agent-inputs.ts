/**
 * What the agent machine's invoked actors start from, built from its context. Pure: no input
 * builder throws or does I/O (a throw there would crash the machine instead of reaching onError).
 */
import path from 'node:path';
import { checkoutDirOf, contractDirOf } from '../checks/index.js';
import { commitSubject } from '../git/index.js';
import { knownSecrets } from '../records/index.js';
import type { ChecksInput } from './agent-actors.js';
import type { AgentContext, AgentLaunch, FinalizeInput, SettledStatus } from './agent-types.js';

const commitMessage = (launch: AgentLaunch, status: SettledStatus): string => {
  const subject = commitSubject(launch.prompt);
  // A named agent says which CLI it ran: `agent opus (claude)`.
  const cli = launch.adapter === launch.agent ? '' : ` (${launch.adapter})`;
  const round = launch.round === undefined || launch.round === 1 ? '' : `, round ${launch.round}`;
  return `hydra: ${launch.agent} result (${status}${round}): ${subject}\n\nRun ${launch.runId}, agent ${launch.agent}${cli}${round}, status ${status}.\n`;
};

/** The commit of the agent's work on its branch, and its diff against the base (`finalizeResult`). */
export const finalizeInput = (context: AgentContext): FinalizeInput => ({
  repoRoot: context.launch.repoRoot,
  worktree: context.launch.worktree,
  branch: context.launch.branch,
  baseRef: context.launch.baseRef,
  message: commitMessage(context.launch, context.status ?? 'failed'),
  agent: context.launch.agent,
  ...(context.launch.refsAtStart === undefined ? {} : { refsAtStart: context.launch.refsAtStart }),
});

/** Its checks, in a clean checkout of its committed result beside its worktree (`runChecks`). */
export const checksInput = (context: AgentContext): ChecksInput => ({
  launch: context.launch,
  place: {
    repoRoot: context.launch.repoRoot,
    commit: context.commit ?? context.launch.baseRef,
    dir: checkoutDirOf(path.dirname(context.launch.worktree), context.launch.agent),
    // The base's tests on its result, when it changed them (checks/contract).
    contractDir: contractDirOf(path.dirname(context.launch.worktree), context.launch.agent),
    area: path.dirname(context.launch.worktree),
    base: context.launch.baseRef,
    secrets: knownSecrets(context.launch.env),
    // Its result is its code: hydra's environment without the credentials the user did not pass.
    environment: { pass: context.launch.checkPassEnv ?? [] },
    copy: context.launch.copy ?? [],
    runId: context.launch.runId,
    owner: `check:${context.launch.agent}`,
    // Its checks are who it is, with its ports (HYDRA_AGENT, HYDRA_PORT: setup/env.ts).
    identity: { agent: context.launch.agent, port: context.launch.port ?? null },
    processes: context.processes,
    graceMs: context.launch.graceMs,
    ...(context.launch.shared === undefined ? {} : { shared: context.launch.shared }),
  },
  slots: context.checkSlots,
});
