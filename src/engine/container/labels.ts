/**
 * The labels on everything hydra creates on an engine (containers, volumes), and their names: the
 * watchdog, `hydra clean` and a cancelled race remove them by these labels.
 */
import { CONTAINER_LABELS } from '../process/index.js';
import { repoKey } from '../records/index.js';
import type { AgentName } from '../agent-name.js';

// One list of names, shared with the watchdog and `hydra clean` (process/container-labels.ts).
const LABEL_RUN = CONTAINER_LABELS.run;
const LABEL_AGENT = CONTAINER_LABELS.agent;
const LABEL_REPO = CONTAINER_LABELS.repo;
export const LABEL_MANAGED = CONTAINER_LABELS.managed;
export const LABEL_KEEP = CONTAINER_LABELS.keep;

export interface LabelOwner {
  runId: string;
  agent: AgentName;
  repoRoot: string;
}

export const containerLabels = (owner: LabelOwner): Record<string, string> => ({
  [LABEL_RUN]: owner.runId,
  [LABEL_AGENT]: owner.agent,
  [LABEL_REPO]: repoKey(owner.repoRoot),
  [LABEL_MANAGED]: '1',
});

/** `--label k=v` for each label. */
export const labelArgs = (labels: Record<string, string>): string[] =>
  Object.entries(labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]);

/** Docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*: anything else in an agent's name becomes `_`. */
const safe = (text: string): string => text.replace(/[^a-zA-Z0-9_.-]/g, '_');

/** The agent's container: one per agent and round, never shared. */
export const containerName = (runId: string, agent: AgentName): string =>
  `hydra-${safe(runId)}-${safe(agent)}`;

/** The agent's volumes: `home` (its CLI's session store, kept for follow-ups), `work` (a remote engine's workspace). */
export const volumeName = (runId: string, agent: AgentName, use: 'home' | 'work'): string =>
  `hydra-${safe(runId)}-${safe(agent)}-${use}`;

/** `--filter label=...` for a run's (or, without a run, every hydra-managed) containers and volumes. */
export const labelFilters = (scope: { runId?: string; repoRoot?: string }): string[] => [
  '--filter',
  `label=${LABEL_MANAGED}=1`,
  ...(scope.runId === undefined ? [] : ['--filter', `label=${LABEL_RUN}=${scope.runId}`]),
  ...(scope.repoRoot === undefined ? [] : ['--filter', `label=${LABEL_REPO}=${repoKey(scope.repoRoot)}`]),
];
