/**
 * Command dispatch and error reporting. Commands are imported lazily so `hydra --version` and
 * `hydra --help` start without loading the engine or the dashboard.
 */
import { readFileSync } from 'node:fs';
import type { CliContext } from './context.js';
import { createContext } from './context.js';
import { EXIT, noteError, seeHelp, UsageError } from './errors.js';
import type { CommandName } from './help.js';
import { COMMAND_HELP, COMMANDS, MAIN_HELP } from './help.js';
import { unsupportedPlatform } from './platform.js';
import { trace } from '../trace.js';

export type CommandRunner = (ctx: CliContext, args: string[]) => Promise<number>;

/** The options hydra takes before a command. */
const TOP_OPTIONS = ['version', 'help'];

function hydraVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export async function runCli(
  argv: readonly string[],
  io: Parameters<typeof createContext>[0],
): Promise<number> {
  const ctx = createContext(io);
  try {
    return await dispatch(ctx, argv);
  } catch (error) {
    return report(ctx, error);
  }
}

async function dispatch(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  // Bare `hydra` is asking what hydra does: the overview, on stdout, and success.
  if (first === undefined) {
    ctx.print(MAIN_HELP);
    return EXIT.ok;
  }
  if (first === '--version' || first === '-V' || first === 'version') {
    ctx.print(hydraVersion());
    return EXIT.ok;
  }
  if (first === '--help' || first === '-h') {
    ctx.print(MAIN_HELP);
    return EXIT.ok;
  }
  if (first === 'help') return helpCommand(ctx, rest);
  if (first.startsWith('-')) {
    // `--versoin`, `-help`: the nearest of hydra's own options, when one is close.
    const { closest } = await import('../engine/index.js');
    const suggestion = closest(first.replace(/^-+/, ''), TOP_OPTIONS);
    throw new UsageError({
      message: `unknown option ${first}${suggestion === undefined ? '' : ` (did you mean --${suggestion}?)`}`,
      // `hydra --verison` is a typo of hydra's own option; `hydra --json race` puts a command's option first.
      hint:
        suggestion === undefined
          ? seeHelp('', `put the command first: hydra race ${first} "..."`)
          : seeHelp(''),
    });
  }
  if (!isCommand(first)) {
    // Loaded only here: the engine's entry is heavy, and --version/--help must start fast.
    const { closest } = await import('../engine/index.js');
    const suggestion = closest(first, COMMANDS);
    const hint = suggestion ? ` (did you mean "hydra ${suggestion}"?)` : '';
    throw new UsageError({ message: `unknown command "${first}"${hint}`, hint: seeHelp('') });
  }
  if (wantsHelp(rest)) {
    ctx.print(COMMAND_HELP[first]);
    return EXIT.ok;
  }
  const refused = unsupportedPlatform(process.platform);
  if (refused !== null) throw refused;
  const runner = await loadCommand(first);
  trace(`cli: ${first} command loaded`);
  return runner(ctx, rest);
}

function helpCommand(ctx: CliContext, args: readonly string[]): number {
  const [name] = args;
  if (name === undefined) {
    ctx.print(MAIN_HELP);
    return EXIT.ok;
  }
  if (!isCommand(name)) throw new UsageError({ message: `unknown command "${name}"`, hint: seeHelp('') });
  ctx.print(COMMAND_HELP[name]);
  return EXIT.ok;
}

/** `--help`/`-h` anywhere before a `--` separator. */
function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

const isCommand = (name: string): name is CommandName => (COMMANDS as readonly string[]).includes(name);

async function loadCommand(name: CommandName): Promise<CommandRunner> {
  switch (name) {
    case 'race':
      return (await import('./commands/race.js')).raceCommand;
    case 'doctor':
      return (await import('./commands/doctor.js')).doctorCommand;
    case 'merge':
      return (await import('./commands/merge.js')).mergeCommand;
    case 'runs':
      return (await import('./commands/runs.js')).runsCommand;
    case 'show':
      return (await import('./commands/show.js')).showCommand;
    case 'stats':
      return (await import('./commands/stats.js')).statsCommand;
    case 'clean':
      return (await import('./commands/clean.js')).cleanCommand;
    case 'demo':
      return (await import('./commands/demo.js')).demoCommand;
    case 'trust':
      return (await import('./commands/trust.js')).trustCommand;
    case 'continue':
      return (await import('./commands/continue.js')).continueCommand;
    case 'rerun':
      return (await import('./commands/continue.js')).rerunCommand;
    case 'open':
      return (await import('./commands/open.js')).openCommand;
  }
}

/** Prints an error as one clear message (plus a hint line) and returns its exit code. */
function report(ctx: CliContext, error: unknown): number {
  const exitCode = noteError(ctx, error);
  if (ctx.env.HYDRA_DEBUG && error instanceof Error && error.stack) ctx.note(ctx.err.dim(error.stack));
  return exitCode;
}
