#!/usr/bin/env node
/**
 * The simulated agent CLI of `hydra demo` (and of the tests that need no misbehaviour):
 * `node dist/demo/fake-agent.js --scenario <file> -- <args>`.
 *
 * It answers `--version`, `--help` and `<subcommand> --help` from the agent's recorded fixtures
 * (fixtures/adapters/<agent>/help/<latest version>/), and otherwise replays a recorded JSONL stream
 * on stdout with a delay between lines, writing real files into its working directory so a race
 * has something to merge (replay.ts). Hangs, crashes, garbage and stray processes are the tests'
 * fault agent's (test/support/fault-agent.ts), which dist/ does not ship.
 */
import { runFakeAgent } from './replay.js';

await runFakeAgent();
