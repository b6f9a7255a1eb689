/**
 * The state every CLI's parser keeps besides its stream's own: prices (hydra.toml's over the price
 * database's), the model asked for and the one the stream names, the worktree for relative paths,
 * the tool names by call id, and the run state finishRun reads. Subclasses read their stream.
 */
import type { z } from 'zod';
import { ev } from '../../core/events.js';
import type { AgentEvent, ErrorInfo, ProgressEvent, Usage } from '../../core/events.js';
import { clip, MESSAGE_CHARS } from '../../core/text.js';
import type { RunState } from '../finish.js';
import { JsonLineParser } from '../json-line-parser.js';
import { isDefaultModel } from '../model-name.js';
import { pricesOf, withEstimatedCost } from '../prices.js';
import type { Prices } from '../prices.js';
import type { ParserOptions } from '../types.js';
import type { CliFacts } from './facts.js';
import { classifyFailure } from './failures.js';
import type { Failure } from './failures.js';
import { toolCall, toolResult } from './events.js';
import { withRefusals } from './refusals.js';
import { summarizeTool } from './tools.js';

/** What one type of line becomes: null when the line is not of the shape its schema expects. */
export type LineRule = (value: Record<string, unknown>) => AgentEvent[] | null;

/** A line type's rule: its schema, and what a line of that shape becomes. */
export const rule =
  <S extends z.ZodType>(schema: S, read: (line: z.infer<S>) => AgentEvent[] | null): LineRule =>
  (value) => {
    const line = schema.safeParse(value);
    return line.success ? read(line.data) : null;
  };

export abstract class CliParser extends JsonLineParser {
  protected readonly state: RunState;
  protected readonly prices: Prices;
  /** The model hydra.toml or --model asked for (none for "default"). */
  protected readonly requestedModel: string | undefined;
  /** The model the stream named, once it did. */
  protected model: string | undefined;
  protected cwd: string | undefined;
  /** Whether it runs in hydra's OS sandbox, whose refusals its tools' output reports. */
  protected readonly sandboxed: boolean;
  /** Tool names by call id, so a result can name its tool. */
  protected readonly toolNames = new Map<string, string>();

  constructor(
    protected readonly cli: CliFacts,
    options: ParserOptions,
  ) {
    super();
    this.state = { displayName: cli.displayName, sawJson: false, authHint: cli.signInHint };
    this.prices = pricesOf(options.prices, cli.priceListing);
    this.requestedModel = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
    this.sandboxed = options.sandboxed === true;
  }

  /** The stream's line types by `type`, and what each becomes (see `rule`); unlisted types are unknown. */
  protected readonly lines: Readonly<Record<string, LineRule>> = {};

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    const type = value['type'];
    const read = typeof type === 'string' && Object.hasOwn(this.lines, type) ? this.lines[type] : undefined;
    return read === undefined ? null : read(value);
  }

  protected get displayName(): string {
    return this.state.displayName;
  }

  /** The model a cost is estimated for: the one the stream named, else the one asked for. */
  protected pricedModel(): string | undefined {
    return this.model ?? this.requestedModel;
  }

  protected priced(usage: Usage): Usage {
    return withEstimatedCost(usage, this.pricedModel(), this.prices);
  }

  protected classify(failure: Failure): ErrorInfo {
    return classifyFailure(this.cli, failure);
  }

  protected summarize(name: string, input: unknown, label?: string): string {
    return summarizeTool(this.cli.tools ?? {}, name, input, this.cwd, label);
  }

  /** The `init` progress event: the session to resume and the model, when the stream names them. */
  protected init(
    sessionId: string | null | undefined,
    model: string | null | undefined,
    detail?: string,
  ): ProgressEvent {
    return ev({
      kind: 'progress',
      stage: 'init',
      ...(detail === undefined || detail === '' ? {} : { detail }),
      ...(sessionId ? { sessionId } : {}),
      ...(model ? { model } : {}),
    });
  }

  /** A tool's call the first time its id is seen (its name remembered for the result), else nothing. */
  protected callOnce(id: string, name: string, summary: string, input: unknown): AgentEvent[] {
    if (this.toolNames.has(id)) return [];
    this.toolNames.set(id, name);
    return [toolCall(id, name, summary, input)];
  }

  /** A tool's result, then, in the sandbox, a warning for each refusal its output reports (kit/refusals.ts). */
  protected resultEvents(
    id: string,
    name: string | undefined,
    ok: boolean,
    output: string,
    summary?: string,
  ): AgentEvent[] {
    const result = toolResult(id, name, ok, output, summary);
    return this.sandboxed ? withRefusals(result, name, output, this.cwd) : [result];
  }

  /** The answer text, remembered (clipped) as the run's last words. */
  protected answer(text: string): void {
    this.state.lastText = clip(text, MESSAGE_CHARS);
  }
}
