/**
 * The kit an adapter file is written with: its one import surface, grouped the way an adapter file
 * reads. An adapter declares its CLI's facts (CliFacts: names, hints, price listing, how its failures read,
 * its tool table), its flag table and requirements (probeCli), its command (commandOf), and parses
 * only what its stream says differently (CliParser with a table of line rules, or AnthropicParser
 * for Claude Code's stream-json), then hands all of it to defineAdapter.
 */

// Its probe: the flag table, the rows CLIs share.
export { GEMINI_FAMILY_FLAGS, MODEL_FLAG, probeCli, resumeFlag } from './probe.js';

// Its command and the adapter itself.
export { commandOf, fullAutonomy, modelArgs, resumeArgs } from './command.js';
export { defineAdapter } from './cli.js';
export type { BuildCommand } from './cli.js';
export type { CliFacts } from './facts.js';
export type { ToolTable } from './tools.js';
export type { ProcessEnd } from '../types.js';

// Its stream: the parser bases, line rules and the pieces of a loose line schema.
export { z } from 'zod';
export { AnthropicParser } from '../anthropic-stream.js';
export { CliParser, rule } from './parser.js';
export { bool, json, num, str, tagged } from './events.js';

// The events it emits, its usage and cost.
export { emptyUsage, ev } from '../../core/events.js';
export type { AgentEvent, CompletedEvent, FailedEvent, Usage } from '../../core/events.js';
export { addUsage, completed, message, partialMessage, toolCall } from './events.js';
export type { UsageCounts } from './events.js';
export { costByModel } from '../prices.js';

// Text, bounded the way events keep it.
export { asNumber, asString, clip, compactJson, firstLine, oneLine, relativePath } from '../../core/text.js';
export { MESSAGE_CHARS, OUTPUT_CHARS } from '../../core/text.js';

// Text a CLI prints outside its JSON stream (a banner, a sign-in prompt).
export { normalizeLine } from '../json-line.js';
export { TEXT_OUTPUT_STAGE } from '../../core/events.js';
