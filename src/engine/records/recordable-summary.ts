/**
 * A summary as it may be written: never a field that would fail its own check when read back. Much
 * of a summary comes from what agents reported (session ids, token counts, costs, test counts from
 * their checks' output); one bad figure must not make the whole record read back as damaged.
 */
import type { z } from 'zod';
import type { RaceSummary } from './record-types.js';
import { EngineError } from '../errors.js';
import { summarySchema } from './schema.js';

type Key = PropertyKey;
type Container = Record<Key, unknown> | unknown[];

/**
 * The summary's check runs without zod's compiled fast path: zod builds and compiles one parser
 * function per object schema on its first parse, which for the summary's schema costs more than it
 * saves (a race records its summary two or three times): ~6 CPU-ms for the first check, ~2 so.
 * The same checks run either way.
 */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/** How many fields one summary may need mended before hydra gives up on it (a bug, not an agent). */
const MAX_REPAIRS = 200;

/**
 * The summary as JSON will carry it (Infinity and NaN become null, undefined fields go), each field
 * that fails the record's schema made null, removed or 0 (the smallest change that passes), and a
 * warning naming it in its agent's `warnings`. An agent's entry itself is never removed.
 */
export function recordableSummary(summary: RaceSummary): RaceSummary {
  const value = JSON.parse(JSON.stringify(summary)) as Record<Key, unknown>;
  const warnings = new Map<number, string[]>();
  for (let repairs = 0; repairs <= MAX_REPAIRS; repairs += 1) {
    const parsed = summarySchema.safeParse(value, ONCE);
    if (parsed.success) return withWarnings(value, warnings);
    const [issue] = parsed.error.issues;
    const repair = issue === undefined ? null : mend(value, issue, parsed.error.issues.length);
    if (repair === null) break;
    const [top, index, ...field] = repair.path;
    if (top === 'agents' && typeof index === 'number') {
      const list = warnings.get(index) ?? [];
      list.push(repairWarning(field, repair, issue!.message));
      warnings.set(index, list);
    }
  }
  throw new EngineError({
    kind: 'Refused',
    message: `Hydra built a summary it could not record: ${summarySchema.safeParse(value, ONCE).error?.issues[0]?.message ?? 'too many bad fields'}.`,
    hint: `This is a bug in hydra; the run record keeps its meta.json and events.jsonl (\`hydra show ${summary.runId}\` reads them).`,
  });
}

interface Repair {
  path: readonly Key[];
  did: 'unknown' | 'zero' | 'left out';
  was: unknown;
}

/**
 * Mends the field an issue is about, or the nearest field above it that can be mended: made null
 * (unknown) or removed, whichever leaves fewer issues; failing both, a number field is made 0. Never
 * an agent's entry, the agents' list or a top-level field of the summary. Null when nothing helps.
 */
function mend(root: Record<Key, unknown>, issue: z.core.$ZodIssue, issues: number): Repair | null {
  const path = issue.path;
  const lowest = path[0] === 'agents' ? 3 : 2;
  const attempt = (depth: number, did: Repair['did']): Repair | null => {
    const parent = at(root, path.slice(0, depth - 1));
    const key = path[depth - 1]!;
    if (parent === null) return null;
    const fields = parent as Record<Key, unknown>;
    const was = fields[key];
    const before = Array.isArray(parent) ? [...parent] : { ...fields };
    if (did === 'unknown') fields[key] = null;
    else if (did === 'zero') fields[key] = 0;
    else if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
    else delete fields[key];
    const after = summarySchema.safeParse(root, ONCE);
    if (after.success || after.error.issues.length < issues) return { path: path.slice(0, depth), did, was };
    restore(parent, before);
    return null;
  };
  for (let depth = path.length; depth >= lowest; depth -= 1) {
    const repair = attempt(depth, 'unknown') ?? attempt(depth, 'left out');
    if (repair !== null) return repair;
  }
  const isNumber = issue.code === 'invalid_type' && issue.expected === 'number';
  return isNumber && path.length >= lowest ? attempt(path.length, 'zero') : null;
}

const at = (root: unknown, path: readonly Key[]): Container | null => {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return null;
    node = (node as Record<Key, unknown>)[key];
  }
  return node !== null && typeof node === 'object' ? (node as Container) : null;
};

const restore = (target: Container, before: Container): void => {
  if (Array.isArray(target) && Array.isArray(before)) {
    target.splice(0, target.length, ...before);
    return;
  }
  const object = target as Record<Key, unknown>;
  for (const key of Object.keys(object)) delete object[key];
  Object.assign(object, before);
};

/** Longest quote of a bad value in a warning. */
const QUOTE_CHARS = 60;

const quote = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
};

const repairWarning = (field: readonly Key[], repair: Repair, problem: string): string => {
  const name = field
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .slice(1);
  const what = {
    unknown: 'recorded as unknown',
    zero: 'recorded as 0',
    'left out': 'left out of the record',
  }[repair.did];
  return `Its ${name || 'entry'} ${quote(repair.was)} ${what}: ${problem}.`;
};

const withWarnings = (value: Record<Key, unknown>, warnings: Map<number, string[]>): RaceSummary => {
  const agents = value['agents'] as Array<Record<Key, unknown>>;
  for (const [index, list] of warnings) {
    const agent = agents[index];
    if (agent === undefined) continue;
    const kept = Array.isArray(agent['warnings']) ? (agent['warnings'] as string[]) : [];
    agent['warnings'] = [...kept, ...list];
  }
  return value as unknown as RaceSummary;
};
