/**
 * Schemas of the run records. A record is data, never authority: every file read back from
 * `.hydra/runs/<run-id>/` is checked here before anything uses it, and a record that does not match
 * is reported as damaged (with what is wrong) instead of being half-used.
 */
import { z } from 'zod';
import type { AgentEvent, ErrorInfo, ErrorKind, Usage } from '../../core/events.js';
import { SESSION_ID_PATTERN } from '../../adapters/types.js';
import type { Capabilities } from '../../adapters/types.js';
import type { AgentEventRecord, AgentSummary, MergeResult, RaceSummary } from './record-types.js';
import { RUN_ID_PATTERN, branchName } from './paths.js';

/** Adapter ids end up in file names and branch names: lower-case words, no dots or slashes. */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const agentId = z.string().regex(AGENT_ID_PATTERN, 'is not an agent id');
const runId = z.string().regex(RUN_ID_PATTERN, 'is not a run id');
const count = z.number().finite().nonnegative().nullable();
/**
 * Any string: a record keeps the kind it was written with, so records from before a kind existed
 * (a git exit was `SpawnFailed` before `GitFailed`) and from later versions both read.
 */
const errorKind = z.custom<ErrorKind>((value) => typeof value === 'string', 'is not an error kind');

const usageSchema: z.ZodType<Usage> = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  turns: count,
  costUsd: count,
  costSource: z.enum(['reported', 'estimated', 'unknown']),
});

const errorInfoSchema: z.ZodType<ErrorInfo> = z.object({
  kind: errorKind,
  message: z.string(),
  hint: z.string(),
});

const capabilities = z.custom<Capabilities | null>(
  (value) => value === null || (typeof value === 'object' && !Array.isArray(value)),
  'is not a capabilities object',
);

/**
 * Records written before named agents have no `adapter`: there the agent's name was its adapter's id,
 * so the name stands in (hydra show, merge and clean keep working on them).
 */
const withAdapter = <T extends { agent: string; adapter?: string | undefined }>(
  entry: T,
): T & { adapter: string } => ({ ...entry, adapter: entry.adapter ?? entry.agent });

const metaAgentSchema = z
  .object({
    agent: agentId,
    adapter: agentId.optional(),
    branch: z.string(),
    worktree: z.string(),
    version: z.string().nullable(),
    capabilities,
    command: z.array(z.string()),
  })
  .transform(withAdapter);

export const metaSchema = z.object({
  runId,
  prompt: z.string(),
  promptSha256: z.string(),
  repoRoot: z.string(),
  baseRef: z.string(),
  baseBranch: z.string().nullable(),
  startedAt: z.number().finite().nonnegative(),
  pid: z.number().int().positive(),
  pidStartTime: z.string().nullable().optional(),
  hydraVersion: z.string(),
  config: z.unknown(),
  agents: z.array(metaAgentSchema),
});

/** meta.json as hydra writes it (and reads it back, an older record's `adapter` filled in). */
export type RunMeta = z.output<typeof metaSchema>;

const checkSummarySchema = z.object({
  name: z.string(),
  gate: z.boolean(),
  status: z.enum(['passed', 'failed', 'timed_out', 'error']),
  exitCode: z.number().nullable(),
  durationMs: z.number().finite(),
  tests: z
    .object({ passed: z.number().finite(), failed: z.number().finite(), skipped: z.number().finite() })
    .nullable(),
  newlyFailing: z.array(z.string()).nullable(),
  newlyPassing: z.array(z.string()).nullable(),
  output: z.string(),
  tampered: z.array(z.string()).optional(),
  checkoutChanged: z.array(z.string()).optional(),
  // Where it ran (absent before it was kept; an unknown place is dropped, not the check).
  where: z.enum(['host', 'container']).optional().catch(undefined),
  engine: z.string().optional().catch(undefined),
  // The contract (checks/contract): the same check with the result's own versions of the tests.
  own: z
    .object({
      status: z.enum(['passed', 'failed', 'timed_out', 'error']),
      exitCode: z.number().nullable(),
      durationMs: z.number().finite(),
      tests: z
        .object({ passed: z.number().finite(), failed: z.number().finite(), skipped: z.number().finite() })
        .nullable(),
      output: z.string(),
      tampered: z.array(z.string()).optional(),
      checkoutChanged: z.array(z.string()).optional(),
    })
    .optional(),
  contract: z.array(z.string()).optional(),
});

