/** The contract: a result's checks run again with the base's tests and test configuration (docs/verdict.md). */
export { contractTree } from './tree.js';
export type { ContractTree } from './tree.js';
export { breaksContract, contractOf } from './summary.js';
export type { ContractSummary } from './summary.js';
