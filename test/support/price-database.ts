/**
 * Every test file starts with the price database loaded, as the engine loads it before it parses
 * an agent's output (agent-process.ts, race-rounds.ts): a parser test replays a stream without an
 * engine.
 */
import { loadPriceDatabase } from '../../src/adapters/prices.js';

await loadPriceDatabase();
