/** `[container]` in hydra.toml, `[race] runner` and `--runner`: where each agent runs (docs/containers.md). */

/** The engine of the environment (`DOCKER_HOST`, else the current Docker context). */
export const DEFAULT_HOST = 'default';

export interface ContainerSettings {
  /** The image every container agent runs in (`[container] image`); null: none configured. */
  image: string | null;
  /** The engines agents are spread over (`[container] hosts`); `[DEFAULT_HOST]` when not given. */
  hosts: string[];
  /** Containers of hydra's one host may run at once (`[container] max_agents`); null: no limit. */
  maxAgents: number | null;
  /** `none`, `bridge` or a network's name (`[container] network`); default `bridge`. */
  network: string;
  /** Build the repository's `.devcontainer/devcontainer.json` as the image (`[container] devcontainer`). */
  devcontainer: boolean;
}

export const DEFAULT_CONTAINER: ContainerSettings = {
  image: null,
  hosts: [DEFAULT_HOST],
  maxAgents: null,
  network: 'bridge',
  devcontainer: false,
};
