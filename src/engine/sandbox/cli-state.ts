/**
 * A sandboxed agent's own copy of its CLI's state (issue 35, case 4): settings, hooks, MCP servers
 * and instructions in `~/.claude`, `~/.codex/config.toml` and the like run code at the CLI's next
 * start, so the directory an agent may write must never be the one the user's (or the judge's)
 * next run reads. Each agent gets `<run dir>/.state/<agent>`, made once from the user's state (its
 * credentials and settings, not its past sessions, logs and caches: StateDir.copy.skip), pointed at
 * by the CLI's own variable (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, QWEN_HOME, XDG_*), or
 * by a home of its own (HOME: the user's other entries linked, read-only in the jail). It is kept
 * with the run, so a follow-up resumes the CLI's session from it, and never written back.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { AgentAdapter, StateDir } from '../../adapters/types.js';

/** The directory under a run's directory that holds its agents' state copies. */
export const STATE_DIR = '.state';

/** Written once a copy is complete: a later round takes the copy as it is. */
const READY = '.hydra-ready';

export interface CliStateCopy {
  /** The user's (a missing one is made empty in the copy). */
  from: string;
  to: string;
  skip: readonly string[];
}

export interface CliStatePlan {
  /** `<run dir>/.state/<agent>`. */
  root: string;
  /** What the agent runs with: each variable pointed at its part of `root`. */
  env: Record<string, string>;
  copies: CliStateCopy[];
  /** A home of its own (HOME moved): `dir` links every entry of `from` but the copied ones. */
  home: { dir: string; from: string } | null;
}

/** An agent's state area in its run's directory. */
export const agentStateDir = (runDir: string, agent: string): string => path.join(runDir, STATE_DIR, agent);

/** Where a CLI keeps one piece of state: `$env/<under>` when the variable is set, else `~/<path>`. */
export const stateDirPath = (
  dir: StateDir,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): string => {
  const base = dir.env === undefined ? undefined : env[dir.env];
  return base !== undefined && base !== '' ? path.join(base, dir.under ?? '') : path.join(home, dir.path);
};

/**
 * The copy an agent of `adapter` gets in `root`, from the state its environment points at (`env`:
 * hydra's with the agent's `[agents.X] env` over it; `home`: that environment's home). Null for a
 * CLI that declares nothing to copy. Pure.
 */
export function cliStatePlan(
  adapter: AgentAdapter,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  root: string,
): CliStatePlan | null {
  const dirs = (adapter.stateDirs ?? []).filter((dir) => dir.copy !== undefined);
  if (dirs.length === 0) return null;
  const variableDir = (variable: string): string =>
    path.join(root, variable === 'HOME' ? 'home' : variable.toLowerCase());
  const plan: CliStatePlan = { root, env: {}, copies: [], home: null };
  for (const dir of dirs) {
    const copy = dir.copy;
    if (copy === undefined) continue;
    plan.env[copy.variable] = variableDir(copy.variable);
    plan.copies.push({
      from: stateDirPath(dir, env, home),
      to: path.join(variableDir(copy.variable), copy.to),
      skip: copy.skip ?? [],
    });
    if (copy.variable === 'HOME') plan.home = { dir: variableDir('HOME'), from: home };
  }
  return plan;
}

/** Whether the copy was made (by an earlier round of the same agent). */
export const cliStateReady = (root: string): boolean => existsSync(path.join(root, READY));

/**
 * Makes the agent's copy unless an earlier round made it (its sessions are in it): each declared
 * piece copied from the user's, missing ones made empty (a CLI that cannot create its directory
 * in the jail fails: Qwen Code's ENOENT), the home's other entries linked. Synchronous and local.
 */
export function ensureCliState(plan: CliStatePlan): void {
  if (cliStateReady(plan.root)) return;
  rmSync(plan.root, { recursive: true, force: true });
  mkdirSync(plan.root, { recursive: true, mode: 0o700 });
  for (const variableDir of new Set(Object.values(plan.env))) mkdirSync(variableDir, { recursive: true });
  for (const copy of plan.copies) copyState(copy);
  if (plan.home !== null)
    linkHome(
      plan.home.from,
      plan.home.dir,
      plan.copies.map((copy) => path.relative(plan.home?.dir ?? '', copy.to)),
    );
  writeFileSync(path.join(plan.root, READY), '', { mode: 0o600 });
}

/** A piece of state missing at the user's: a directory, unless its name says it is a file. */
const copyState = (copy: CliStateCopy): void => {
  const stat = lstatSync(copy.from, { throwIfNoEntry: false });
  if (stat === undefined) {
    if (path.extname(copy.to) === '.json') mkdirSync(path.dirname(copy.to), { recursive: true });
    else mkdirSync(copy.to, { recursive: true });
    return;
  }
  copyEntry(copy.from, copy.to, new Set(copy.skip));
};

/**
 * Copies one entry: a directory entry by entry (`skip` at its top only), a file with its mode, a
 * link to a file as that file (a settings.json linked from a dotfiles repository must be the
 * copy's to write), any other link as it is; sockets and devices are left out.
 */
function copyEntry(from: string, to: string, skip: ReadonlySet<string> = new Set()): void {
  const stat = lstatSync(from, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isDirectory()) {
    mkdirSync(to, { recursive: true, mode: stat.mode & 0o777 });
    for (const name of readdirSync(from)) {
      if (!skip.has(name)) copyEntry(path.join(from, name), path.join(to, name));
    }
    return;
  }
  if (stat.isSymbolicLink()) {
    const target = statSync(from, { throwIfNoEntry: false });
    if (target?.isFile() === true) copyFile(from, to, target.mode);
    else symlinkSync(readlinkSync(from), to);
    return;
  }
  if (stat.isFile()) copyFile(from, to, stat.mode);
}

const copyFile = (from: string, to: string, mode: number): void => {
  mkdirSync(path.dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, mode & 0o777);
};

/**
 * Fills a home of the agent's own: every entry of the user's home linked, except along the copied
 * paths (`.config/cursor` copied: `.config` is a directory of links to the rest of `.config`).
 */
function linkHome(from: string, dir: string, copied: readonly string[]): void {
  const heads = new Map<string, string[]>();
  for (const relative of copied) {
    const [head, ...rest] = relative.split(path.sep);
    if (head === undefined || head === '' || head === '..') continue;
    heads.set(head, [...(heads.get(head) ?? []), ...(rest.length === 0 ? [] : [rest.join(path.sep)])]);
  }
  let names: string[];
  try {
    names = readdirSync(from);
  } catch {
    return;
  }
  for (const name of names) {
    const below = heads.get(name);
    const target = path.join(dir, name);
    if (below === undefined) {
      if (!existsSync(target)) symlinkSync(path.join(from, name), target);
    } else if (below.length > 0 && lstatSync(path.join(from, name)).isDirectory()) {
      mkdirSync(target, { recursive: true });
      linkHome(path.join(from, name), target, below);
    }
  }
}
