/**
 * Secrets never reach a run record, a snapshot or a printer: agent output is redacted once, where
 * it enters hydra (the agent process actor), and a config's `env` values are never recorded at
 * all. A redacted secret becomes a marker that says what was removed, e.g. `[redacted: anthropic key]`.
 */

/** Token shapes worth removing wherever they appear: the common vendor key formats and bearer tokens. */
const SECRET_SHAPES: ReadonlyArray<{ label: string; pattern: RegExp }> = [
  {
    label: 'private key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  },
  { label: 'anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { label: 'openai key', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g },
  { label: 'github token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { label: 'gitlab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { label: 'aws access key', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { label: 'slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { label: 'google api key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { label: 'stripe key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { label: 'hugging face token', pattern: /\bhf_[A-Za-z0-9]{30,}/g },
];

/** `Authorization: Bearer <token>`, `bearer <token>`: the word stays, the token goes. */
const BEARER = /\b(Bearer)(\s+)[A-Za-z0-9._~+/-]{16,}=*/gi;

/** One cheap test before the replacements: most lines hold no secret at all. */
const MAYBE_SECRET =
  /PRIVATE KEY|\bsk-|\bgh[pousr]_|github_pat_|glpat-|\b(?:AKIA|ASIA)|\bxox[abposr]-|AIza|_(?:live|test)_|\bhf_|bearer/i;

const redactionMarker = (what: string): string => `[redacted: ${what}]`;

/** A configured value known to be secret, to be removed wherever an agent echoes it. */
export interface KnownSecret {
  /** The env key it was configured under, named in the marker. */
  name: string;
  value: string;
}

/** Env keys whose values are secrets by name (shorter values are not worth matching). */
const SECRET_KEY_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS\b|AUTH|CREDENTIAL|PRIVATE|COOKIE|SESSION/i;
const MIN_KNOWN_SECRET_LENGTH = 8;

/** The values of a configured env that look secret by their key's name. */
export const knownSecrets = (env: Readonly<Record<string, string>>): KnownSecret[] =>
  Object.entries(env)
    .filter(([name, value]) => SECRET_KEY_NAME.test(name) && value.length >= MIN_KNOWN_SECRET_LENGTH)
    .map(([name, value]) => ({ name, value }));

/**
 * Secrets this process learned while it runs (the values of env-like files copied into worktrees,
 * setup/copy.ts): removed from every text redacted from then on, as if each caller had passed them.
 */
let remembered: KnownSecret[] = [];

/** Adds values every later redaction removes, for the life of this process (longest first). */
export const rememberSecrets = (secrets: readonly KnownSecret[]): void => {
  const fresh = secrets.filter((secret) => !remembered.some((known) => known.value === secret.value));
  if (fresh.length > 0)
    remembered = [...remembered, ...fresh].sort((a, b) => b.value.length - a.value.length);
};

/** Text with every known secret and every token that looks like a key replaced by a marker. */
export const redactSecrets = (text: string, known: readonly KnownSecret[] = []): string => {
  let out = text;
  for (const secret of remembered.length === 0 ? known : [...known, ...remembered]) {
    if (out.includes(secret.value)) out = out.split(secret.value).join(redactionMarker(`env ${secret.name}`));
  }
  if (!MAYBE_SECRET.test(out)) return out;
  for (const { label, pattern } of SECRET_SHAPES) out = out.replace(pattern, redactionMarker(label));
  return out.replace(
    BEARER,
    (_match, word: string, space: string) => `${word}${space}${redactionMarker('bearer token')}`,
  );
};

/**
 * What kinds of secret a text holds (`private key`, `github token`), by the same shapes redaction
 * removes (bearer tokens aside: a header in a test fixture is not a key); none for most text.
 */
export const secretsIn = (text: string): string[] => {
  if (!MAYBE_SECRET.test(text)) return [];
  return SECRET_SHAPES.filter(({ pattern }) => new RegExp(pattern.source).test(text)).map(
    ({ label }) => label,
  );
};

/**
 * A JSON-like value (an event, an argv) with every string redacted. Copied only where a string
 * changed: a value with nothing to redact (nearly every event) comes back as it is, so the hot
 * path allocates nothing; one with a secret gets new objects on the path to each changed string.
 */
export const redactValue = <T>(value: T, known: readonly KnownSecret[] = []): T => {
  if (typeof value === 'string') return redactSecrets(value, known) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const redacted = redactValue(item, known);
      if (redacted !== item) copy ??= value.slice();
      if (copy !== null) copy[index] = redacted;
    }
    return (copy ?? value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | null = null;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item: unknown = (value as Record<string, unknown>)[key];
      const redacted = redactValue(item, known);
      if (redacted !== item) copy ??= { ...(value as Record<string, unknown>) };
      if (copy !== null) copy[key] = redacted;
    }
    return (copy ?? value) as T;
  }
  return value;
};

/**
 * The config as a run record may keep it: every `env` table keeps its keys, each value replaced by
 * a marker (they are never written), and every other string redacted (an `extra_args` entry can
 * carry a key too).
 */
export const recordableConfig = (value: unknown): unknown => {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(recordableConfig);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] =
        key === 'env' && item !== null && typeof item === 'object' && !Array.isArray(item)
          ? Object.fromEntries(Object.keys(item).map((name) => [name, redactionMarker('env value')]))
          : recordableConfig(item);
    }
    return copy;
  }
  return value;
};
