/** Which engines are this machine's own (bind mounts allowed) and which are remote (a bundle goes in). */
import { DEFAULT_HOST } from './settings.js';

/** HYDRA_CONTAINER_REMOTE=1 treats every engine as remote (tests of the bundle flow on a local engine). */
const REMOTE_ENV = 'HYDRA_CONTAINER_REMOTE';

/**
 * Whether the engine at `host` shares this machine's filesystem: a `unix://` socket (or the default
 * engine when DOCKER_HOST is unset or a socket). `tcp://` and `ssh://` engines are remote, even on
 * 127.0.0.1: nothing says they see this machine's files.
 */
export const isLocalEngine = (host: string, env: NodeJS.ProcessEnv = process.env): boolean => {
  if (env[REMOTE_ENV] === '1') return false;
  const address = host === DEFAULT_HOST ? (env['DOCKER_HOST'] ?? 'unix://') : host;
  return address.startsWith('unix://') || address.startsWith('npipe://');
};
