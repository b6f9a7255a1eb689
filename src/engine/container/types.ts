/** What a container agent's launch carries (AgentLaunch.container), and what the runner reports. */

export interface ContainerLaunch {
  /** The engine it runs on (a `[container] hosts` entry, or `default`); set by placeContainers. */
  host: string;
  image: string;
  /** `none`, `bridge` or a network's name. */
  network: string;
  /** No bind mounts: the base goes in as a git bundle, the result comes back as one (workspace.ts). */
  remote: boolean;
  /** Names of the user's variables passed in as `-e NAME` (API keys: their values never go on a command line). */
  passEnv: string[];
  /** `[container] max_agents` on its host (set by placeContainers): it waits for room there (slots.ts); null: no limit. */
  maxAgents?: number | null;
  /** The configured binary, when it is a path the image must have; else the CLI runs by name from the image's PATH. */
  binaryPath?: string;
}

/** Where the CLI's session store lives in the container (HOME), on the agent's `home` volume. */
export const CONTAINER_HOME = '/hydra/home';
