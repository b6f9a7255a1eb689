/**
 * `hydra doctor`'s setup section: what a race here does to make each worktree ready (issue 23):
 * the files it copies (`.worktreeinclude` and `[setup] copy`), the directories it shares
 * (`[setup] share`), the commands it runs and where they come from, and what waits for `hydra trust`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { raceSetup, setupOf } from '../engine/index.js';
import type { loadConfig } from '../engine/index.js';
import type { Style } from './style.js';

export interface DoctorSetup {
  /** Patterns of ignored files copied into each worktree: `.worktreeinclude`'s, then `[setup] copy`. */
  copy: Array<{ pattern: string; source: '.worktreeinclude' | 'hydra.toml' }>;
  /** Ignored directories of the checkout each worktree sees (`[setup] share`). */
  share: string[];
  /** The commands run in each worktree before its agent, and where they come from. */
  run: { commands: string[]; source: 'hydra.toml' | 'cursor' | null; timeoutMs: number };
  /** What is there but not used until `hydra trust` (or cannot be used), one line each. */
  untrusted: string[];
}

/** A `.worktreeinclude`'s patterns: gitignore syntax, blank lines and comments left out. */
const includePatterns = (root: string): string[] => {
  try {
    return readFileSync(path.join(root, '.worktreeinclude'), 'utf8')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
  } catch {
    return [];
  }
};

export function doctorSetup(
  loaded: ReturnType<typeof loadConfig>,
  root: string | null,
  env: NodeJS.ProcessEnv,
): DoctorSetup {
  const settings = setupOf(loaded.config);
  const untrusted: string[] = [];
  if (loaded.ignored.includes('setup.run'))
    untrusted.push(
      '[setup] run in hydra.toml is ignored until you trust the file: review it, then run hydra trust',
    );
  const resolved = root === null ? null : raceSetup(settings, root, env);
  if (resolved?.warning !== null && resolved?.warning !== undefined) untrusted.push(resolved.warning);
  const setup = resolved?.setup ?? settings;
  return {
    copy: [
      ...(root === null ? [] : includePatterns(root)).map((pattern) => ({
        pattern,
        source: '.worktreeinclude' as const,
      })),
      ...settings.copy.map((pattern) => ({ pattern, source: 'hydra.toml' as const })),
    ],
    share: settings.share,
    run: { commands: setup.run, source: setup.runSource, timeoutMs: setup.timeoutMs },
    untrusted,
  };
}

const SOURCE_NAME = { 'hydra.toml': 'hydra.toml [setup] run', cursor: '.cursor/worktrees.json' } as const;

/** The section's lines (values sanitized by the caller's printer). */
export function renderDoctorSetup(setup: DoctorSetup, style: Style): string[] {
  const lines = [style.bold('setup')];
  const copy = setup.copy.map((item) => `${item.pattern} (${item.source})`);
  lines.push(`  copy   ${copy.length === 0 ? style.dim('nothing') : copy.join(', ')}`);
  lines.push(`  share  ${setup.share.length === 0 ? style.dim('nothing') : setup.share.join(', ')}`);
  if (setup.run.source === null) lines.push(`  run    ${style.dim('nothing')}`);
  else {
    lines.push(
      `  run    from ${SOURCE_NAME[setup.run.source]}, each within ${Math.round(setup.run.timeoutMs / 1000)}s:`,
    );
    for (const command of setup.run.commands) lines.push(`           ${command}`);
  }
  for (const line of setup.untrusted) lines.push(`  ${style.yellow('!')} ${line}`);
  return lines;
}
