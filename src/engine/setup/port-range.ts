/** Where agents' blocks of ports are taken (`[race] port_range`); data only, so config's RaceOptions can name it. */

/** How many ports one agent's block has: `HYDRA_PORT` is the first; the rest are its to use. */
export const PORT_BLOCK = 10;

/** The ports blocks are taken from (`[race] port_range`), both ends included. */
export interface PortRange {
  first: number;
  last: number;
}

export const DEFAULT_PORT_RANGE: PortRange = { first: 20_000, last: 29_999 };
