/**
 * Where and how hydra runs a command of the race in a tree that is not the agent's own process: a
 * setup command, a check, a cross-test. One shape, each field said once; every runner takes the
 * part of it that it uses (SetupPlace, checks' CheckPlace and CommitCheckPlace, the baseline's and
 * cross-testing's inputs). The race builds its part once (race/race-inputs.ts, racePlace) and an
 * agent's comes from its launch; each passes it down to the trees it makes. It lives here, under
 * checks/, because setup commands are the first of these commands a tree runs.
 */
import type { CommandEnvironment, Limiter, ProcessRegistry } from '../process/index.js';
import type { KnownSecret } from '../records/index.js';
import type { SandboxPolicy } from '../sandbox/index.js';
import type { CommandContainer } from '../container/index.js';
import type { SetupPlan } from './plan.js';
import type { PortLeases } from './ports.js';
import type { ShareMount, SharedDir } from './share.js';

export interface RunPlace {
  /** The tree the command runs in (never the user's checkout). */
  cwd: string;
  /** The user's checkout: `ROOT_WORKTREE_PATH` for setup commands written for Cursor, the source of copied files. */
  repoRoot: string;
  runId: string;
  /**
   * Whose commands: `check:<agent>`, `check:baseline`, `setup:<agent>`, `setup:check:<agent>`. Each
   * check's processes are marked `<owner>:<check name>` (HYDRA_OWNER): the supervisor kills what
   * carries its marker once the check ends, so two checks running at once must not share one.
   */
  owner: string;
  /** The race's process registry: everything started is registered with the race and stopped with it. */
  processes: ProcessRegistry;
  /** The race's limit on checks running at once. */
  slots: Limiter;
  /** SIGTERM to SIGKILL. */
  graceMs: number;
  signal?: AbortSignal;
  /**
   * Configured values to redact from what is recorded (the agents' `env`); the secret-looking values
   * of hydra's own environment, which the commands inherit, are always redacted too.
   */
  secrets?: readonly KnownSecret[];
  /** Run in the OS sandbox with this policy (a sandboxed agent's setup and checks); null: not. */
  sandbox?: SandboxPolicy | null;
  /**
   * What the commands get of hydra's environment (process/agent-env.ts, commandEnvironment): every
   * variable but the credentials, and those `[race] check_pass_env` passes; the whole of it
   * (`whole`) only where they run nothing an agent wrote (the baseline, an agent's setup on the
   * base). Absent: no credential at all.
   */
  environment?: CommandEnvironment;
  /** `[setup] copy` (copy.ts): the user's ignored files a checkout gets besides `.worktreeinclude`'s. */
  copy?: readonly string[];
  /** The checkout's directories shared into each tree made (`[setup] share`). */
  shared?: readonly SharedDir[];
  /**
   * The shared directories mounted in `cwd` (worktreeShares): a setup command gets its worktree's
   * own, so what it installs stays; runChecks gives each of its checks a layer of its own (ownLayers).
   */
  shares?: readonly ShareMount[];
  /** The race's port blocks: a tree runs with its agent's block (the baseline's its own); absent: none. */
  ports?: PortLeases;
  /**
   * Whose tree it is: the commands get HYDRA_AGENT, HYDRA_PORT and PORT of that agent (or the
   * baseline), HYDRA_RUN_ID, and HYDRA_WORKTREE = `cwd` (env.ts); absent: none of them.
   */
  identity?: { agent: string; port: number | null };
  /** The race's setup commands, run in a checkout before its checks; null or absent: none. */
  setup?: SetupPlan | null;
  /**
   * Run each command in a fresh container of this image, `cwd` bind-mounted at its path (a
   * container agent's setup and checks: container/exec.ts); null or absent: on this machine.
   */
  container?: CommandContainer | null;
}

/** What running a setup command in a tree needs (run.ts). */
export type SetupPlace = Pick<RunPlace, 'cwd' | 'repoRoot' | 'runId' | 'owner' | 'processes' | 'graceMs'> &
  Partial<
    Pick<RunPlace, 'signal' | 'secrets' | 'sandbox' | 'shares' | 'identity' | 'container' | 'environment'>
  >;

/**
 * The race's part, built once per race (race/race-inputs.ts, racePlace): what the baseline and
 * cross-testing start from, before each makes its trees (`container`: where the base's tree runs;
 * `sandbox`: the policy each of their trees' own is made from with treePolicy, null when the race's
 * agents are not sandboxed).
 */
export type RacePlace = Pick<RunPlace, 'repoRoot' | 'runId' | 'processes' | 'slots' | 'graceMs'> &
  Partial<
    Pick<
      RunPlace,
      'secrets' | 'copy' | 'shared' | 'ports' | 'setup' | 'container' | 'sandbox' | 'environment'
    >
  >;
