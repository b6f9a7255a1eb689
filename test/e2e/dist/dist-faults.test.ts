/**
 * The package ships the demo's fake agent (dist/demo/fake-agent.js) but none of the tests' faults:
 * hangs, crashes, garbage, stray processes live in test/support/fault-agent.ts, built apart into
 * .cache/test-bin/ by vitest's global setup.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAULT_AGENT_SCRIPT, FAULT_MODES } from '../../support/fault-scenario.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DIST = path.join(ROOT, 'dist');

/** Modes whose names hydra itself uses for other things (every agent's `stderr`). */
const COMMON_WORDS = new Set<string>(['stderr']);
const distinctive = FAULT_MODES.filter((mode) => !COMMON_WORDS.has(mode));

/** The fault modes a piece of code names, as whole words (a field, a property read). */
const modesIn = (code: string): string[] =>
  distinctive.filter((mode) => new RegExp(`\\b${mode}\\b`).test(code));

const scriptsUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => path.join(dir, file));

describe('dist/', () => {
  it('ships the demo fake agent without a single fault mode', () => {
    expect(existsSync(path.join(DIST, 'demo', 'fake-agent.js')), 'run `npm run build` first').toBe(true);
    const found = scriptsUnder(DIST).flatMap((file) =>
      modesIn(readFileSync(file, 'utf8')).map((mode) => `${path.relative(ROOT, file)}: ${mode}`),
    );
    expect(found).toEqual([]);
  });

  it('would be caught: the tests’ fault agent, bundled the same way, names every mode', () => {
    expect(modesIn(readFileSync(FAULT_AGENT_SCRIPT, 'utf8'))).toEqual(distinctive);
  });
});
