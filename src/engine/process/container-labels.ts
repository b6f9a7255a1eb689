/**
 * The labels on every container and volume hydra creates on an engine, by which the watchdog
 * (watchdog.sh) and `hydra clean` find what a run left: `io.hydra.run=<run id>`,
 * `io.hydra.agent=<agent>`, `io.hydra.repo=<repoKey(repository root)>` (records/paths.ts),
 * `io.hydra.managed=1`, and `io.hydra.keep=1` on a volume that outlives its race (an agent's
 * session store, which `hydra continue` resumes from): the watchdog leaves those to `hydra clean`.
 */
export const CONTAINER_LABELS = {
  run: 'io.hydra.run',
  agent: 'io.hydra.agent',
  repo: 'io.hydra.repo',
  managed: 'io.hydra.managed',
  keep: 'io.hydra.keep',
} as const;

/** The container runner's name for the engine of the environment (container/settings.ts DEFAULT_HOST). */
export const ENVIRONMENT_ENGINE = 'default';

/**
 * Whether `host` may be handed to the docker CLI as `--host=<host>`: an engine address
 * (`unix://`, `tcp://`, `ssh://`, `npipe://`, `fd://`) of plain characters, or `''` or `default`
 * (the engine of the environment: DOCKER_HOST or the current context). A host comes from the user's config, so
 * the watchdog's shell never sees anything that could be more than one argument; watchdog.sh
 * checks the same again.
 */
export const isEngineHost = (host: string): boolean =>
  host === '' ||
  host === ENVIRONMENT_ENGINE ||
  /^(unix|tcp|ssh|npipe|fd|http|https):\/\/[A-Za-z0-9._~:/@%+=,[\]-]*$/.test(host);
