/**
 * Cost estimates in USD, used when a CLI does not report its cost. A model's price comes from
 * hydra.toml `[prices]` when it names the model, else from the price database
 * `@pydantic/genai-prices` (current prices of every major provider's models, with cache read and
 * write prices and dated price changes; hydra keeps no price table of its own).
 *
 * The database is ~0.8 MB of data, bundled into a chunk of its own: loading it costs ~25 ms of
 * CPU, so it is loaded once, when a race first needs it (`loadPriceDatabase`: the engine starts it
 * as an agent spawns and parses the agent's output once it is in). Until then only `[prices]` is
 * known.
 *
 * A long-context tier (e.g. Claude Sonnet above 200k input tokens) applies to one request's
 * prompt; hydra sees usage summed over a run's requests, so it prices every token at the base
 * tier.
 */
import { hasTokenCounts, type Usage } from '../core/events.js';
import type { calcPrice } from '@pydantic/genai-prices';
import type { ModelPrice, PriceListing, PriceTable } from './types.js';

/** The database's one function hydra uses (its module is imported on first need). */
interface PriceDatabase {
  calcPrice: typeof calcPrice;
}

let database: PriceDatabase | undefined;
let loading: Promise<void> | undefined;
const found = new Map<string, ModelPrice | undefined>();

/** Loads the price database once; every later call returns the same promise. */
export const loadPriceDatabase = (): Promise<void> =>
  (loading ??= import('@pydantic/genai-prices').then((module) => {
    database = module;
  }));

/** Where a model's price is looked up: the user's `[prices]`, and how the database lists its CLI's models. */
export interface Prices {
  readonly overrides: PriceTable;
  readonly listing?: PriceListing;
}

/** Prices from hydra.toml `[prices]` over the database, for a CLI whose models the database may list elsewhere. */
export const pricesOf = (overrides: PriceTable | undefined, listing?: PriceListing): Prices =>
  listing === undefined ? { overrides: overrides ?? {} } : { overrides: overrides ?? {}, listing };

/**
 * A `[prices]` entry for a model: an exact match first, then the longest key the model name starts
 * with at a separator ("claude-sonnet-4-5-20250929" → "claude-sonnet-4-5"; "gpt-5-codex" is not
 * priced as "gpt-5" when "gpt-5-codex" exists). Case-insensitive.
 */
const tableEntry = (name: string, table: PriceTable): ModelPrice | undefined => {
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

/** A database price's base rate: a number, or the first tier of tiered prices (see the header). */
const baseRate = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'base' in value && typeof value.base === 'number')
    return value.base;
  return undefined;
};

/**
 * The database's price for a model today: as named (`gemini-3.8-flash`); a `provider/model` name
 * (opencode's `anthropic/claude-sonnet-4-5`) by its provider, as OpenRouter lists it, and by its
 * model part; and the model part as the CLI's listing names it (Qwen's `qwen3-coder-plus` is
 * OpenRouter's `qwen/qwen3-coder-plus`).
 */
const databasePrice = (
  db: PriceDatabase,
  model: string,
  listing: PriceListing | undefined,
): ModelPrice | undefined => {
  const slash = model.indexOf('/');
  const part = model.slice(slash + 1);
  const tries: Array<[string, string | undefined]> = [[model, undefined]];
  if (slash > 0) tries.push([part, model.slice(0, slash)], [model, 'openrouter'], [part, undefined]);
  if (listing !== undefined) tries.push([`${listing.prefix}${part}`, listing.provider]);
  for (const [modelId, providerId] of tries) {
    let result;
    try {
      result = db.calcPrice({ input_tokens: 1 }, modelId, providerId === undefined ? {} : { providerId });
    } catch {
      continue;
    }
    if (result === null) continue;
    const price = result.model_price;
    const input = baseRate(price['input_mtok']);
    const output = baseRate(price['output_mtok']);
    if (input === undefined || output === undefined) continue;
    const cacheRead = baseRate(price['cache_read_mtok']);
    const cacheWrite = baseRate(price['cache_write_mtok']);
    return {
      inputPerMTok: input,
      outputPerMTok: output,
      ...(cacheRead === undefined ? {} : { cacheReadPerMTok: cacheRead }),
      ...(cacheWrite === undefined ? {} : { cacheWritePerMTok: cacheWrite }),
    };
  }
  return undefined;
};

/**
 * The price for a model: `[prices]` first (a `provider/model` name by its full name, then by the
 * model part), then the database (once loaded). Undefined when unknown.
 */
export const priceFor = (model: string | undefined, prices: Prices): ModelPrice | undefined => {
  if (model === undefined || model === '') return undefined;
  const name = model.toLowerCase();
  const part = name.split('/').at(-1) ?? name;
  const configured =
    tableEntry(name, prices.overrides) ?? (part === name ? undefined : tableEntry(part, prices.overrides));
  if (configured !== undefined || database === undefined) return configured;
  // Dated prices change at midnight UTC: a lookup is kept for its day.
  const day = new Date().toISOString().slice(0, 10);
  const key = `${day}:${prices.listing?.provider ?? ''}:${prices.listing?.prefix ?? ''}:${name}`;
  if (!found.has(key)) found.set(key, databasePrice(database, name, prices.listing));
  return found.get(key);
};

/**
 * Estimated cost of the tokens in `usage`. `inputTokens` are uncached input tokens; cache reads
 * and writes are priced at their own rates (falling back to the input rate when a price has
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
export const withEstimatedCost = (usage: Usage, model: string | undefined, prices: Prices): Usage => {
  const price = priceFor(model, prices);
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
  prices: Prices,
): Pick<Usage, 'costUsd' | 'costSource'> => {
  let cost = 0;
  for (const [model, usage] of usages) {
    const price = priceFor(model, prices);
    if (price === undefined) return { costUsd: null, costSource: 'unknown' };
    cost += estimateCost(usage, price);
  }
  return usages.length === 0
    ? { costUsd: null, costSource: 'unknown' }
    : { costUsd: Math.round(cost * 1e6) / 1e6, costSource: 'estimated' };
};
