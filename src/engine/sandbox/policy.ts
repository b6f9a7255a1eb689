/**
 * What one agent's sandbox allows, as plain data: the paths it may write (its worktree, its
 * scratch and temp directories, its private git directory, its CLI's state directories: its own
 * copy of them, cli-state.ts), the paths it may not read (credentials, and the other CLIs' state),
 * and the hosts it may reach (its CLI's API, the hosts its base-URL variables and its CLI's own
 * configuration name, endpoints.ts, `[sandbox] allow_hosts`). Everything else on
 * the machine is read-only, and every other host is refused. Built once per agent, before spawning.
 */
import os from 'node:os';
import path from 'node:path';
import { listAdapters } from '../../adapters/registry.js';
import { hostOfEntry, isLoopbackHost, urlAllowEntry } from '../../core/hosts.js';
import type { AgentAdapter } from '../../adapters/types.js';
import { stateDirPath } from './cli-state.js';
import type { SandboxMechanism, SandboxSettings } from './settings.js';

export interface SandboxPolicy {
  /** What runs it (`bubblewrap`, `sandbox-exec`): the summary's `sandbox`. */
  mechanism: SandboxMechanism;
  /** Absolute paths the sandboxed processes may write; everything else is read-only. */
  allowWrite: string[];
  /** Absolute paths they may not read. */
  denyRead: string[];
  /** Absolute paths inside `denyRead` they may read all the same (their own trees). */
  allowRead: string[];
  /** Absolute paths inside `allowWrite` they may not write (the worktree's protected files). */
  denyWrite: string[];
  /**
   * Hosts they may reach (through the sandbox's proxy); every other host is refused. An entry
   * `host:port` (a loopback base URL's) allows that port only.
   */
  allowHosts: string[];
  /** Their private temp directory (TMPDIR), inside `allowWrite`. */
  tmpDir: string;
  /** The loopback hosts of `allowHosts` (without their ports): reached through the proxy, so not in NO_PROXY. */
  loopbackHosts: string[];
}

/**
 * Credentials no agent reads: keys, cloud and cluster logins, registry and forge tokens. Paths
 * under the home directory.
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.config/hub',
  '.config/gcloud',
  '.azure',
  '.docker',
  '.kube',
  '.netrc',
  '.git-credentials',
  '.pypirc',
];

/**
 * Files and folders of a worktree that run code in the user's tools when opened or used there (an
 * editor's tasks, an MCP server, a slash command, a submodule's URL, a shell's rc file): what the
 * sandbox library protects in hydra's own working directory (its DANGEROUS_FILES and dangerous
 * directories), protected here in the agent's worktree, where the agent works. Relative paths.
 */
export const PROTECTED_PATHS: readonly string[] = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
  // direnv runs a directory's .envrc in the user's shell on `cd`; husky's hooks run in their git.
  '.envrc',
  '.husky',
];

/** Whether a repository path is, or is inside, a protected path at the repository's top (`.vscode/x`). */
export const isProtectedAtTop = (file: string): boolean => {
  // In any case: on a case-insensitive disk (macOS) `.VSCode` is the editor's `.vscode`.
  const lower = file.toLowerCase();
  return PROTECTED_PATHS.some((entry) => lower === entry || lower.startsWith(`${entry}/`));
};

/** Whether a repository path (`a/b/.vscode/tasks.json`) is, or is inside, a protected path at any depth. */
export const isProtectedPath = (file: string): boolean => {
  const parts = file.split('/');
  return parts.some((_, at) => isProtectedAtTop(parts.slice(at).join('/')));
};

/**
 * Where hydra keeps the agents' trees and the run records, which no agent reads but its own:
 * `area` holds every run's worktrees, scratch and private git directories of this repository (and
 * the pool), `records` the run records (`.hydra/runs`).
 */
export interface RivalsHidden {
  area: string;
  records: string;
  /** Its own paths in the area besides its trees (its copy of its CLI's state). */
  own?: readonly string[];
}

export interface AgentPolicyInput {
  mechanism: SandboxMechanism;
  /** The agent's CLI. */
  adapter: AgentAdapter;
  /**
   * The environment it runs with (hydra's, the configured `env` over it, its state copy's
   * variables over that): its state directories, its home (`HOME`) and base URLs.
   */
  env: Readonly<Record<string, string | undefined>>;
  worktree: string;
  scratchDir: string;
  /** Its private git directory (`<run dir>/.git-private/<agent>`), writable whether or not it exists yet. */
  privateGitDir: string;
  tmpDir: string;
  settings: SandboxSettings;
  /** URLs its CLI's own configuration names (endpoints.ts): their hosts join the allowlist. */
  endpoints?: readonly string[];
  /** The user's home (default os.homedir()): its credentials are denied whatever HOME the agent has. */
  home?: string;
  /** Rivals' trees and the run records, unreadable to it (its own trees excepted). */
  hidden?: RivalsHidden;
}

/** Every base-URL variable some CLI reads (ANTHROPIC_BASE_URL, OPENAI_BASE_URL...). */
const baseUrlVariables = (): string[] => [
  ...new Set(listAdapters().flatMap((adapter) => adapter.api?.baseUrlEnv ?? [])),
];

/** The hosts the agent may reach: its CLI's, its base URLs' (loopback by port) and the configured ones. */
const allowedHosts = (
  input: Pick<AgentPolicyInput, 'adapter' | 'env' | 'settings' | 'endpoints'>,
): string[] => {
  const urls = [
    ...baseUrlVariables().flatMap((name) => {
      const value = input.env[name];
      return value === undefined || value === '' ? [] : [value];
    }),
    ...(input.endpoints ?? []),
  ];
  const fromUrls = urls.flatMap((url) => {
    const entry = urlAllowEntry(url);
    return entry === null ? [] : [entry];
  });
  return [...new Set([...(input.adapter.api?.hosts ?? []), ...fromUrls, ...input.settings.allowHosts])];
};

