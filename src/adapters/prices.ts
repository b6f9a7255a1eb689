/**
 * Default prices in USD per million tokens, used to estimate cost when a CLI does not report it
 * (Codex never does; Claude reports it in its `result` line, and these only price the running
 * total before that). Users override or extend them in hydra.toml (ParserOptions.prices).
 * Cache write prices are the 5-minute cache rate.
 */
import type { Usage } from './events.js';
import type { ModelPrice, PriceTable } from './types.js';

const anthropic = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: input * 0.1,
  cacheWritePerMTok: input * 1.25,
});

const openai = (input: number, output: number, cachedInput: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: cachedInput,
});

export const DEFAULT_PRICES: PriceTable = {
  // Anthropic (Claude Code)
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  opus: anthropic(5, 25),
  sonnet: anthropic(3, 15),
  haiku: anthropic(1, 5),
  // OpenAI (Codex)
  'gpt-5.2-codex': openai(1.75, 14, 0.175),
  'gpt-5.2': openai(1.75, 14, 0.175),
  'gpt-5.1-codex-max': openai(1.25, 10, 0.125),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5.1-codex': openai(1.25, 10, 0.125),
  'gpt-5.1': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  'gpt-5': openai(1.25, 10, 0.125),
  'codex-mini-latest': openai(1.5, 6, 0.375),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1': openai(2, 8, 0.5),
  o3: openai(2, 8, 0.5),
  'o4-mini': openai(1.1, 4.4, 0.275),
};

/** Defaults with the user's overrides on top. */
export const mergePrices = (overrides: PriceTable | undefined): PriceTable => ({
  ...DEFAULT_PRICES,
  ...(overrides ?? {}),
});

/**
 * The price for a model: an exact match first, then the longest table key the model name starts
 * with at a separator ("claude-sonnet-4-5-20250929" → "claude-sonnet-4-5"; "gpt-5-codex" is not
 * priced as "gpt-5" when "gpt-5-codex" exists). Case-insensitive. Undefined when unknown.
 */
export const priceFor = (model: string | undefined, table: PriceTable): ModelPrice | undefined => {
  if (model === undefined || model === '') return undefined;
  const name = model.toLowerCase();
  const keys = Object.keys(table);
  const exact = keys.find((key) => key.toLowerCase() === name);
  if (exact !== undefined) return table[exact];
  let best: string | undefined;
  for (const key of keys) {
    const lower = key.toLowerCase();
    if (!name.startsWith(lower)) continue;
    const next = name.charAt(lower.length);
    if (next !== '-' && next !== '@' && next !== ':') continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  return best === undefined ? undefined : table[best];
};

/**
 * Estimated cost of the tokens in `usage`. `inputTokens` are uncached input tokens; cache reads
 * and writes are priced at their own rates (falling back to the input rate when a table entry has
 * none).
 */
export const estimateCost = (usage: Usage, price: ModelPrice): number => {
  const perToken = (perMTok: number): number => perMTok / 1_000_000;
  const cost =
    usage.inputTokens * perToken(price.inputPerMTok) +
    usage.outputTokens * perToken(price.outputPerMTok) +
    usage.cacheReadTokens * perToken(price.cacheReadPerMTok ?? price.inputPerMTok) +
    usage.cacheWriteTokens * perToken(price.cacheWritePerMTok ?? price.inputPerMTok);
  return Math.round(cost * 1e6) / 1e6;
};

/** Fills in an estimated cost when a price is known, or marks the cost unknown. */
export const withEstimatedCost = (usage: Usage, model: string | undefined, table: PriceTable): Usage => {
  const price = priceFor(model, table);
  return price === undefined
    ? { ...usage, costUsd: null, costSource: 'unknown' }
    : { ...usage, costUsd: estimateCost(usage, price), costSource: 'estimated' };
};
