/** The ledger of past races (`hydra stats`) and the agents chosen by it (`--agents auto`). */
export { AUTO_AGENTS, chooseAgents, MIN_RACES } from './choose.js';
export type { AutoChoice, AutoInput } from './choose.js';
export { journalRecord, ledgerRepos, readLedger } from './read-ledger.js';
export type { Ledger, LedgerOptions, LedgerSkipped } from './read-ledger.js';
export { dataDir, indexedRepositories, rememberRepository, repositoryIndexPath } from './repo-index.js';
export { ledgerName, runFacts, tallyFacts, tallyRuns } from './tally.js';
export type { AgentFact, AgentLedger, LedgerRun } from './tally.js';
