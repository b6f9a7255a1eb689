/**
 * Runs a race's checks in one worktree, each supervised like an agent (spawnSupervised: its own
 * process group or PID namespace, registered with the race, nothing it starts outlives it), within
 * its time limit (SIGTERM, SIGKILL after the grace), one slot of the race's limiter at a time.
 * Output is kept bounded: enough to read the test counts, and a tail for the run record.
 */
import type { CheckRun, CheckSpec, CheckStatus } from '../check-types.js';
import type { CheckWhere } from '../check-types.js';
import { commandEnvironment, passedVariables, runLimited } from '../process/index.js';
import { checkCommand } from './command.js';
import { readTestCounts } from './test-counts.js';
import { knownSecrets, redactSecrets, redactValue } from '../records/index.js';
import type { KnownSecret } from '../records/index.js';
import { ownLayers } from '../setup/index.js';
import type { RunPlace } from '../setup/index.js';
import { worktreeEnv } from '../setup/index.js';
import { containerStarter } from '../container/index.js';
import type { CommandContainer } from '../container/index.js';

/** Output read for test counts: the last 1 MB of lines. */
const PARSED_OUTPUT_BYTES = 1024 * 1024;
/** Output kept in the run record: the last 8 KB. */
const RECORDED_OUTPUT_CHARS = 8 * 1024;
/** Test names kept per list (a suite with thousands of failures does not bloat the record). */
const MAX_NAMES = 200;

/** Where and how a check runs in one tree: its part of the race's RunPlace (setup/run-place.ts). */
export type CheckPlace = Pick<RunPlace, 'cwd' | 'runId' | 'owner' | 'processes' | 'slots' | 'graceMs'> &
  Partial<
    Pick<RunPlace, 'signal' | 'secrets' | 'sandbox' | 'shares' | 'identity' | 'container' | 'environment'>
  >;

/** The place's HYDRA_* variables and PORT (setup/env.ts), or none. */
const identityEnv = (place: CheckPlace): Record<string, string> =>
  place.identity === undefined
    ? {}
    : worktreeEnv({ runId: place.runId, worktree: place.cwd, ...place.identity });

/** Where a check in `container` runs: in its image on its engine, or (none) on this machine. */
export const checkWhere = (container: CommandContainer | null | undefined): CheckWhere =>
  container === null || container === undefined
    ? { where: 'host' }
    : { where: 'container', engine: container.host };

const tailChars = (text: string, max: number): string => (text.length <= max ? text : text.slice(-max));

const statusOf = (exitCode: number | null, timedOut: boolean, spawnError: boolean): CheckStatus => {
  if (timedOut) return 'timed_out';
  if (spawnError) return 'error';
  return exitCode === 0 ? 'passed' : exitCode === null ? 'error' : 'failed';
};

/** One check in one worktree, once a slot is free. Never throws: a check that cannot run is 'error'. */
export const runCheck = (spec: CheckSpec, place: CheckPlace): Promise<CheckRun> =>
  place.slots.run(async () => {
    const started = Date.now();
    if (place.signal?.aborted === true) return stopped(spec);
    const command = checkCommand(spec.run);
    const {
      exit,
      timedOut,
      output: text,
    } = await runLimited(
      {
        file: command.file,
        args: command.args,
        cwd: place.cwd,
        // Plain output, so the counts can be read. The passed credentials in `env` too: a container gets only `env`.
        env: {
          ...passedVariables(place.environment),
          ...identityEnv(place),
          NO_COLOR: '1',
          FORCE_COLOR: '0',
        },
        // hydra's environment without its credentials, unless the place runs only trusted content.
        inherit: commandEnvironment(place.environment),
        runId: place.runId,
        agent: `${place.owner}:${spec.name}`,
        stderrTailBytes: 64 * 1024,
        graceMs: place.graceMs,
        sandbox: place.sandbox ?? null,
        ...(place.shares === undefined ? {} : { shares: place.shares }),
      },
      place.processes,
      {
        timeoutMs: spec.timeoutMs,
        graceMs: place.graceMs,
        outputBytes: PARSED_OUTPUT_BYTES,
        ...(place.signal === undefined ? {} : { signal: place.signal }),
      },
      containerStarter(place.container),
    );
    const counts = readTestCounts(text);
    const status = statusOf(exit.exitCode, timedOut, exit.spawnError !== undefined);
    const secrets = secretsOf(place);
    const output =
      exit.spawnError === undefined ? text : `could not start ${command.file}: ${exit.spawnError}`;
    // Recorded, shown and printed like agent output: redacted once, here (records/redact.ts).
    return redactValue<CheckRun>(
      {
        name: spec.name,
        run: spec.run,
        gate: spec.gate,
        status: aborted(place.signal) && !timedOut ? 'error' : status,
        exitCode: exit.exitCode,
        durationMs: Date.now() - started,
        tests:
          counts === null
            ? null
            : {
                ...counts,
                failedNames: counts.failedNames.slice(0, MAX_NAMES),
                passedNames: counts.passedNames.slice(0, MAX_NAMES),
              },
        // Redacted before it is cut, so no secret is cut in half past the patterns' reach.
        output: tailChars(redactSecrets(output, secrets), RECORDED_OUTPUT_CHARS),
        ...checkWhere(place.container),
      },
      secrets,
    );
  });

/** What a check's record is redacted of: the place's configured secrets and hydra's environment's. */
const secretsOf = (place: CheckPlace): KnownSecret[] => [
  ...(place.secrets ?? []),
  ...knownSecrets(environment()),
];

/** hydra's environment, the values only (a check inherits it). */
const environment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** Read through a function: TypeScript would keep the narrowing from before the await. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const stopped = (spec: CheckSpec): CheckRun => ({
  name: spec.name,
  run: spec.run,
  gate: spec.gate,
  status: 'error',
  exitCode: null,
  durationMs: 0,
  tests: null,
  output: 'stopped before it ran (the race was cancelled)',
});

/** Every check in one worktree; they share the race's slots with the other worktrees' checks. */
export const runChecks = (specs: readonly CheckSpec[], place: CheckPlace): Promise<CheckRun[]> =>
  Promise.all(
    specs.map((spec, index) =>
      runCheck(
        spec,
        place.shares === undefined ? place : { ...place, shares: ownLayers(place.shares, index) },
      ),
    ),
  );
