/**
 * What to say when an agent's CLI is missing because a repository's hydra.toml names its `binary`
 * and hydra ignored the key (the file is not trusted, or changed since it was): the fix is
 * `hydra trust`, not installing the CLI. Doctor and a race's skipped pane say the same.
 */
import { displayPath } from '../engine/index.js';
import { CommandError } from './errors.js';

interface LoadedForHints {
  path: string | null;
  ignored: readonly string[];
  why?: { kind: string } | undefined;
}

/** The hint per agent name whose `agents.<name>.binary` was ignored, e.g. `{ claude: "hydra.toml names …" }`. */
export function trustHints(loaded: LoadedForHints, cwd: string): Record<string, string> {
  if (loaded.path === null) return {};
  const file = displayPath(loaded.path, cwd);
  const hints: Record<string, string> = {};
  for (const key of loaded.ignored) {
    const match = /^agents\.([^.]+)\.binary$/.exec(key);
    if (match?.[1] === undefined) continue;
    hints[match[1]] =
      loaded.why?.kind === 'changed'
        ? `${file} names ${key}, ignored because the file changed since you trusted it: review the change, then run hydra trust`
        : `${file} names ${key}, ignored until you trust the file: review it, then run hydra trust`;
  }
  return hints;
}

/** A missing CLI's report with the trust hint in place of "install it", when there is one. */
export function withTrustHint<T extends { agent: string; status: string; error: { hint?: string } | null }>(
  report: T,
  hints: Readonly<Record<string, string>>,
): T {
  const hint = hints[report.agent];
  if (report.status !== 'missing' || report.error === null || hint === undefined) return report;
  return { ...report, error: { ...report.error, hint } };
}

/**
 * An untrusted repository config that asks for containers (`runner = "container"`) is not obeyed,
 * and hydra does not quietly race on this machine instead: the user chooses, with `--runner` (or
 * trusts the file). Nothing is refused when `--runner` was given or the file asks for nothing.
 */
export function refuseUntrustedContainer(
  loaded: { path: string | null; containerIgnored?: readonly string[] | undefined; why?: { kind: string } },
  runnerGiven: boolean,
  cwd: string,
): void {
  const keys = loaded.containerIgnored ?? [];
  if (runnerGiven || loaded.path === null || keys.length === 0) return;
  const file = displayPath(loaded.path, cwd);
  const why = loaded.why?.kind === 'changed' ? 'changed since you trusted it' : 'not trusted';
  throw new CommandError({
    message:
      `${file} asks for agents in containers (${keys.map((key) => `${key} = "container"`).join(', ')}), ` +
      `but it is ${why}, so hydra will not use its container settings; it will not run the agents on this machine instead without asking`,
    hint: `review the file and run \`hydra trust\` to race as it asks; or choose for this race: --runner local (this machine) or --runner container (hydra's default image)`,
  });
}
