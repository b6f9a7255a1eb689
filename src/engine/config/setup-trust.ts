/**
 * `.cursor/worktrees.json` under the repository's trust (trust.ts): its setup commands run only once
 * `hydra trust` trusted the file (with the script it names); an untrusted one is ignored with a
 * warning naming `hydra trust`. The reading is src/engine/setup/cursor.ts; the consent lives here.
 */
import { readCursorSetup, resolveCursorSetup } from '../setup/index.js';
import type { CursorResolution, SetupSettings } from '../setup/index.js';
import { userConfigPath } from './locate.js';
import { trustFile, trustState, userConfigDirOf } from './trust.js';
import type { TrustEntry } from './trust.js';

/** The race's setup once the repository's `.cursor/worktrees.json` is considered (resolveCursorSetup). */
export const raceSetup = (
  setup: SetupSettings,
  repoRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): CursorResolution => {
  const store = userConfigDirOf(userConfigPath(env));
  return resolveCursorSetup(setup, repoRoot, (file, content) => trustState(store, file, content));
};

/**
 * Trusts the repository's `.cursor/worktrees.json` as it is now (with the script it names): what
 * `hydra trust` with no argument does besides hydra.toml. Null when there is none; `{ problem }`
 * when it cannot be used.
 */
export const trustCursorSetup = (
  repoRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): { file: string; commands: string[]; entry: TrustEntry } | { problem: string } | null => {
  const read = readCursorSetup(repoRoot);
  if (read === null || 'problem' in read) return read;
  const entry = trustFile(userConfigDirOf(userConfigPath(env)), read.file, read.trustContent);
  return { file: read.file, commands: read.commands, entry };
};
