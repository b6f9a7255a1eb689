/**
 * `--check auto` and `[race] checks = "auto"`: the project's own test command in place of `auto`.
 * hydra.toml's `[[checks]]` are the first evidence; else the command found from the repository's
 * files (checks/detect.ts). A detected command is the repository's code. `--check auto` typed on
 * the command line is the user's consent to run it, as typing `--check "npm test"` would be (it runs
 * where checks run: in the sandbox where there is one). `[race] checks = "auto"` in a config is
 * nobody's typing, so it follows the trust rule of every key that widens what runs: the command runs
 * once the file it came from is trusted (`hydra trust package.json`), and an untrusted one is refused
 * with what to do, never run silently.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectTestCommand } from '../checks/index.js';
import type { DetectedCheck } from '../checks/index.js';
import { ConfigError } from './config-error.js';
import type { LoadedConfig } from './load.js';
import { displayPath, findRepoRoot, userConfigPath } from './locate.js';
import type { RaceFlags } from './resolve.js';
import { linkedOutside, trustState, userConfigDirOf } from './trust.js';

const AUTO_CHECK = 'auto';

const isAuto = (check: string): boolean => check.trim().toLowerCase() === AUTO_CHECK;

/** What `--check auto` would run here, and whether it may: for the race and for `hydra doctor`. */
export interface AutoCheckState {
  /** `[[checks]]` of hydra.toml (the first evidence), by name; empty when it has none. */
  configChecks: string[];
  /** hydra.toml names checks that were left out because it is not trusted. */
  configChecksIgnored: boolean;
  /** The command found from the repository's files, or null. */
  detected: DetectedCheck | null;
  /** The file it came from is trusted as it is now (`hydra trust <file>`). */
  trusted: boolean;
  /** Why not: never trusted, edited since, or a link out of the repository. */
  why: 'untrusted' | 'changed' | 'outside' | null;
}

/** Reads what `--check auto` finds for the repository holding `cwd`. */
export function autoCheckState(loaded: LoadedConfig, cwd: string, env?: NodeJS.ProcessEnv): AutoCheckState {
  const configChecks = (loaded.config.checks ?? []).map((check) => check.name);
  const configChecksIgnored = loaded.ignored.includes('checks');
  const root = findRepoRoot(cwd);
  const detected = root === null ? null : detectTestCommand(root);
  if (root === null || detected === null)
    return { configChecks, configChecksIgnored, detected, trusted: false, why: null };
  const file = join(root, detected.source);
  if (linkedOutside(file) !== null)
    return { configChecks, configChecksIgnored, detected, trusted: false, why: 'outside' };
  const state = trustState(userConfigDirOf(userConfigPath(env)), file, readFileSync(file));
  return {
    configChecks,
    configChecksIgnored,
    detected,
    trusted: state === 'trusted',
    why: state === 'trusted' ? null : state,
  };
}

/** One line for doctor and the race: what auto runs, or why it runs nothing. */
export function describeAutoCheck(state: AutoCheckState, configName: string): string {
  if (state.configChecks.length > 0) return `${configName} [[checks]]: ${state.configChecks.join(', ')}`;
  if (state.detected === null) return 'no test command found';
  const found = `\`${state.detected.run}\` (${state.detected.evidence})`;
  if (state.trusted) return `${found}, trusted`;
  const why =
    state.why === 'changed'
      ? `${state.detected.source} changed since you trusted it`
      : state.why === 'outside'
        ? `${state.detected.source} is a link out of the repository`
        : `${state.detected.source} is not trusted`;
  return `${found}; ${why}: --check auto typed on the command line runs it; [race] checks = "auto" runs it once you review it and run \`hydra trust ${state.detected.source}\``;
}

/**
 * The flags with `auto` replaced by the project's test command (none when hydra.toml's `[[checks]]`
 * are the evidence), and a note saying what auto chose; throws a ConfigError naming what to do when
 * nothing can run.
 */
export function resolveAutoChecks(
  loaded: LoadedConfig,
  flags: RaceFlags,
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): { flags: RaceFlags; notes: string[] } {
  const fromFlag = (flags.checks ?? []).some(isAuto);
  const fromConfig = loaded.config.race?.checks === AUTO_CHECK;
  if (!fromFlag && !fromConfig) return { flags, notes: [] };
  const asked = fromFlag ? '--check auto' : 'race.checks = "auto"';
  const rest = (flags.checks ?? []).filter((check) => !isAuto(check));
  const without: RaceFlags = { ...flags };
  delete without.checks;
  if (rest.length > 0) without.checks = rest;
  const configName = loaded.path === null ? 'hydra.toml' : displayPath(loaded.path, options.cwd);
  const state = autoCheckState(loaded, options.cwd, options.env);
  if (state.configChecks.length > 0)
    return {
      flags: without,
      notes: [`${asked}: the project's checks are ${describeAutoCheck(state, configName)}`],
    };
  if (state.configChecksIgnored)
    throw new ConfigError({
      problems: [
        `${asked}: ${configName} names the project's checks ([[checks]]), but it is not trusted, so they cannot run; review it, then run \`hydra trust\` (or name a command yourself: --check "<command>")`,
      ],
    });
  const detected = state.detected;
  if (detected === null)
    throw new ConfigError({
      problems: [
        `${asked} found no test command: no [[checks]] in ${configName}, no package.json scripts.test, no pytest config (pyproject.toml, pytest.ini, setup.cfg, tox.ini), go.mod, Cargo.toml or Makefile test target; name one: --check "<command>"`,
      ],
    });
  // Typed on the command line, `auto` is consent to what it finds (a link out of the repository aside).
  const consented = fromFlag && state.why !== 'outside';
  if (!state.trusted && !consented)
    throw new ConfigError({
      problems: [
        fromFlag
          ? `${asked} found ${JSON.stringify(detected.run)} in ${detected.source}, which is a link out of the repository: hydra does not run it; name the command yourself: --check ${JSON.stringify(detected.run)}`
          : `${asked} found \`${detected.run}\` (${detected.evidence}); it is the repository's code and the config is nobody's typing, so hydra runs it only once you review ${detected.source} and run \`hydra trust ${detected.source}\` (or pass --check auto, or name the command yourself: --check ${JSON.stringify(detected.run)})`,
      ],
    });
  return {
    flags: { ...without, checks: [...rest, detected.run] },
    notes: [`${asked}: running \`${detected.run}\` in every result and on the base (${detected.evidence})`],
  };
}