const contractSchema = z.object({
  changed: z.array(z.string()),
  passesOwn: z.boolean(),
  passesBase: z.boolean(),
});

const scorePart = z.number().finite().nullable();
const scoreWeightsSchema = z.object({
  checks: z.number().finite(),
  tests: z.number().finite(),
  diff: z.number().finite(),
  scope: z.number().finite(),
  duration: z.number().finite(),
  cost: z.number().finite(),
  evidence: z.number().finite().optional(),
});

const scoreReferenceSchema = z.object({
  lines: z.number().finite().nullable(),
  durationMs: z.number().finite().nullable(),
  costUsd: z.number().finite().nullable(),
});

const scoreSchema = z.object({
  total: z.number().finite(),
  gates: z.object({ passed: z.boolean(), failed: z.array(z.string()) }),
  parts: z.object({
    checks: scorePart,
    tests: scorePart,
    diff: scorePart,
    scope: scorePart,
    duration: scorePart,
    cost: scorePart,
    evidence: scorePart.optional(),
  }),
  disqualified: z.string().nullable(),
  flags: z.array(z.string()).optional(),
  // Records written before issue 26 have none: agentSummarySchema fills it in from the agent's checks.
  verified: z.boolean().optional(),
});

const newTestStatus = z.enum(['passed', 'failed', 'error']);
const checkWhereSchema = z.object({ where: z.enum(['host', 'container']), engine: z.string().optional() });
/** Cross-testing's findings (checks/cross-test). */
const newTestsSchema = z.object({
  count: z.number().finite(),
  failOnBase: z.number().finite(),
  passOnSelf: z.number().finite(),
  reproductions: z.number().finite(),
  onOthers: z.record(z.string(), z.object({ passed: z.number().finite(), failed: z.number().finite() })),
  tests: z.array(
    z.object({
      file: z.string(),
      runner: z.string(),
      onBase: newTestStatus,
      onSelf: newTestStatus,
      onOthers: z.record(z.string(), newTestStatus),
      changesTree: z
        .object({
          base: z.array(z.string()).optional(),
          self: z.array(z.string()).optional(),
          others: z.record(z.string(), z.array(z.string())).optional(),
        })
        .optional()
        .catch(undefined),
    }),
  ),
  notRun: z.number().finite().optional(),
  where: z
    .object({
      base: checkWhereSchema,
      self: checkWhereSchema,
      others: z.record(z.string(), checkWhereSchema),
    })
    .optional()
    .catch(undefined),
});
/** For a score recorded before `verified` existed: one of the agent's checks ran to a verdict. */
const ranACheck = (checks: ReadonlyArray<{ status: string }> | undefined): boolean =>
  (checks ?? []).some((check) => check.status === 'passed' || check.status === 'failed');

