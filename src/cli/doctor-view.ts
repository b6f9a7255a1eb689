/** `hydra doctor`'s report: its JSON shape and its text rendering (pure functions over the types). */
import { adapterOf } from '../adapters/registry.js';
import type { AdapterId, Capabilities, Tier } from '../adapters/types.js';
import {
  blocksRace,
  describeContainment,
  describeProcessGuards,
  describeSandbox,
  guardsComplete,
  processGuards,
} from '../engine/index.js';
import type {
  AdapterStatus,
  AgentProbeReport,
  Containment,
  RepoInfo,
  SandboxSettings,
  SandboxSupport,
} from '../engine/index.js';
import { shortRef } from '../ui/index.js';
import { shellJoin } from './shell-quote.js';
import { table } from './table.js';
import type { Style } from './style.js';

/** The config file doctor read, and whether its executing keys are in use. */
export interface DoctorConfig {
  path: string | null;
  source: 'flag' | 'repository' | 'user' | null;
  /** False for a repository's hydra.toml not trusted yet (`hydra trust`). */
  trusted: boolean;
  /** Keys left out until the file is trusted, e.g. `agents.claude.binary`. */
  ignored: string[];
}

export interface DoctorJson {
  config: DoctorConfig;
  /** RepoInfo, with `gitVersion` spelled `version` in the JSON. */
  git: Omit<RepoInfo, 'gitVersion'> & { version: string | null };
  /** Each adapter's probe report, its `adapterId` spelled `id` (no agent name, display name or cache flag). */
  adapters: Array<
    { id: AdapterId } & Pick<
      AgentProbeReport,
      'tier' | 'status' | 'binary' | 'version' | 'capabilities' | 'command' | 'warnings' | 'error'
    >
  >;
  /** How each agent's process tree is kept together (containment.ts). */
  processes: {
    containment: Containment['kind'];
    description: string;
    /** Where the run marker is looked up: /proc, ps (macOS, the BSDs, HYDRA_PORTABLE=1), or nowhere. */
    table: 'proc' | 'ps' | 'none';
    /** Whether a race here starts its watchdog. */
    watchdog: boolean;
    /** doctor's containment line. */
    summary: string;
  };
  /** The OS sandbox a race would put each agent in (src/engine/sandbox). */
  sandbox?: {
    mode: SandboxSettings['mode'];
    available: boolean;
    mechanism: string | null;
    description: string;
  };
}

export function doctorJson(
  repo: RepoInfo,
  adapters: readonly AgentProbeReport[],
  config: DoctorConfig,
  containment: Containment,
  sandbox?: DoctorSandbox,
): DoctorJson {
  return {
    config,
    git: {
      version: repo.gitVersion,
      isRepo: repo.isRepo,
      root: repo.root,
      branch: repo.branch,
      detached: repo.detached,
      head: repo.head,
      hasCommits: repo.hasCommits,
      dirtyFiles: repo.dirtyFiles,
      problems: repo.problems,
    },
    adapters: adapters.map((report) => ({
      id: report.adapterId,
      tier: report.tier,
      status: report.status,
      binary: report.binary,
      version: report.version,
      capabilities: report.capabilities,
      command: report.command,
      warnings: report.warnings,
      error: report.error,
    })),
    processes: processesJson(containment),
    ...(sandbox === undefined ? {} : { sandbox: sandboxJson(sandbox) }),
  };
}

/** The containment, the process table the run marker is found in, and whether a race starts its watchdog. */
const processesJson = (containment: Containment): DoctorJson['processes'] => {
  const guards = processGuards(containment);
  return {
    containment: containment.kind,
    description: describeContainment(containment),
    table: guards.table,
    watchdog: guards.watchdogProblem === null,
    summary: describeProcessGuards(guards),
  };
};

/** What doctor knows of the sandbox: the mode a race would use and whether the machine can (null: off, not checked). */
export interface DoctorSandbox {
  mode: SandboxSettings['mode'];
  support: SandboxSupport | null;
  /** Every agent runs in a container (its jail): the OS sandbox does not apply to any. */
  allInContainers?: boolean;
}

/** The sandbox's line: what a race in this mode does on this machine, and the fix when it cannot. */
const sandboxLine = ({ mode, support, allInContainers }: DoctorSandbox): string => {
  if (allInContainers === true)
    return 'sandbox: not used: every agent runs in a container, which is its jail (the OS sandbox is for agents on this machine)';
  if (mode === 'off' || support === null)
    return 'sandbox: off (sandbox mode "off"): agents run unsandboxed, with your full powers';
  if (support.available || mode === 'auto') return `sandbox: ${describeSandbox(support)}`;
  return `sandbox: required, so a race is refused here: ${support.reason}. ${support.hint}`;
};

const sandboxJson = (sandbox: DoctorSandbox): NonNullable<DoctorJson['sandbox']> => ({
  mode: sandbox.mode,
  available: sandbox.support?.available ?? false,
  mechanism: sandbox.support?.available === true ? sandbox.support.mechanism : null,
  description: sandboxLine(sandbox),
});

