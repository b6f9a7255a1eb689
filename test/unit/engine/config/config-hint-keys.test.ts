/**
 * Issue 20, "Errors": no message or hint in src/ names a hydra.toml key that does not exist. Every
 * string literal of src/ (template parts joined with `<x>` for each substitution) is read with the
 * TypeScript parser; each key it names must be a key of the config schema:
 *   - dotted paths: `race.max_cost_usd`, `agents.<name>.binary`, `score.cost`, `prices."m".input_per_mtok`;
 *   - table headers: `[race]`, `[[checks]]`, `[agents.<name>]`, and `[score] cost = ...`;
 *   - on a line that mentions hydra.toml, every snake_case word (`Raise max_turns in hydra.toml`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configSchema, isConfigKey, knownKeys } from '../../../../src/engine/config/schema.js';
import { ROOT } from '../../../support/cli-helpers.js';

/** Every .ts/.tsx file under a directory. */
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });

/** The string literals of a file, a template's substitutions as `<x>`. */
function stringsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node))
      out.push(node.head.text + node.templateSpans.map((span) => `<x>${span.literal.text}`).join(''));
    // Import paths are not messages.
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const KEY_NAMES = new Set(Object.values(knownKeys(configSchema())).flat());
const TABLES = ['race', 'agents', 'score', 'prices', 'checks', 'sandbox', 'setup'];
const SEGMENT = String.raw`(?:<[^>]*>|"[^"]*"|[A-Za-z0-9_-]+|\*)`;
const DOTTED = new RegExp(String.raw`(?<![\w./-])(?:${TABLES.join('|')})(?:\.${SEGMENT})+`, 'g');
const HEADER = /\[\[?\s*([^\]\s]+)\s*\]\]?(?:\s+([a-z][a-z_]*)\s*=)?/g;

/** `agents.<x>.checks[0].run` → `agents.<x>.checks.run`; quoted and bracketed names kept as one part. */
const normalize = (found: string): string =>
  found
    .replace(/\[\d+\]/g, '')
    .replace(/\.+$/, '')
    .replace(/"[^"]*"/g, '<model>');

/** The keys a string names that the schema does not have. */
export function badKeysIn(text: string): string[] {
  const bad: string[] = [];
  for (const match of text.matchAll(DOTTED)) {
    const key = normalize(match[0]);
    // `race.ts`, `score.js`: file names, not keys.
    if (/\.(ts|tsx|js|json|md|toml|cfg|ini)$/.test(key)) continue;
    if (!isConfigKey(key.replace(/<[^>]*>|\*/g, 'NAME'))) bad.push(key);
  }
  for (const match of text.matchAll(HEADER)) {
    const table = normalize(match[1] ?? '');
    if (!/^[a-z]/.test(table) || !TABLES.some((name) => table === name || table.startsWith(`${name}.`)))
      continue;
    const header = table.replace(/<[^>]*>|\*/g, 'NAME');
    if (!isConfigKey(header)) bad.push(`[${table}]`);
    else if (match[2] !== undefined && !isConfigKey(`${header}.${match[2]}`))
      bad.push(`[${table}] ${match[2]}`);
  }
  for (const line of text.split('\n').filter((item) => item.includes('hydra.toml')))
    for (const word of line.match(/(?<![\w.$"-])[a-z]+(?:_[a-z]+)+(?![\w("-])/g) ?? [])
      if (!KEY_NAMES.has(word)) bad.push(word);
  return bad;
}

describe('hints and messages name only keys hydra.toml has', () => {
  it('finds a planted bad key in each form it reads (the check can fail)', () => {
    expect(badKeysIn('set race.max_cost (got 3)')).toEqual(['race.max_cost']);
    expect(badKeysIn('fix agents.<x>.binry in hydra.toml')).toEqual(['agents.<x>.binry']);
    expect(badKeysIn('add [sandbox] network = false')).toEqual(['[sandbox] network']);
    expect(badKeysIn('[score] speed = 3')).toEqual(['[score] speed']);
    expect(badKeysIn('Raise max_turns for qwen in hydra.toml, or drop it.')).toEqual(['max_turns']);
    expect(
      badKeysIn(
        'race.max_cost_usd, agents.<x>.checks[0].gate, prices."gpt-5".input_per_mtok, [[checks]] in hydra.toml',
      ),
    ).toEqual([]);
  });

  it('every string in src/ passes', () => {
    const found: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const literal of stringsOf(file, text))
        for (const key of badKeysIn(literal))
          found.push(`${path.relative(ROOT, file)}: ${key} in ${JSON.stringify(literal)}`);
    }
    expect(found).toEqual([]);
  });
});
