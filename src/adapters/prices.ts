/**
 * Cost estimates from price tables in USD per million tokens, used when a CLI does not report its
 * cost. Each adapter declares the prices of the models it runs (AgentAdapter.prices); users override
 * or extend them in hydra.toml (ParserOptions.prices).
 */
import { hasTokenCounts, type Usage } from '../core/events.js';
import type { ModelPrice, PriceTable } from './types.js';

/** An adapter's default prices with the user's overrides on top. */
export const mergePrices = (defaults: PriceTable, overrides: PriceTable | undefined): PriceTable => ({
  ...defaults,
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
 * none). A count that was not reported adds nothing.
 */
export const estimateCost = (usage: Usage, price: ModelPrice): number => {
  const perToken = (perMTok: number): number => perMTok / 1_000_000;
  const cost =
    (usage.inputTokens ?? 0) * perToken(price.inputPerMTok) +
    (usage.outputTokens ?? 0) * perToken(price.outputPerMTok) +
    (usage.cacheReadTokens ?? 0) * perToken(price.cacheReadPerMTok ?? price.inputPerMTok) +
    (usage.cacheWriteTokens ?? 0) * perToken(price.cacheWritePerMTok ?? price.inputPerMTok);
  return Math.round(cost * 1e6) / 1e6;
};

/** Fills in an estimated cost when a price and some token count are known, or marks the cost unknown. */
export const withEstimatedCost = (usage: Usage, model: string | undefined, table: PriceTable): Usage => {
  const price = priceFor(model, table);
  return price === undefined || !hasTokenCounts(usage)
    ? { ...usage, costUsd: null, costSource: 'unknown' }
    : { ...usage, costUsd: estimateCost(usage, price), costSource: 'estimated' };
};

/**
 * The cost of usage split by model (a run whose side calls went to other models): the sum of each
 * model's estimate, or unknown when there is none or any of the models has no price.
 */
export const costByModel = (
  usages: readonly (readonly [model: string, usage: Usage])[],
  table: PriceTable,
): Pick<Usage, 'costUsd' | 'costSource'> => {
  let cost = 0;
  for (const [model, usage] of usages) {
    const price = priceFor(model, table);
    if (price === undefined) return { costUsd: null, costSource: 'unknown' };
    cost += estimateCost(usage, price);
  }
  return usages.length === 0
    ? { costUsd: null, costSource: 'unknown' }
    : { costUsd: Math.round(cost * 1e6) / 1e6, costSource: 'estimated' };
};
