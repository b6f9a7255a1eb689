/**
 * `hydra trust [<file>] [--revoke | --list]`: consent for a repository's hydra.toml. Until its
 * current content is trusted, the keys that widen what runs (EXECUTING_KEYS: binary, env,
 * extra_args, checks, allow_experimental_adapters, an agent list that adds a CLI) are ignored.
 * No --json: consent is a human's act, and `hydra doctor --json` reports whether a file is trusted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  CURSOR_SETUP_FILE,
  DETECTION_SOURCES,
  detectTestCommand,
  displayPath,
  EXECUTING_KEYS,
  findDevcontainer,
  findRepoRoot,
  linkedOutside,
  listTrusted,
  parseConfigText,
  revokeTrust,
  trustCursorSetup,
  trustDevcontainer,
  trustFile,
  userConfigDirOf,
  userConfigPath,
} from '../../engine/index.js';
import { formatTime, sanitize } from '../../ui/index.js';
import { getBoolean, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, seeHelp, UsageError } from '../errors.js';

const OPTIONS = {
  revoke: { type: 'boolean' },
  list: { type: 'boolean' },
} as const;

export async function trustCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('trust', args, OPTIONS);
  const [given, ...extra] = parsed.positionals;
  noExtraArguments('trust', extra);
  const revoke = getBoolean(parsed, 'revoke') ?? false;
  const list = getBoolean(parsed, 'list') ?? false;
  if (revoke && list)
    throw new UsageError({ message: 'give either --revoke or --list, not both', hint: seeHelp('trust') });
  const store = userConfigDirOf(userConfigPath(ctx.env));

  if (list) {
    if (given !== undefined)
      throw new UsageError({ message: 'hydra trust --list takes no file', hint: seeHelp('trust') });
    const entries = listTrusted(store);
    if (entries.length === 0) ctx.print('no trusted hydra.toml files; trust one with: hydra trust');
    for (const { path, entry, state } of entries) {
      const label = state === 'trusted' ? ctx.out.green('trusted') : ctx.out.yellow(`${state} since trusted`);
      ctx.print(`${sanitize(path)}  ${label}  ${formatTime(entry.trustedAt)}`);
    }
    return EXIT.ok;
  }

  const file = configFile(ctx, given);
  const shown = displayPath(file, ctx.cwd);
  // With no file: the repository's `.cursor/worktrees.json` goes with its hydra.toml (setup commands).
  const cursorRoot = given === undefined ? findRepoRoot(ctx.cwd) : cursorFileRoot(file);
  // And its dev container, which `[container] devcontainer = true` builds (its Dockerfile runs).
  const devcontainerRoot = given === undefined ? findRepoRoot(ctx.cwd) : devcontainerFileRoot(file);
  if (!revoke && (cursorRoot !== null || devcontainerRoot !== null)) {
    const cursorDone = cursorRoot !== null && trustCursor(ctx, cursorRoot);
    const devcontainerDone = devcontainerRoot !== null && trustDevcontainerOf(ctx, devcontainerRoot);
    // Only the Cursor file or the dev container here (named, or no hydra.toml beside them): done.
    if ((cursorDone || devcontainerDone) && (given !== undefined || !existsSync(file))) return EXIT.ok;
  }
  if (revoke && devcontainerRoot !== null) {
    const definition = devcontainerFileOf(devcontainerRoot);
    if (definition !== null && revokeTrust(store, definition))
      ctx.print(
        `${displayPath(definition, ctx.cwd)} is no longer trusted: [container] devcontainer = true will not build it`,
      );
    if (given !== undefined && cursorRoot === null) return EXIT.ok;
  }
  if (revoke) {
    if (cursorRoot !== null) {
      const cursor = join(cursorRoot, CURSOR_SETUP_FILE);
      if (revokeTrust(store, cursor))
        ctx.print(
          `${displayPath(cursor, ctx.cwd)} is no longer trusted: its setup commands are not run from now on`,
        );
      if (given !== undefined) return EXIT.ok;
    }
    ctx.print(
      revokeTrust(store, file)
        ? `${shown} is no longer trusted: ${revokedWhat(file)}`
        : `${shown} was not trusted; nothing to revoke`,
    );
    return EXIT.ok;
  }

  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new UsageError({ message: `cannot trust ${shown}: ${reason}` });
  }
  // A link out of the repository would lend this place another file's trust: refused.
  const target = linkedOutside(file);
  if (target !== null)
    throw new UsageError({
      message: `cannot trust ${shown}: it is a symbolic link to ${target}, outside its repository`,
      hint: "hydra trusts a repository's own file: replace the link with a copy of the file, review it, then run hydra trust",
    });
  // A file `--check auto` reads (package.json, go.mod...): trusted as it is, for the command it names.
  if (DETECTION_SOURCES.includes(basename(file))) {
    const entry = trustFile(store, file, bytes);
    ctx.print(`${ctx.out.green('trusted')} ${shown} (sha256 ${entry.sha256.slice(0, 12)})`);
    const found = detectTestCommand(dirname(file));
    if (found !== null && found.source === basename(file))
      ctx.print(`--check auto will now run: ${sanitize(found.run)} (${sanitize(found.evidence)})`);
    ctx.print(
      ctx.out.dim(`an edit to the file needs hydra trust again; undo with: hydra trust --revoke ${shown}`),
    );
    return EXIT.ok;
  }
  // Only a valid config is trusted (a ConfigError names each problem, exit 2).
  const config = parseConfigText(bytes.toString('utf8'), shown);
  const entry = trustFile(store, file, bytes);
  ctx.print(`${ctx.out.green('trusted')} ${shown} (sha256 ${entry.sha256.slice(0, 12)})`);
  const executing = executingLines(config);
  if (executing.length > 0) {
    ctx.print('hydra will now use what it runs:');
    for (const line of executing) ctx.print(`  ${sanitize(line)}`);
  }
  ctx.print(ctx.out.dim('an edit to the file needs hydra trust again; undo with: hydra trust --revoke'));
  return EXIT.ok;
}

/** The repository whose `.cursor/worktrees.json` `file` is, or null when it is another file. */
function cursorFileRoot(file: string): string | null {
  const root = findRepoRoot(dirname(file));
  return root !== null && resolve(root, CURSOR_SETUP_FILE) === resolve(file) ? root : null;
}