/** Exit code rule: 0 when at least one tier-1 adapter is ready. */
export const doctorPasses = (adapters: readonly AgentProbeReport[]): boolean =>
  adapters.some((report) => report.tier === 'tier1' && report.status === 'ready');

export function renderDoctor(
  repo: RepoInfo,
  adapters: readonly AgentProbeReport[],
  style: Style,
  configLine: string,
  /** Said under the config line, e.g. which keys of an untrusted hydra.toml were ignored. */
  configNotes: readonly string[],
  containment: Containment,
  /** The agents hydra.toml's `race.agents` races, by name (`opus` runs claude), when it lists them. */
  raceAgents?: readonly RaceAgent[],
  sandbox?: DoctorSandbox,
): string[] {
  const lines: string[] = [];
  lines.push(style.bold('git'));
  lines.push(...renderGit(repo, style));
  lines.push('');
  lines.push(style.bold('config'));
  lines.push(`  ${configLine}`);
  for (const note of configNotes) lines.push(`  ${style.yellow('!')} ${note}`);
  lines.push('');
  lines.push(style.bold('processes'));
  const guards = processGuards(containment);
  const contained = containment.kind === 'pid-namespace' && guardsComplete(guards);
  lines.push(
    `  ${(contained ? style.green : style.yellow)(`containment: ${describeProcessGuards(guards)}`)}`,
  );
  if (sandbox !== undefined) {
    const ok =
      sandbox.allInContainers === true || (sandbox.mode !== 'off' && sandbox.support?.available === true);
    lines.push(`  ${(ok ? style.green : style.yellow)(sandboxLine(sandbox))}`);
  }
  lines.push('');
  lines.push(style.bold('agents'));
  const heads = table(adapters.map((report) => adapterHeadCells(report, style)));
  adapters.forEach((report, index) => {
    lines.push(...renderAdapter(report, heads[index] ?? report.adapterId, style));
  });
  lines.push('');
  lines.push(...renderVerdict(repo, adapters, style, raceAgents));
  return lines;
}

/** An agent a configured race runs: its name and the CLI it runs. */
export interface RaceAgent {
  name: string;
  adapterId: AdapterId;
}

function renderGit(repo: RepoInfo, style: Style): string[] {
  const lines: string[] = [];
  lines.push(`  version     ${repo.gitVersion ?? style.red('not found')}`);
  if (repo.isRepo) {
    const where = repo.detached ? style.yellow('detached HEAD') : `branch ${repo.branch ?? '?'}`;
    const head = repo.head ? ` at ${shortRef(repo.head)}` : '';
    lines.push(`  repository  ${repo.root ?? '?'} (${where}${head})`);
    const dirty =
      repo.dirtyFiles === 0
        ? 'clean'
        : `${repo.dirtyFiles} uncommitted ${repo.dirtyFiles === 1 ? 'file' : 'files'} (never touched; races start from HEAD)`;
    lines.push(`  changes     ${dirty}`);
  } else {
    lines.push(`  repository  ${style.red('not a git repository')}`);
  }
  for (const problem of repo.problems) {
    lines.push(`  ${style.red('✗')} ${problem.message}`);
    if (problem.hint) lines.push(`    ${style.dim(`→ ${problem.hint}`)}`);
  }
  return lines;
}

const STATUS_LABEL: Record<AdapterStatus, (style: Style) => string> = {
  ready: (style) => style.green('ready'),
  missing: (style) => style.red('missing'),
  unsupported: (style) => style.red('unsupported'),
  disabled: (style) => style.dim('disabled'),
  'needs-opt-in': (style) => style.yellow('needs-opt-in'),
};

const TIER_LABEL: Record<Tier, string> = { tier1: 'tier 1', experimental: 'experimental' };

function adapterHeadCells(report: AgentProbeReport, style: Style): string[] {
  const version = report.version ? `v${report.version.replace(/^v/, '')}` : '';
  const cached = report.cached ? style.dim(' (cached probe)') : '';
  return [
    `  ${style.bold(report.adapterId)}`,
    STATUS_LABEL[report.status](style),
    TIER_LABEL[report.tier],
    `${version}${cached}`,
  ];
}

function renderAdapter(report: AgentProbeReport, head: string, style: Style): string[] {
  const lines: string[] = [head];
  if (report.binary) lines.push(`    binary    ${report.binary}`);
  if (report.capabilities) lines.push(`    features  ${describeFeatures(report.capabilities)}`);
  if (report.command) lines.push(`    command   ${shellJoin(report.command)}`);
  for (const warning of report.warnings) lines.push(`    ${style.yellow('!')} ${warning}`);
  if (report.error) {
    lines.push(`    ${style.red('✗')} ${report.error.message}`);
    lines.push(`      ${style.dim(`→ ${report.error.hint || fallbackHint(report)}`)}`);
  } else if (report.status !== 'ready') {
    lines.push(`    ${style.dim(`→ ${fallbackHint(report)}`)}`);
  }
  return lines;
}

