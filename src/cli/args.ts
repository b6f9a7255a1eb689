/**
 * Strict argument parsing on top of node:util parseArgs, with messages that name the problem and
 * hints that point at the command's --help.
 */
import { parseArgs } from 'node:util';
import { adapterIds } from '../adapters/registry.js';
import { closest } from '../engine/index.js';
import { seeHelp, UsageError } from './errors.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/** Parses `args` strictly; every failure is a UsageError (exit 2) naming the option. */
export function parseCommandArgs(command: string, args: readonly string[], options: OptionSpec): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw translateParseError(error, command, Object.keys(options));
  }
}

/** The commands that take a free-text prompt (which could start with "-"), as their usage begins. */
const PROMPT_USAGE: Record<string, string> = {
  race: 'hydra race',
  continue: 'hydra continue <run> <agent>',
};

function translateParseError(error: unknown, command: string, known: readonly string[]): UsageError {
  const see = seeHelp(command);
  if (!(error instanceof Error)) return new UsageError({ message: String(error), hint: see });
  const code = (error as NodeJS.ErrnoException).code;
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const suggestion = closest(option.replace(/^-+/, ''), known);
      const didYouMean = suggestion === undefined ? '' : ` (did you mean --${suggestion}?)`;
      const usage = PROMPT_USAGE[command];
      const hint =
        usage === undefined
          ? ''
          : `a prompt that starts with "-" goes after "--": ${usage} -- "${option} ..."`;
      return new UsageError({
        message: `unknown option ${option}${didYouMean}`,
        hint: seeHelp(command, hint),
      });
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) {
        return new UsageError({ message: `option ${option} does not take a value`, hint: see });
      }
      if (/ambiguous/.test(error.message)) {
        return new UsageError({
          message: `option ${option} needs a value`,
          hint: seeHelp(command, `a value that starts with "-" is written ${option}=<value>`),
        });
      }
      return new UsageError({ message: `option ${option} needs a value`, hint: see });
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError({ message: 'unexpected argument', hint: see });
    default:
      return new UsageError({ message: error.message.split('. ')[0] ?? error.message, hint: see });
  }
}

/** Refuses words a command does not take (the first one named), pointing at its --help. */
export const noExtraArguments = (command: string, extra: readonly string[]): void => {
  if (extra.length > 0)
    throw new UsageError({ message: `unexpected argument "${extra[0]}"`, hint: seeHelp(command) });
};

export const getString = (parsed: Parsed, name: string): string | undefined => {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
};

export const getBoolean = (parsed: Parsed, name: string): boolean | undefined => {
  const value = parsed.values[name];
  return typeof value === 'boolean' ? value : undefined;
};

export const getStrings = (parsed: Parsed, name: string): string[] => {
  const value = parsed.values[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
};

/**
 * Options that mean nothing beside `flag` (`hydra show --tui --json`): refused, naming both, rather
 * than one silently ignored. `allowed` are the options that still apply with it.
 */
export function refuseBeside(
  parsed: Parsed,
  flag: string,
  allowed: readonly string[],
  command: string,
  why: string,
): void {
  const other = Object.keys(parsed.values).find(
    (name) =>
      name !== flag && name !== 'help' && !allowed.includes(name) && parsed.values[name] !== undefined,
  );
  if (other === undefined) return;
  throw new UsageError({
    message: `--${flag} and --${other} cannot be used together: ${why}`,
    hint: seeHelp(command, `drop --${other}`),
  });
}

/** The adapter ids, as a list for messages: "claude, codex, cursor". */
const validAgents = (): string => adapterIds().join(', ');

/**
 * `--agents claude,opus,claude:sonnet,codex*2` → its entries. Which agents they name (adapters,
 * `[agents.<name>]` tables of the config, `<adapter>:<model>`, repeats) is the config's business:
 * an unknown one is a config error there, listing what is known.
 */
export function parseAgentList(text: string, command = 'race'): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) {
    throw new UsageError({
      message: `--agents needs at least one agent name (an adapter: ${validAgents()}; a configured agent; <adapter>:<model>; <name>*<n>)`,
      hint: seeHelp(command),
    });
  }
  return names;
}

/** `--repeat N`: a whole number from 1 to `max`. */
export function parseRepeat(text: string | undefined, max: number, command = 'race'): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(value >= 1 && value <= max)) {
    throw new UsageError({
      message: `--repeat must be a whole number from 1 to ${max} (got "${text}")`,
      hint: seeHelp(command),
    });
  }
  return value;
}

/**
 * Repeated `--model opus=claude-opus-4-5` → a map by agent name (or adapter, for the agents named
 * after it); which names exist is known once the config is read. A bad form is a UsageError.
 */
export function parseModelFlags(items: readonly string[], command = 'race'): Record<string, string> {
  const models: Record<string, string> = {};
  for (const item of items) {
    const match = /^([^=]+)=(.*)$/.exec(item);
    const agent = match?.[1]?.trim() ?? '';
    const model = match?.[2]?.trim() ?? '';
    if (!match || agent === '' || model === '') {
      throw new UsageError({
        message: `--model expects <agent>=<model>, e.g. --model claude=opus (got "${item}")`,
        hint: seeHelp(command),
      });
    }
    models[agent] = model;
  }
  return models;
}

/** A number of seconds from a flag; `allowZero` for limits where 0 means none. */
export function parseSeconds(
  flag: string,
  text: string | undefined,
  allowZero: boolean,
  command = 'race',
): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim().replace(/s$/, '');
  // Plain decimal only: Number() would also take "0x10", "1e3" and "Infinity".
  const value = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  const ok = Number.isFinite(value) && (allowZero ? value >= 0 : value > 0);
  if (!ok) {
    const allowed = allowZero
      ? 'a number of seconds, 0 or more (0 = no limit)'
      : 'a positive number of seconds';
    throw new UsageError({ message: `${flag} must be ${allowed} (got "${text}")`, hint: seeHelp(command) });
  }
  return value;
}

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A whole number with a unit (`30m`, `12h`, `7d`, `2w`) in milliseconds; anything else is a UsageError. */
export function parseDuration(flag: string, text: string, command: string): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  const value = match === null ? 0 : Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0);
  if (value <= 0) {
    throw new UsageError({
      message: `${flag} needs a whole number and a unit: 30m, 12h, 7d or 2w (got "${text}")`,
      hint: seeHelp(command),
    });
  }
  return value;
}

/** `--runner local|container` (race, continue, rerun); undefined when not given. */
export function parseRunner(text: string | undefined, command = 'race'): 'local' | 'container' | undefined {
  if (text === undefined) return undefined;
  const runner = text.trim().toLowerCase();
  if (runner === 'local' || runner === 'container') return runner;
  throw new UsageError({
    message: `--runner must be local or container (got "${text}")`,
    hint: seeHelp(command),
  });
}

/** `--sandbox auto|required|off` (race, continue, rerun); undefined when not given. */
export function parseSandboxMode(
  text: string | undefined,
  command = 'race',
): 'auto' | 'required' | 'off' | undefined {
  if (text === undefined) return undefined;
  const mode = text.trim().toLowerCase();
  if (mode === 'auto' || mode === 'required' || mode === 'off') return mode;
  throw new UsageError({
    message: `--sandbox must be auto, required or off (got "${text}")`,
    hint: seeHelp(command),
  });
}
