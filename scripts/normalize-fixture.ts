/**
 * Normalizes what a real CLI printed so that re-recording gives a stable diff: temp paths become
 * /tmp/hydra-fixture/..., UUIDs become stable placeholders (the same UUID always maps to the same
 * placeholder, so links between lines survive), timestamps and durations become fixed values, the
 * fake server's port becomes a fixed port. Everything else is kept byte for byte.
 */

export const FIXTURE_ROOT = '/tmp/hydra-fixture';
export const FIXTURE_PORT = 54321;
export const FIXTURE_TIMESTAMP = '2026-11-23T12:00:00.000Z';
const FIXTURE_DURATION_MS = 100;
/** Epoch milliseconds that stand in for the time inside Gemini CLI tool ids. */
const FIXTURE_EPOCH_MS = 1795435200000;

export interface NormalizeContext {
  /** Real path → placeholder path, longest first is applied first. */
  paths: ReadonlyArray<readonly [string, string]>;
  /** The fake server's real port. */
  port?: number;
  /** Shared across the stdout, stderr and argv of one run, so ids stay consistent. */
  ids: Map<string, string>;
}

export const createContext = (
  paths: ReadonlyArray<readonly [string, string]>,
  port?: number,
): NormalizeContext => ({
  paths: [...paths].sort((a, b) => b[0].length - a[0].length),
  ...(port === undefined ? {} : { port }),
  ids: new Map(),
});

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const ISO_TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})\b/g;
/** JSON keys that hold a duration in milliseconds: duration_ms, ttft_ms, durationMs, ... */
const DURATION_FIELD = /"([A-Za-z_]*(?:_ms|Ms))":(\d+(?:\.\d+)?)/g;
/** codex 0.2x reports command durations as {"secs", "nanos"}. */
const SECS_NANOS = /"duration":\{"secs":\d+,"nanos":\d+\}/g;
/** Claude Code's messaging socket carries its pid. */
const CLAUDE_SOCKET = /\/tmp\/cc-socks\/\d+\.sock/g;
/**
 * Gemini CLI tool ids carry the epoch milliseconds of the call (`write_file_1795442404801_0`,
 * 0.1x: `write_file-1795441003400-0b32c9c1f13a8` with a random hex tail).
 */
const GEMINI_TOOL_ID = /("tool_id":"[A-Za-z0-9_]*?[_-])\d{13}([_-])([0-9a-f]+)"/g;
/** Gemini CLI names its error report files after the time: `gemini-client-error-<where>-<time>.json`. */
/** Gemini CLI 0.2x prints its start-up profile on stderr (`[STARTUP] ... duration: 692.33`). */
const GEMINI_STARTUP_DURATION = /(\[STARTUP\] Recording metric for phase: \S+ duration: )\d+(?:\.\d+)?/g;
const GEMINI_REPORT_TIME = /(gemini-client-error-[A-Za-z.-]+?-)\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z/g;
/** opencode's epoch-millisecond times: `"timestamp"`, and `"start"`/`"end"` of a part's `time`. */
const EPOCH_MS_FIELD = /"(timestamp|start|end|created|updated|completed)":1\d{12}\b/g;
/** opencode's ids: a prefix and 26 characters (`ses_…`, `msg_…`, `prt_…`). */
const OPENCODE_ID = /\b(ses|msg|prt)_[0-9A-Za-z]{26}\b/g;
/** An HTTP `date` header echoed in an error (opencode's APIError.responseHeaders). */
const HTTP_DATE = /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT\b/g;
/** opencode's log lines: `ERROR 2026-11-23T13:22:10 +1226ms service=models.dev ...`. */
const LOG_TIME = /\b(ERROR|WARN|INFO|DEBUG) +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \+\d+ms\b/g;

/** Claude Code names per-project folders after the path with every `/` (and `.`) turned into `-`. */
const slugOf = (path: string): string => path.replace(/[/.]/g, '-');

const placeholderUuid = (index: number): string =>
  `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;

export const normalizeText = (text: string, context: NormalizeContext): string => {
  let out = text;
  for (const [real, placeholder] of context.paths) {
    out = out.split(real).join(placeholder);
    out = out.split(slugOf(real)).join(slugOf(placeholder));
  }
  if (context.port !== undefined) {
    out = out.replace(
      new RegExp(`(127\\.0\\.0\\.1|localhost):${context.port}\\b`, 'g'),
      `$1:${FIXTURE_PORT}`,
    );
  }
  out = out.replace(UUID, (uuid) => {
    const key = uuid.toLowerCase();
    let placeholder = context.ids.get(key);
    if (placeholder === undefined) {
      placeholder = placeholderUuid(context.ids.size + 1);
      context.ids.set(key, placeholder);
    }
    return placeholder;
  });
  out = out.replace(ISO_TIMESTAMP, FIXTURE_TIMESTAMP);
  out = out.replace(DURATION_FIELD, (_match, key: string) => `"${key}":${FIXTURE_DURATION_MS}`);
  out = out.replace(SECS_NANOS, `"duration":{"secs":0,"nanos":${FIXTURE_DURATION_MS * 1_000_000}}`);
  out = out.replace(CLAUDE_SOCKET, '/tmp/cc-socks/1000.sock');
  out = out.replace(
    GEMINI_TOOL_ID,
    (_match, head: string, separator: string, tail: string) =>
      `${head}${FIXTURE_EPOCH_MS}${separator}${/^\d{1,3}$/.test(tail) ? tail : '0'.repeat(tail.length)}"`,
  );
  out = out.replace(GEMINI_REPORT_TIME, '$12026-11-23T12-00-00-000Z');
  out = out.replace(GEMINI_STARTUP_DURATION, `$1${FIXTURE_DURATION_MS}`);
  out = out.replace(EPOCH_MS_FIELD, (_match, key: string) => `"${key}":${FIXTURE_EPOCH_MS}`);
  out = out.replace(OPENCODE_ID, (id: string, prefix: string) => {
    let placeholder = context.ids.get(id);
    if (placeholder === undefined) {
      placeholder = `${prefix}_fixture${(context.ids.size + 1).toString().padStart(18, '0')}`;
      context.ids.set(id, placeholder);
    }
    return placeholder;
  });
  out = out.replace(HTTP_DATE, 'Mon, 23 Nov 2026 12:00:00 GMT');
  out = out.replace(LOG_TIME, (_match, level: string) => `${level} ${FIXTURE_TIMESTAMP.slice(0, 19)} +100ms`);
  return out.split('\n').map(sortUnorderedLine).map(sortQwenTools).join('\n');
};

/**
 * codex 0.2x opens its stream with a config summary object printed from a hash map, so its key
 * order changes from run to run. That one line is re-serialized with sorted keys; every other line
 * is kept as printed.
 */
const sortUnorderedLine = (line: string): string => {
  if (!line.startsWith('{') || line.includes('"type"') || !line.includes('"workdir"')) return line;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return line;
    const sorted = Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
    return JSON.stringify(sorted);
  } catch {
    return line;
  }
};

/**
 * Qwen Code lists its tools in its init line in registration order, which varies from run to run
 * (tools register concurrently): that list is sorted.
 */
const sortQwenTools = (line: string): string => {
  if (!line.startsWith('{"type":"system","subtype":"init"') || !line.includes('"qwen_code_version"'))
    return line;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (!Array.isArray(value.tools)) return line;
    return JSON.stringify({ ...value, tools: [...(value.tools as unknown[])].map(String).sort() });
  } catch {
    return line;
  }
};

export const normalizeArgv = (argv: readonly string[], context: NormalizeContext): string[] =>
  argv.map((arg) => normalizeText(arg, context));
