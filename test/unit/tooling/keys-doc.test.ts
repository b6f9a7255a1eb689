/**
 * docs/dashboard.md's key table is generated from the key bindings (scripts/keys-doc.ts,
 * `npm run docs:keys`): this fails when the two drifted apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyTable, withKeyTable } from '../../../scripts/keys-doc.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('the key table in docs/dashboard.md', () => {
  it('is what `npm run docs:keys` generates from key-bindings.ts (run it after changing a key)', async () => {
    const document = readFileSync(path.join(ROOT, 'docs', 'dashboard.md'), 'utf8');
    expect(document).toBe(await withKeyTable(document));
  });

  it('names every key as typed, and where it works', async () => {
    const table = await keyTable();
    expect(table).toMatch(/\| `Ctrl\+C` +\| always +\| Cancel the race/);
    expect(table).toMatch(/\| `Home` `g` `End` `G` +\| detail, diff +\|/);
    expect(table).toMatch(/\| `y` +\| a yes\/no dialog +\|/);
    expect(table).toMatch(/\| `1–9` +\| every view +\| Focus agent 1 to 9/);
    expect(table).toContain('&lt;agent&gt;-2');
  });
});
