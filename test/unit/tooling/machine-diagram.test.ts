/**
 * ARCHITECTURE.md's machine diagrams are generated from the machines' definitions
 * (scripts/machine-diagram.ts, `npm run diagram`): this fails when they drifted apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { machineDiagram, withDiagrams } from '../../../scripts/machine-diagram.js';
import { raceMachine } from '../../../src/engine/race/race-machine.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('the machine diagrams in ARCHITECTURE.md', () => {
  it('are what `npm run diagram` generates from the machines (run it after changing a machine)', () => {
    const document = readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    expect(document).toBe(withDiagrams(document));
  });

  it('draw each state-changing transition with its event and named guard, and CANCEL from the root', () => {
    const diagram = machineDiagram(raceMachine);
    expect(diagram).toContain('reviewing --> merging: MERGE [mergeable]');
    expect(diagram).toContain('probing --> cancelled: CANCEL');
    // racing answers CANCEL itself (its agents stop first): no edge from the root's handler.
    expect(diagram).not.toContain('racing --> cancelled: CANCEL');
  });
});
