/**
 * `defineAdapter`: what an adapter file declares about its CLI (names, hints, price listing, state
 * directories, hosts, the variables it reads, and its probe, command and parser) becomes the AgentAdapter the registry
 * holds, with what every CLI does the same way (model-name checks, parser options) filled in.
 */
import type { AdapterError } from '../errors.js';
import { checkModelName } from '../model-name.js';
import type {
  AgentAdapter,
  ApiHosts,
  CliEnvironment,
  LineParser,
  ParserOptions,
  StateDir,
} from '../types.js';
import type { CliFacts } from './facts.js';

/** A CLI's buildCommand (its own flags; commandOf adds the prompt and env). */
export type BuildCommand = AgentAdapter['buildCommand'];

export interface AdapterDeclaration extends Omit<AgentAdapter, 'validateModel' | 'createParser'> {
  readonly stateDirs: readonly StateDir[];
  readonly api: ApiHosts;
  readonly environment: CliEnvironment;
  createParser(options: ParserOptions): LineParser;
}

/** The AgentAdapter for a declaration: model names are checked the one way every CLI shares. */
export const defineAdapter = ({
  failures: _failures,
  tools: _tools,
  ...declaration
}: AdapterDeclaration & Partial<CliFacts>): AgentAdapter => ({
  ...declaration,
  validateModel: (model): AdapterError | null => checkModelName(declaration.id, model),
  createParser: (options = {}) => declaration.createParser(options),
});
