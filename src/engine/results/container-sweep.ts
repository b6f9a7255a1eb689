/**
 * `hydra clean`'s part for agents in containers: the containers and volumes races left on the
 * engines (a hydra killed without its watchdog, an engine that was unreachable when the race
 * ended), found by their labels (process/container-labels.ts) on every engine the config names and
 * the engine of the environment. Only what carries the repository's label and hydra's is touched.
 * An engine that does not answer within ENGINE_TIMEOUT_MS is a warning, never a hang.
 * The docker CLI is driven as the races drive it (src/engine/container/docker.ts: HYDRA_DOCKER,
 * DOCKER_HOST for a host, time-limited).
 */
import { DEFAULT_HOST, docker, dockerBinary, hostLabel } from '../container/index.js';
import { resolveCommandSync } from '../probe/index.js';
import { CONTAINER_LABELS, ENVIRONMENT_ENGINE, isEngineHost } from '../process/index.js';
import { repoKey } from '../records/index.js';

/** The longest one engine call may take: an ssh host that hangs costs this, not forever. */
const ENGINE_TIMEOUT_MS = 15_000;

export interface ContainerSweep {
  /** The engine hosts to look at besides the environment's (`[container] hosts`). */
  hosts: readonly string[];
  /** Whether an environment engine that does not answer is worth a warning (containers in use). */
  warnDefault: boolean;
}

export interface SweepScope {
  /** Only these runs' containers and volumes; every run of the repository when absent. */
  runIds?: readonly string[];
  /** Runs whose containers stay whatever the scope (still running). */
  spare: ReadonlySet<string>;
  /** Volumes labelled io.hydra.keep (agents' session stores) stay: the runs' results stay too. */
  keepKept: boolean;
  dryRun: boolean;
}

export interface SweepResult {
  /** `<host>: <container id> (run <id>)`, removed or, in a dry run, to be removed. */
  containers: string[];
  volumes: string[];
  warnings: string[];
}

type EngineReply = { ok: true; stdout: string } | { ok: false; missing: boolean; reason: string };

/** One docker CLI call on one engine (`''`: the environment's), through the runner's docker.ts; never throws. */
async function engine(host: string, args: readonly string[]): Promise<EngineReply> {
  const missing = resolveCommandSync(dockerBinary(), process.env, process.cwd()) === null;
  if (missing) return { ok: false, missing, reason: 'the docker CLI is not installed' };
  try {
    const reply = await docker(host === '' ? ENVIRONMENT_ENGINE : host, args, {
      timeoutMs: ENGINE_TIMEOUT_MS,
    });
    if (reply.exitCode === 0) return { ok: true, stdout: reply.stdout };
    return {
      ok: false,
      missing,
      reason: reply.stderr.trim().split('\n').pop() ?? `exit code ${reply.exitCode}`,
    };
  } catch (error) {
    // An engine that cannot be reached or does not answer in time (docker.ts's EngineError).
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      missing,
      reason: message.replace(/^The container engine at .*? cannot be reached: /, ''),
    };
  }
}

/** `<name>\t<run>\t<keep>` lines into objects. */
const rows = (stdout: string): Array<{ id: string; run: string; keep: boolean }> =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', run = '', keep = ''] = line.split('\t');
      return { id, run, keep: keep === '1' };
    });

const FORMAT_FIELDS = `\t{{.Label "${CONTAINER_LABELS.run}"}}\t{{.Label "${CONTAINER_LABELS.keep}"}}`;

/** What the scope takes of one engine's listing. */
const chosen = (scope: SweepScope, run: string): boolean =>
  run !== '' && !scope.spare.has(run) && (scope.runIds === undefined || scope.runIds.includes(run));

interface Listing {
  host: string;
  name: string;
  containers: Row[];
  volumes: Row[];
}

type Row = ReturnType<typeof rows>[number];

/** The engine as the race's messages name it (container/docker.ts). */
const describeHost = (host: string): string => hostLabel(host === '' ? DEFAULT_HOST : host);

/** One engine's containers and volumes of the repository, or a warning. */
async function listEngine(
  host: string,
  filters: readonly string[],
  sweep: ContainerSweep,
): Promise<Listing | string | null> {
  const name = describeHost(host);
  if (!isEngineHost(host)) return `${name}: not an engine address, not looked at`;
  const listed = await engine(host, ['ps', '-a', ...filters, '--format', `{{.ID}}${FORMAT_FIELDS}`]);
  if (!listed.ok) {
    // Without a docker CLI, or no engine where containers were never used, there is nothing to say.
    if (host === '' && (listed.missing || !sweep.warnDefault)) return null;
    const why = listed.missing ? 'the docker CLI is not installed' : listed.reason;
    return `${name} did not answer (${why}): nothing of it was removed; run hydra clean again when it answers`;
  }
  const volumes = await engine(host, ['volume', 'ls', ...filters, '--format', `{{.Name}}${FORMAT_FIELDS}`]);
  return { host, name, containers: rows(listed.stdout), volumes: volumes.ok ? rows(volumes.stdout) : [] };
}

/**
 * Removes the repository's left-over containers and volumes in the scope, on every engine. The
 * engines are asked at once; one reached twice (by DOCKER_HOST and by its address in the config)
 * has each container removed once.
 */
export async function sweepContainers(
  root: string,
  sweep: ContainerSweep,
  scope: SweepScope,
): Promise<SweepResult> {
  const result: SweepResult = { containers: [], volumes: [], warnings: [] };
  if (scope.runIds !== undefined && scope.runIds.length === 0) return result;
  const filters = [
    '--filter',
    `label=${CONTAINER_LABELS.repo}=${repoKey(root)}`,
    '--filter',
    `label=${CONTAINER_LABELS.managed}=1`,
  ];
  const listings = await Promise.all(
    ['', ...new Set(sweep.hosts)].map((host) => listEngine(host, filters, sweep)),
  );
  const seenContainers = new Set<string>();
  const seenVolumes = new Set<string>();
  // One engine after the other: the same engine reached twice removes its containers before its volumes.
  for (const listing of listings) {
    if (listing === null) continue;
    if (typeof listing === 'string') {
      result.warnings.push(listing);
      continue;
    }
    const containers = listing.containers.filter(
      (row) => chosen(scope, row.run) && !seenContainers.has(row.id),
    );
    for (const row of containers) seenContainers.add(row.id);
    const volumes = listing.volumes.filter((row) => chosen(scope, row.run) && !(scope.keepKept && row.keep));
    for (const row of volumes) {
      if (seenVolumes.has(row.id)) continue;
      seenVolumes.add(row.id);
      result.volumes.push(`${listing.name}: ${row.id} (run ${row.run})`);
    }
    for (const row of containers) result.containers.push(`${listing.name}: ${row.id} (run ${row.run})`);
    if (scope.dryRun) continue;
    if (containers.length > 0) {
      const removed = await engine(listing.host, ['rm', '-f', '-v', ...containers.map((row) => row.id)]);
      if (!removed.ok)
        result.warnings.push(`${listing.name}: removing containers failed (${removed.reason})`);
    }
    // After the containers, which may hold them; `-f`: one already gone (the same engine twice) is no error.
    if (volumes.length > 0) {
      const removed = await engine(listing.host, ['volume', 'rm', '-f', ...volumes.map((row) => row.id)]);
      if (!removed.ok) result.warnings.push(`${listing.name}: removing volumes failed (${removed.reason})`);
    }
  }
  return result;
}
