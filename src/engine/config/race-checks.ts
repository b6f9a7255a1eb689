/** The race-wide checks: `[[checks]]` of the config, then each `--check`, named after what it runs. */
import { CONFIG_DEFAULTS, secondsToMs } from './schema.js';
import type { HydraConfig } from './schema.js';
import type { CheckSpec } from '../check-types.js';

/** `[[checks]]` as check specs. */
export const checkSpecsOf = (config: HydraConfig): CheckSpec[] =>
  (config.checks ?? []).map((check) => ({
    name: check.name,
    run: check.run,
    timeoutMs: secondsToMs(check.timeout_s ?? CONFIG_DEFAULTS.checkTimeoutS),
    gate: check.gate ?? false,
  }));

/** Each `--check`, named after what it runs (unique beside `[[checks]]`). */
export function flagChecks(config: HydraConfig, flags: { checks?: string[] | undefined }): CheckSpec[] {
  const names = new Set((config.checks ?? []).map((check) => check.name));
  return (flags.checks ?? []).map((run): CheckSpec => {
    const short = checkName(run);
    // A short name already taken says too little (`test-2`): the whole command then names it.
    const name = uniqueName(names.has(short) ? commandName(run) : short, names);
    names.add(name);
    // A check given on the command line is what the user wants to hold: a gate.
    return { name, run, timeoutMs: secondsToMs(CONFIG_DEFAULTS.checkTimeoutS), gate: true };
  });
}

/**
 * A short name for a `--check` command: the script of `npm test`/`npm run lint`, `test` for
 * `node --test`, `go test`, `cargo test`, else the program's name (`pytest`, `make`). The shell's
 * `test`/`[` (`test -f x`) is not a test run: the whole command names it (`test-f-x`).
 */
export function checkName(run: string): string {
  const words = run.trim().split(/\s+/);
  const [first = 'check', second, third] = words;
  // `python3 -m pytest`: the module is what runs.
  if (/^python[\d.]*$/.test(first) && second === '-m' && third !== undefined) return checkName(third);
  const program = first.split('/').pop() ?? first;
  if (program === 'test' || program === '[') return commandName(run);
  const script = ['npm', 'pnpm', 'yarn', 'bun'].includes(program)
    ? second === 'run'
      ? third
      : second
    : undefined;
  // `node --test`, `go test ./...`, `cargo test`: a test run.
  const runsTests = words.slice(1).some((word) => word === 'test' || word === '--test');
  const name = (script ?? (runsTests ? 'test' : program)).replace(/[^A-Za-z0-9._-]/g, '');
  return name === '' ? 'check' : name;
}

/** A name from the whole command: `node --test` → `node-test`, `[ -f a/b ]` → `test-f-a-b` (40 characters at most). */
const commandName = (run: string): string => {
  const name = run
    .trim()
    .replace(/^\[\s/, 'test ')
    .split(/[^A-Za-z0-9._]+/)
    .filter((word) => word !== '')
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '');
  return name === '' ? 'check' : name;
};

const uniqueName = (name: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(name)) return name;
  let n = 2;
  while (taken.has(`${name}-${n}`)) n += 1;
  return `${name}-${n}`;
};
