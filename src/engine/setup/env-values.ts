/**
 * Which copied files hold secrets, and which of their values are worth hiding: the one place that
 * says so (docs/setup-copy.md, "Secrets"). A value of an env-like file is a secret unless it is
 * trivial, so redaction never shreds ordinary text (`development`, `true`, `3000`).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

/** `.env`, `.env.local`, `.env.production`, `prod.env`, `.envrc`, `settings.local`: key=value files. */
export const isEnvLike = (file: string): boolean => {
  const name = path.posix.basename(file);
  return (
    name === '.env' ||
    name.startsWith('.env.') ||
    name === '.envrc' ||
    (name.endsWith('.env') && name.length > '.env'.length) ||
    (name.endsWith('.local') && name.length > '.local'.length)
  );
};

/** One `KEY=value` of an env-like file. */
export interface EnvValue {
  key: string;
  value: string;
}

/** `KEY=value`, `export KEY=value`, `KEY: value` is not env syntax and is skipped. */
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;

/** The value as a shell or dotenv reads it: quotes taken off, an unquoted value's ` # comment` dropped. */
const unquote = (raw: string): string => {
  const text = raw.trim();
  const quote = text[0];
  if ((quote === '"' || quote === "'" || quote === '`') && text.length >= 2) {
    const end = text.indexOf(quote, 1);
    if (end > 0) return text.slice(1, end);
  }
  const comment = text.search(/\s#/);
  return (comment < 0 ? text : text.slice(0, comment)).trim();
};

/** Every `KEY=value` line of an env-like file (other lines are ignored). */
export const envValues = (text: string): EnvValue[] =>
  text.split(/\r?\n/).flatMap((line) => {
    const match = ASSIGNMENT.exec(line);
    if (match === null) return [];
    return [{ key: match[1]!, value: unquote(match[2]!) }];
  });

/** Shorter values are not worth matching: they occur in ordinary text (the rule of redact.ts's `env`). */
export const MIN_SECRET_LENGTH = 8;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+|0x[0-9a-f]+)$/i;
const WORD = /^(?:true|false|yes|no|on|off|null|none|nil|undefined)$/i;
/** A plain word (`development`, `production`, `info`): letters only. */
const LETTERS = /^[A-Za-z]+$/;
/** A loopback address with no password in it (`http://localhost:3000/api`, `127.0.0.1:5432`). */
const LOOPBACK =
  /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::\d+)?(?:\/[^\s@]*)?$/i;

/**
 * Whether a value is too ordinary to be a secret: shorter than 8 characters, a number, a boolean
 * or null word, a word of letters only, or a loopback address without a password.
 */
export const isTrivialValue = (value: string): boolean =>
  value.length < MIN_SECRET_LENGTH ||
  NUMBER.test(value) ||
  WORD.test(value) ||
  LETTERS.test(value) ||
  LOOPBACK.test(value);

/** The secret values of an env-like file's text (trivial ones left out). */
export const secretValues = (text: string): EnvValue[] =>
  envValues(text).filter((entry) => !isTrivialValue(entry.value));

/** What a record keeps of a secret value: its SHA-256, never the value. */
export const valueHash = (value: string): string => createHash('sha256').update(value).digest('hex');