/** Trusts the repository's `.cursor/worktrees.json` (trustCursorSetup); false when there is none. */
function trustCursor(ctx: CliContext, root: string): boolean {
  const trusted = trustCursorSetup(root, ctx.env);
  if (trusted === null) return false;
  const shown = displayPath(join(root, CURSOR_SETUP_FILE), ctx.cwd);
  if ('problem' in trusted) throw new UsageError({ message: `cannot trust ${shown}: ${trusted.problem}` });
  ctx.print(`${ctx.out.green('trusted')} ${shown} (sha256 ${trusted.entry.sha256.slice(0, 12)})`);
  ctx.print('hydra will now run in each new worktree, when hydra.toml has no [setup] run:');
  for (const command of trusted.commands) ctx.print(`  ${sanitize(command)}`);
  return true;
}

/** The repository's devcontainer.json, or null when it has none (or several: nothing to trust by default). */
function devcontainerFileOf(root: string): string | null {
  try {
    return findDevcontainer(root);
  } catch {
    return null;
  }
}

/** The repository whose dev container `file` is, or null when it is another file. */
function devcontainerFileRoot(file: string): string | null {
  const root = findRepoRoot(dirname(file));
  const definition = root === null ? null : devcontainerFileOf(root);
  return definition !== null && resolve(definition) === resolve(file) ? root : null;
}

/** Trusts the repository's dev container as it is (trustDevcontainer); false when there is none. */
function trustDevcontainerOf(ctx: CliContext, root: string): boolean {
  const trusted = trustDevcontainer(root, ctx.env);
  if (trusted === null) return false;
  if ('problem' in trusted) {
    // Not a reason to refuse the rest: the race says the same if it is asked to build it.
    ctx.print(ctx.out.dim(`not trusted: the dev container (${sanitize(trusted.problem)})`));
    return false;
  }
  const { definition, entry } = trusted;
  ctx.print(
    `${ctx.out.green('trusted')} ${displayPath(definition.file, ctx.cwd)} (its build's inputs: sha256 ${entry.sha256.slice(0, 12)})`,
  );
  ctx.print(
    `[container] devcontainer = true may now build it${definition.dockerfile === null ? '' : `, running ${displayPath(definition.dockerfile, ctx.cwd)}`}`,
  );
  return true;
}

/** The file to trust: the one given, else the repository's hydra.toml. */
function configFile(ctx: CliContext, given: string | undefined): string {
  if (given !== undefined) return resolve(ctx.cwd, given);
  const root = findRepoRoot(ctx.cwd);
  if (root === null) {
    throw new UsageError({
      message: 'not inside a git repository, and no file given',
      hint: 'name the file: hydra trust path/to/hydra.toml',
    });
  }
  return join(root, 'hydra.toml');
}

/** One line per executing key in the file, env as its keys only. */
function executingLines(config: ReturnType<typeof parseConfigText>): string[] {
  const lines: string[] = [];
  for (const [id, agent] of Object.entries(config.agents ?? {})) {
    if (agent === undefined) continue;
    if (agent.binary !== undefined) lines.push(`agents.${id}.binary = ${JSON.stringify(agent.binary)}`);
    if (agent.extra_args !== undefined)
      lines.push(`agents.${id}.extra_args = ${JSON.stringify(agent.extra_args)}`);
    if (agent.env !== undefined) lines.push(`agents.${id}.env sets ${Object.keys(agent.env).join(', ')}`);
    for (const [index, check] of (agent.checks ?? []).entries())
      if (check.run !== undefined)
        lines.push(`agents.${id}.checks[${index}] ${check.name} runs ${JSON.stringify(check.run)}`);
  }
  for (const [index, check] of (config.checks ?? []).entries())
    lines.push(`checks[${index}] ${check.name} runs ${JSON.stringify(check.run)}`);
  if (config.race?.allow_experimental_adapters === true)
    lines.push('race.allow_experimental_adapters = true');
  if (config.race?.agents !== undefined) lines.push(`race.agents = ${JSON.stringify(config.race.agents)}`);
  return lines;
}

/** What revoking `file` stops: a file `--check auto` reads names its test command; hydra.toml its keys. */
function revokedWhat(file: string): string {
  if (!DETECTION_SOURCES.includes(basename(file)))
    return `its ${EXECUTING_KEYS.join(', ')} keys are ignored from now on`;
  const found = detectTestCommand(dirname(file));
  const command =
    found !== null && found.source === basename(file) ? `\`${sanitize(found.run)}\`` : 'its test command';
  return `[race] checks = "auto" will not run ${command} from now on (--check auto typed on the command line still does)`;
}