/** The state directories of every other CLI (their tokens and sessions are not this agent's). */
const otherCliState = (own: AgentAdapter, env: AgentPolicyInput['env'], home: string): string[] => {
  const mine = new Set((own.stateDirs ?? []).map((dir) => stateDirPath(dir, env, home)));
  return listAdapters()
    .filter((adapter) => adapter.id !== own.id)
    .flatMap((adapter) => (adapter.stateDirs ?? []).map((dir) => stateDirPath(dir, env, home)))
    .filter((dir) => !mine.has(dir) && ![...mine].some((kept) => isAtOrUnder(kept, dir)));
};

const isAtOrUnder = (child: string, parent: string): boolean => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/**
 * One agent's policy (pure: reads no file). Its state directories are those of the home it runs
 * with (an `[agents.X] env` HOME's, or its state copy's), and the credentials and other CLIs'
 * state of both that home and the user's are denied.
 */
export function agentPolicy(input: AgentPolicyInput): SandboxPolicy {
  const userHome = input.home ?? os.homedir();
  const agentHome =
    input.env['HOME'] !== undefined && input.env['HOME'] !== '' ? input.env['HOME'] : userHome;
  const homes = [...new Set([agentHome, userHome])];
  const home = userHome;
  const state = (input.adapter.stateDirs ?? []).map((dir) => stateDirPath(dir, input.env, agentHome));
  const allowHosts = allowedHosts(input);
  // A relative `allow_write` entry names a path of the worktree (`.vscode`): the way to let agents
  // write a protected one. Every other entry is absolute or `~/`.
  const relative = input.settings.allowWrite.filter(isWorktreeEntry).map((entry) => path.normalize(entry));
  const own = [
    input.worktree,
    input.scratchDir,
    input.tmpDir,
    input.privateGitDir,
    ...(input.hidden?.own ?? []),
  ];
  return {
    mechanism: input.mechanism,
    allowWrite: [
      ...new Set([
        ...own,
        ...state,
        ...input.settings.allowWrite
          .filter((entry) => !isWorktreeEntry(entry))
          .map((entry) => path.resolve(home, expandHome(entry, home))),
      ]),
    ],
    denyRead: [
      ...new Set([
        ...homes.flatMap((each) => CREDENTIAL_PATHS.map((entry) => path.join(each, entry))),
        ...homes.flatMap((each) => otherCliState(input.adapter, input.env, each)),
        ...(input.hidden === undefined ? [] : [input.hidden.area, input.hidden.records]),
      ]),
    ],
    allowRead: input.hidden === undefined ? [] : own,
    denyWrite: PROTECTED_PATHS.filter(
      (entry) => !relative.some((allowed) => entry === allowed || entry.startsWith(`${allowed}/`)),
    ).map((entry) => path.join(input.worktree, entry)),
    allowHosts,
    tmpDir: input.tmpDir,
    loopbackHosts: [...new Set(allowHosts.map(hostOfEntry).filter(isLoopbackHost))],
  };
}

/** An `allow_write` entry that names a path of the worktree: neither absolute nor `~`. */
const isWorktreeEntry = (entry: string): boolean =>
  !path.isAbsolute(entry) && entry !== '~' && !entry.startsWith('~/');

/** `~/x` → `<home>/x`; anything else as written. */
const expandHome = (entry: string, home: string): string =>
  entry === '~' ? home : entry.startsWith('~/') ? path.join(home, entry.slice(2)) : entry;

/**
 * The policy for a command hydra runs in another tree (an agent's checks, in a clean checkout of
 * its commit; the baseline; a cross-test): that tree and the temp directory writable, nothing
 * else; reads and hosts as the policy's.
 */
export const treePolicy = (policy: SandboxPolicy, tree: string, tmpDir = policy.tmpDir): SandboxPolicy => ({
  ...policy,
  allowWrite: [tree, tmpDir],
  allowRead: policy.allowRead.length === 0 ? [] : [tree, tmpDir],
  denyWrite: [],
  tmpDir,
});

export interface RacePolicyInput {
  mechanism: SandboxMechanism;
  settings: SandboxSettings;
  /** The environment the commands run with (hydra's): where the CLIs keep their state. */
  env: Readonly<Record<string, string | undefined>>;
  /** More paths no command may read (the agents' worktrees, the run record). */
  denyRead?: readonly string[];
  home?: string;
}

/**
 * The policy the race's own commands start from (the baseline's checks, cross-testing: tests no
 * agent runs, but an agent may have written), made a tree's with treePolicy: nothing writable but
 * that tree and its temp directory, no credentials and no CLI's state readable (a test needs
 * none), and only the hosts `[sandbox] allow_hosts` names.
 */
export function racePolicy(input: RacePolicyInput): SandboxPolicy {
  const home = input.home ?? os.homedir();
  const state = listAdapters().flatMap((adapter) =>
    (adapter.stateDirs ?? []).map((dir) => stateDirPath(dir, input.env, home)),
  );
  const allowHosts = [...new Set(input.settings.allowHosts)];
  return {
    mechanism: input.mechanism,
    allowWrite: [],
    denyRead: [
      ...new Set([
        ...CREDENTIAL_PATHS.map((entry) => path.join(home, entry)),
        ...state,
        ...(input.denyRead ?? []),
      ]),
    ],
    allowRead: [],
    denyWrite: [],
    allowHosts,
    tmpDir: os.tmpdir(),
    loopbackHosts: [...new Set(allowHosts.map(hostOfEntry).filter(isLoopbackHost))],
  };
}
