/**
 * `defineAdapter`: what an adapter file declares about its CLI (names, hints, prices, state
 * directories, hosts, and its probe, command and parser) becomes the AgentAdapter the registry
 * holds, with what every CLI does the same way (model-name checks, parser options) filled in.
 */
import type { AdapterError } from '../errors.js';
import { checkModelName } from '../model-name.js';
import type { AgentAdapter, ApiHosts, LineParser, ParserOptions, StateDir } from '../types.js';

/** The facts of one CLI that its probe, parser and hints all read. */
export interface CliFacts {
  readonly id: string;
  readonly displayName: string;
  /** How to install or upgrade it, as one command. */
  readonly installHint: string;
  /** How to sign it in, when it says it is not authenticated. */
  readonly signInHint: string;
}

export interface AdapterDeclaration extends Omit<AgentAdapter, 'validateModel' | 'createParser'> {
  readonly stateDirs: readonly StateDir[];
  readonly api: ApiHosts;
  createParser(options: ParserOptions): LineParser;
}

/** The AgentAdapter for a declaration: model names are checked the one way every CLI shares. */
export const defineAdapter = (declaration: AdapterDeclaration): AgentAdapter => ({
  ...declaration,
  validateModel: (model): AdapterError | null => checkModelName(declaration.id, model),
  createParser: (options = {}) => declaration.createParser(options),
});
