/**
 * The kit an adapter file is written with: one import for everything its CLI's facts need.
 * An adapter declares its CLI (defineAdapter), its flag table and requirements (probeCli), how
 * its failures read (FailureRules), its tool table (ToolTable), and parses only what its stream
 * says differently (CliParser, or AnthropicParser for Claude Code's stream-json).
 */
export { z } from 'zod';
export { emptyUsage, ev, TEXT_OUTPUT_STAGE } from '../../core/events.js';
export type { AgentEvent, CompletedEvent, ErrorInfo, FailedEvent, Usage } from '../../core/events.js';
export {
  asNumber,
  asString,
  clip,
  compactJson,
  firstLine,
  MESSAGE_CHARS,
  oneLine,
  OUTPUT_CHARS,
  relativePath,
} from '../../core/text.js';
export { AnthropicParser } from '../anthropic-stream.js';
export { looksLikeAuthFailure } from '../finish.js';
export { normalizeLine } from '../json-line.js';
export { costByModel, estimateCost, priceFor } from '../prices.js';
export type {
  AgentAdapter,
  BuiltCommand,
  Capabilities,
  ModelPrice,
  ParserOptions,
  PriceTable,
  ProcessEnd,
  SpawnRequest,
} from '../types.js';
export { defineAdapter } from './cli.js';
export type { BuildCommand } from './cli.js';
export type { CliFacts } from './facts.js';
export { commandOf, modelArgs, resumeArgs } from './command.js';
export { classifyFailure, SHOW_RUN, statusIn } from './failures.js';
export {
  addUsage,
  bool,
  json,
  message,
  num,
  partialMessage,
  str,
  tagged,
  toolCall,
  toolResult,
} from './events.js';
export type { UsageCounts } from './events.js';
export { CliParser, rule } from './parser.js';
export type { LineRule } from './parser.js';
export { GEMINI_FAMILY_FLAGS, MODEL_FLAG, probeCli, resumeFlag } from './probe.js';
export type { ToolTable } from './tools.js';