function describeFeatures(capabilities: Capabilities): string {
  const on = Object.entries(capabilities.features)
    .filter(([, enabled]) => enabled)
    .map(([name]) => name);
  const off = Object.entries(capabilities.features)
    .filter(([, enabled]) => !enabled)
    .map(([name]) => `no ${name}`);
  const confidence = capabilities.confidence === 'verified' ? '' : ` [flags ${capabilities.confidence}]`;
  return [...on, ...off].join(', ') + confidence || '(none)';
}

/** A recovery hint for statuses that come without an error. */
function fallbackHint(report: AgentProbeReport): string {
  switch (report.status) {
    case 'ready':
      return '';
    case 'needs-opt-in':
      return `${report.adapterId} is experimental: race it with --allow-experimental-adapters (or race.allow_experimental_adapters = true in hydra.toml)`;
    case 'disabled':
      return `enable it with agents.${report.adapterId}.enabled = true in hydra.toml`;
    case 'missing':
      return `install the ${report.displayName} CLI, or set agents.${report.adapterId}.binary in hydra.toml`;
    case 'unsupported':
      return `upgrade the ${report.displayName} CLI, then run hydra doctor again`;
  }
}

/** What to do about a tier-1 agent that is not ready: install, upgrade or enable it. */
const remedy = (report: AgentProbeReport): string | null => {
  const hint = adapterOf(report.adapterId).installHint;
  switch (report.status) {
    case 'missing':
      return `install ${report.displayName} (${hint})`;
    case 'unsupported':
      return `upgrade ${report.displayName}${report.version === null ? '' : ` (found ${report.version})`}`;
    case 'disabled':
      return `enable ${report.adapterId} (agents.${report.adapterId}.enabled = true in hydra.toml)`;
    case 'needs-opt-in':
      return `opt in to ${report.adapterId} (--allow-experimental-adapters)`;
    case 'ready':
      return null;
  }
};

/** The last lines: whether a race can run here, agreeing with what was found above. */
function renderVerdict(
  repo: RepoInfo,
  adapters: readonly AgentProbeReport[],
  style: Style,
  raceAgents: readonly RaceAgent[] | undefined,
): string[] {
  const ready = adapters.filter((report) => report.status === 'ready').map((report) => report.adapterId);
  // Ready CLIs outside the default race (Gemini CLI, Qwen Code) race only when named.
  const byDefault = ready.filter((id) => adapterOf(id).inDefaultRace !== false);
  const whenNamed = ready.filter((id) => adapterOf(id).inDefaultRace === false);
  const stopper = repo.problems.find(blocksRace);
  if (doctorPasses(adapters)) {
    if (stopper !== undefined)
      return [
        style.yellow(`agents ready (${ready.join(', ')}), but hydra cannot race here: ${stopper.message}`),
        style.dim(`next: ${stopper.hint}`),
      ];
    if (raceAgents !== undefined) return configuredVerdict(adapters, raceAgents, style);
    const named =
      whenNamed.length === 0 ? '' : ` (${whenNamed.join(', ')} when named: --agents ${ready.join(',')})`;
    if (byDefault.length === 0)
      return [
        style.green(`ready to race with --agents ${whenNamed.join(',')}`),
        style.dim(`next: hydra race --agents ${whenNamed.join(',')} "<prompt>"`),
      ];
    return [
      style.green(`ready to race: ${byDefault.join(', ')}${named}`),
      style.dim('next: hydra race "<prompt>"'),
    ];
  }
  const remedies = adapters
    .filter((report) => report.tier === 'tier1')
    .map(remedy)
    .filter((text): text is string => text !== null);
  return [
    style.red('no tier-1 agent is ready: hydra race would have nothing to run'),
    ...(remedies.length === 0 ? [] : [style.dim(`${remedies.join(', or ')};`)]),
    style.dim('or try hydra with simulated agents: hydra demo'),
  ];
}

/** The verdict for hydra.toml's `race.agents`: its agents by their names, and which of them cannot run. */
function configuredVerdict(
  adapters: readonly AgentProbeReport[],
  raceAgents: readonly RaceAgent[],
  style: Style,
): string[] {
  const reportOf = (agent: RaceAgent): AgentProbeReport | undefined =>
    adapters.find((report) => report.adapterId === agent.adapterId);
  const ready = raceAgents.filter((agent) => reportOf(agent)?.status === 'ready');
  const blocked = raceAgents
    .filter((agent) => reportOf(agent)?.status !== 'ready')
    .map((agent) => {
      const report = reportOf(agent);
      return report === undefined ? agent.name : `${agent.name} (${report.displayName} ${report.status})`;
    });
  const names = ready.map((agent) => agent.name).join(', ');
  if (blocked.length === 0)
    return [style.green(`ready to race: ${names} (race.agents)`), style.dim('next: hydra race "<prompt>"')];
  if (ready.length === 0)
    return [
      style.red(`none of race.agents can race: ${blocked.join(', ')}`),
      style.dim('next: fix the agents above, or name ready ones with --agents'),
    ];
  return [
    style.yellow(`ready to race: ${names} (race.agents); not ready: ${blocked.join(', ')}`),
    style.dim(
      `next: fix the agents above, or race the ready ones: hydra race --agents ${ready.map((agent) => agent.name).join(',')} "<prompt>"`,
    ),
  ];
}
