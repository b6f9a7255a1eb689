/**
 * Which keys of a repository's hydra.toml wait for `hydra trust` (see trust.ts for the consent
 * itself): removing them from an untrusted file, and the warning that names them.
 */
import { displayPath } from './locate.js';
import type { AgentConfig, HydraConfig } from './schema.js';
import { EXECUTING_KEYS, TOP_LEVEL_EXECUTING_KEYS } from './trust.js';

/** The config without the keys that execute something, and the key paths that were removed. */
export function withoutExecutingKeys(full: HydraConfig): { config: HydraConfig; ignored: string[] } {
  const ignored: string[] = [];
  const config: HydraConfig = { ...full };
  for (const key of TOP_LEVEL_EXECUTING_KEYS) {
    if (config[key] === undefined) continue;
    delete config[key];
    ignored.push(key);
  }
  if (config.agents === undefined) return { config, ignored };
  const agents: Record<string, AgentConfig | undefined> = {};
  for (const [id, agent] of Object.entries(config.agents as Record<string, AgentConfig | undefined>)) {
    if (agent === undefined) continue;
    const kept: Record<string, unknown> = { ...agent };
    for (const key of EXECUTING_KEYS) {
      if (kept[key] === undefined) continue;
      delete kept[key];
      ignored.push(`agents.${id}.${key}`);
    }
    agents[id] = kept as AgentConfig;
  }
  return { config: { ...config, agents: agents as HydraConfig['agents'] }, ignored };
}

/** What to tell the user about an untrusted repository config, or null when nothing was ignored. */
export function untrustedConfigWarning(
  loaded: { path: string | null; trusted: boolean; ignored: readonly string[] },
  cwd: string,
): string | null {
  if (loaded.trusted || loaded.path === null || loaded.ignored.length === 0) return null;
  const file = displayPath(loaded.path, cwd);
  return (
    `${file} is not trusted, so its ${loaded.ignored.join(', ')} ${loaded.ignored.length === 1 ? 'is' : 'are'} ignored ` +
    `(they run programs); review the file, then run \`hydra trust\` to use ${loaded.ignored.length === 1 ? 'it' : 'them'}`
  );
}