/** One agent's entry in summary.json (read one by one: a damaged entry does not damage the run). */
export const agentSummarySchema: z.ZodType<AgentSummary> = z
  .object({
    agent: agentId,
    adapter: agentId.optional(),
    status: z.enum(['completed', 'failed', 'timed_out', 'cancelled', 'skipped']),
    exitCode: z.number().nullable(),
    durationMs: z.number().finite(),
    usage: usageSchema,
    diff: z.object({
      filesChanged: z.number().finite(),
      insertions: z.number().finite(),
      deletions: z.number().finite(),
    }),
    branch: z.string().nullable(),
    worktree: z.string().nullable(),
    error: errorInfoSchema.optional(),
    warnings: z.array(z.string()).optional(),
    checks: z.array(checkSummarySchema).optional(),
    contract: contractSchema.optional(),
    score: scoreSchema.optional(),
    outsideAllowed: z.array(z.string()).optional(),
    // It goes into a command line (a follow-up's --resume): only a session id's shape is accepted.
    sessionId: z.string().regex(SESSION_ID_PATTERN, 'is not a session id').optional(),
    rounds: z
      .array(
        z.object({
          prompt: z.string(),
          usage: usageSchema,
          startedAt: z.number().finite().nullable(),
          endedAt: z.number().finite().nullable(),
        }),
      )
      .optional(),
    rerunOf: agentId.optional(),
    newTests: newTestsSchema.optional(),
    sandbox: z.string().max(64).nullable().optional(),
    port: z.number().int().min(1).max(65_535).nullable().optional(),
    // Its worktree's setup commands (src/engine/setup); null when none ran.
    setup: z
      .object({
        durationMs: z.number().finite(),
        exitCode: z.number().nullable(),
        source: z.enum(['hydra.toml', 'cursor']),
        warm: z.boolean(),
      })
      .nullable()
      .optional(),
    runner: z.enum(['local', 'container']).optional(),
    host: z.string().max(1024).optional(),
  })
  .transform(({ score, ...entry }) =>
    withAdapter({
      ...entry,
      ...(score === undefined
        ? {}
        : { score: { ...score, verified: score.verified ?? ranACheck(entry.checks) } }),
    }),
  );

/** summary.json around its agents' entries, which agentSummarySchema checks one by one. */
export const summaryFrameSchema = z.object({
  runId,
  prompt: z.string(),
  baseRef: z.string().nullable(),
  baseBranch: z.string().nullable(),
  startedAt: z.number().finite(),
  endedAt: z.number().finite(),
  agents: z.array(z.unknown()),
  error: errorInfoSchema.nullable(),
  baseline: z
    .object({
      status: z.enum(['running', 'done', 'failed', 'cancelled']).optional(),
      error: z.string().optional(),
      checks: z.array(checkSummarySchema),
    })
    .optional(),
  scoreWeights: scoreWeightsSchema.optional(),
  scoreReference: scoreReferenceSchema.optional(),
  allowTestChanges: z.boolean().optional(),
  merged: z
    .object({
      agent: agentId,
      branch: z.string(),
      method: z.enum(['fast-forward', 'merge-commit', 'squash', 'nothing-to-merge']),
      protectedFiles: z.array(z.string()).optional(),
    })
    .nullable()
    .optional(),
  mergeReason: z.string().optional(),
  judge: z
    .object({
      agent: agentId,
      contenders: z.array(agentId),
      ranking: z.array(z.object({ agent: agentId, reason: z.string() })).nullable(),
      warning: z.string().nullable(),
      addressedJudge: z.array(z.string()),
      costUsd: z.number().finite().nullable(),
    })
    .optional(),
  // `--stop first-verified`; a record from before it has none (an odd one is dropped, not the run).
  stoppedEarly: z
    .object({ by: agentId, agents: z.array(agentId) })
    .optional()
    .catch(undefined),
});

/** summary.json whole, as hydra must write it. */
export const summarySchema: z.ZodType<RaceSummary> = summaryFrameSchema.extend({
  agents: z.array(agentSummarySchema),
});

const oneMergeSchema = z.object({
  runId,
  agent: agentId,
  into: z.string(),
  method: z.enum(['fast-forward', 'merge-commit', 'squash', 'nothing-to-merge']),
  commit: z.string().regex(/^[0-9a-f]{4,64}$/, 'is not a commit id'),
  filesChanged: z.number().finite(),
  removed: z.array(z.string()),
  only: z.array(z.string()).optional(),
  protectedFiles: z.array(z.string()).optional(),
});

