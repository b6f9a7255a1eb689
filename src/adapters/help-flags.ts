/**
 * Reads the flags a CLI documents in its `--help` text. Works on commander-style help (Claude Code:
 * `  -p, --print   Print response...`) and clap-style help (Codex: `  -m, --model <MODEL>` with
 * the description on the following lines). Only option definition lines count, so a flag merely
 * mentioned in a description (\"use --sandbox instead of --full-auto\") is not taken as supported.
 */
import { stripEscapes } from '../core/text.js';

const OPTION_LINE = /^\s{1,12}(-{1,2}[A-Za-z0-9?][^\n]*)$/;
const FLAG_TOKEN = /(?:^|[\s,|[])(--?[A-Za-z0-9][A-Za-z0-9_-]*)/g;

/** The definition part of an option line: everything before the description column. */
const definitionPart = (line: string): string => {
  const trimmed = line.trimStart();
  const gap = trimmed.search(/\s{2,}|\t/);
  return gap < 0 ? trimmed : trimmed.slice(0, gap);
};

/** Flags defined in a help text, long and short, in order of appearance, without duplicates. */
export const parseHelpFlags = (help: string): string[] => {
  const flags = new Set<string>();
  const plain = stripEscapes(help);
  for (const rawLine of plain.split(/\r?\n/)) {
    const match = OPTION_LINE.exec(rawLine);
    if (match === null) continue;
    const definition = definitionPart(match[1] ?? '');
    for (const token of definition.matchAll(FLAG_TOKEN)) {
      const flag = token[1];
      if (flag === undefined) continue;
      // `--[no-]x` style is expanded by commander into two lines, so plain tokens suffice.
      flags.add(flag);
    }
  }
  return [...flags];
};

/**
 * The help entry of one option: its definition line and the continuation lines that follow, up
 * to the next option or a blank line (yargs lists `[choices: ...]` there). Empty when the help
 * defines no such option.
 */
export const optionText = (help: string, flag: string): string => {
  const lines = stripEscapes(help).split(/\r?\n/);
  const start = lines.findIndex((line) => {
    const match = OPTION_LINE.exec(line);
    return (
      match !== null &&
      [...definitionPart(match[1] ?? '').matchAll(FLAG_TOKEN)].some((token) => token[1] === flag)
    );
  });
  if (start < 0) return '';
  const entry = [lines[start] ?? ''];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || OPTION_LINE.test(line)) break;
    entry.push(line);
  }
  return entry.join('\n');
};

/** The first dotted version number in a `--version` output ("1.0.100 (Claude Code)", "codex-cli 0.46.0"). */
export const parseVersion = (output: string): string | null => {
  const match = /(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?)/.exec(output);
  return match?.[1] ?? null;
};

/** Compares dotted versions numerically (pre-release tags ignored). */
export const compareVersions = (left: string, right: string): number => {
  const parts = (version: string): number[] =>
    version
      .split(/[-+]/)[0]!
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const a = parts(left);
  const b = parts(right);
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
};

/** Whether any of the given spellings of a flag is in the set. */
export const hasFlag = (flags: readonly string[], ...spellings: string[]): boolean =>
  spellings.some((spelling) => flags.includes(spelling));