/** merge.json: the latest merge of a run, with the ones before it (one level deep). */
export const mergeSchema: z.ZodType<MergeResult> = oneMergeSchema.extend({
  earlier: z.array(oneMergeSchema).optional(),
});

export const pidRecordSchema = z.object({
  agent: agentId,
  pid: z.number().int().positive(),
  pgid: z.number().int().positive(),
  startTime: z.string().nullable(),
  worktree: z.string(),
});

export type AgentPidRecord = z.infer<typeof pidRecordSchema>;

/**
 * copied.json: what the run copied from the user's checkout into its worktrees (setup/copy.ts), so
 * a merge later refuses a result that commits one of those files or adds one of their secret
 * values. Paths and SHA-256 hashes only, never a value. A record from before it has none.
 */
export const copyRecordSchema = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      secrets: z.array(z.object({ key: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
    }),
  ),
});

export type CopyRecord = z.infer<typeof copyRecordSchema>;

/** The fields each event kind needs to be shown (extra fields are kept). */
const eventSchema: z.ZodType<AgentEvent> = z.discriminatedUnion('kind', [
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('message'),
    role: z.enum(['assistant', 'user', 'system']),
    text: z.string(),
    partial: z.boolean().optional(),
    thinking: z.boolean().optional(),
  }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('tool_call'),
    id: z.string(),
    name: z.string(),
    summary: z.string(),
    input: z.unknown().optional(),
  }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('tool_result'),
    id: z.string(),
    name: z.string().optional(),
    ok: z.boolean(),
    summary: z.string(),
    output: z.string().optional(),
  }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('progress'),
    stage: z.string(),
    detail: z.string().optional(),
    sessionId: z.string().optional(),
    model: z.string().optional(),
  }),
  z.looseObject({ v: z.literal(1), kind: z.literal('usage'), usage: usageSchema }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('completed'),
    result: z.string().optional(),
    usage: usageSchema.optional(),
    exitCode: z.number().nullable().optional(),
  }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('failed'),
    error: errorInfoSchema,
    usage: usageSchema.optional(),
    exitCode: z.number().nullable().optional(),
    signal: z.string().nullable().optional(),
    stderrTail: z.string().optional(),
  }),
  z.looseObject({
    v: z.literal(1),
    kind: z.literal('unknown'),
    type: z.string().optional(),
    raw: z.unknown(),
  }),
  z.looseObject({ v: z.literal(1), kind: z.literal('parse_error'), raw: z.string(), reason: z.string() }),
]);

export const eventRecordSchema: z.ZodType<AgentEventRecord> = z.object({
  agent: agentId,
  at: z.number().finite(),
  event: eventSchema,
});

/** The first problem zod found, as `agents[0].usage: is required`-style text. */
export const describeProblem = (error: z.ZodError): string => {
  const [issue] = error.issues;
  if (issue === undefined) return 'does not match the record format';
  const where = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  const missing = /expected (\w+), received undefined/.exec(issue.message);
  const message = missing === null ? issue.message : `is missing (expected ${missing[1]})`;
  return `${where === '' ? '' : `${where.replace(/^\./, '')}: `}${message}`;
};

/**
 * What a meta record must also say beyond its shape: its own run id (the directory it is in), and
 * each agent's branch `hydra/<run-id>/<agent>`, so no record can point hydra at another branch.
 */
export const metaProblem = (meta: RunMeta, dirRunId: string): string | null => {
  if (meta.runId !== dirRunId) return `runId: says ${meta.runId}, but the record is in ${dirRunId}/`;
  const seen = new Set<string>();
  for (const [index, agent] of meta.agents.entries()) {
    if (seen.has(agent.agent)) return `agents[${index}].agent: ${agent.agent} is listed twice`;
    seen.add(agent.agent);
    const expected = branchName(dirRunId, agent.agent);
    if (agent.branch !== expected)
      return `agents[${index}].branch: ${JSON.stringify(agent.branch)} is not this run's branch ${expected}`;
  }
  return null;
};
