/**
 * A repository's dev container definition: which `devcontainer.json` (the spec's lookup order),
 * what it builds from, and a fingerprint of everything the build reads, so an unchanged definition
 * names the same image and is not built again. The reading only: building is build.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { repoKey } from '../records/index.js';
import { parseJsonc } from './jsonc.js';

/** Where the spec (containers.dev, "devcontainer.json" lookup) and the reference CLI look, in order. */
const DEVCONTAINER_PLACES = [
  '.devcontainer/devcontainer.json',
  '.devcontainer.json',
  '.devcontainer/<name>/devcontainer.json',
] as const;

export interface DevcontainerDefinition {
  /** The devcontainer.json, absolute. */
  file: string;
  /** The same, relative to the repository (for messages). */
  shown: string;
  /** `dockerfile`: built from a Dockerfile; `image`: an image with (maybe) features on top. */
  source: 'dockerfile' | 'image';
  /** The Dockerfile, when it builds from one. */
  dockerfile: string | null;
  /** SHA-256 (hex) of every input of the build: the file, its Dockerfile, what that copies in, local features. */
  fingerprint: string;
}

const refused = (problem: string, hint: string): EngineError =>
  new EngineError({ kind: 'Refused', message: `[container] devcontainer = true, but ${problem}`, hint });

/** The repository's devcontainer.json, in the spec's order; null when there is none; throws when several of the last kind. */
export function findDevcontainer(repoRoot: string): string | null {
  for (const place of DEVCONTAINER_PLACES.slice(0, 2)) {
    const file = path.join(repoRoot, place);
    if (existsSync(file)) return file;
  }
  const folder = path.join(repoRoot, '.devcontainer');
  const named = existsSync(folder)
    ? readdirSync(folder, { withFileTypes: true })
        .filter(
          (entry) => entry.isDirectory() && existsSync(path.join(folder, entry.name, 'devcontainer.json')),
        )
        .map((entry) => path.join(folder, entry.name, 'devcontainer.json'))
        .sort()
    : [];
  if (named.length === 1 && named[0] !== undefined) return named[0];
  if (named.length > 1)
    throw refused(
      `the repository has several dev containers (${named.map((file) => path.relative(repoRoot, file)).join(', ')}) and hydra cannot tell which to build`,
      'Move the one the agents should use to .devcontainer/devcontainer.json, or build it yourself and name it with [container] image = "<image>".',
    );
  return null;
}

/** The repository's devcontainer.json (findDevcontainer); throws when there is none. */
function locateDevcontainer(repoRoot: string): string {
  const found = findDevcontainer(repoRoot);
  if (found !== null) return found;
  throw refused(
    `the repository has no dev container (looked for ${DEVCONTAINER_PLACES.join(', ')})`,
    'Add .devcontainer/devcontainer.json to the repository, or name an image with [container] image = "<image>".',
  );
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Reads and fingerprints the repository's dev container definition (locateDevcontainer). */
export function readDevcontainer(repoRoot: string): DevcontainerDefinition {
  const file = locateDevcontainer(repoRoot);
  const shown = path.relative(repoRoot, file);
  const text = readFileSync(file, 'utf8');
  const parsed = parseJsonc(text);
  if (!isObject(parsed))
    throw new EngineError({
      kind: 'InvalidConfig',
      message: `${shown} is not a JSON object (devcontainer.json allows comments and trailing commas, nothing else)`,
      hint: `Fix ${shown}; \`devcontainer read-configuration --workspace-folder .\` shows how the reference CLI reads it.`,
    });
  if (parsed['dockerComposeFile'] !== undefined)
    throw new EngineError({
      kind: 'Refused',
      message: `${shown} describes a Docker Compose dev container; hydra runs one container per agent, from one image`,
      hint: 'Give the agents an image or a Dockerfile ("image" or "build": {"dockerfile": ...}) in a devcontainer.json of their own, or set [container] image.',
    });
  const dir = path.dirname(file);
  const build = isObject(parsed['build']) ? parsed['build'] : {};
  const dockerfileName = stringOf(build['dockerfile']) ?? stringOf(parsed['dockerFile']);
  const hash = createHash('sha256').update('hydra-devcontainer-1\0');
  hash.update(`${shown}\0`).update(text);
  let dockerfile: string | null = null;
  if (dockerfileName !== undefined) {
    dockerfile = path.resolve(dir, dockerfileName);
    const context = path.resolve(dir, stringOf(build['context']) ?? stringOf(parsed['context']) ?? '.');
    if (!existsSync(dockerfile))
      throw new EngineError({
        kind: 'Refused',
        message: `${shown} builds from ${path.relative(repoRoot, dockerfile)}, which does not exist`,
        hint: `Add the Dockerfile, or fix "build": {"dockerfile": ...} in ${shown} (it is relative to that file).`,
      });
    const content = readFileSync(dockerfile, 'utf8');
    hash.update(`\0dockerfile ${path.relative(repoRoot, dockerfile)}\0`).update(content);
    for (const source of copiedSources(content)) hashTree(hash, context, source);
  } else if (stringOf(parsed['image']) === undefined) {
    throw new EngineError({
      kind: 'Refused',
      message: `${shown} names neither an image ("image") nor a Dockerfile ("build": {"dockerfile": ...})`,
      hint: `Add one to ${shown}, or set [container] image.`,
    });
  }
  // Local features (`./name`, beside devcontainer.json) are directories of the repository; the
  // others are named with their version in the file, already hashed.
  const features = isObject(parsed['features']) ? Object.keys(parsed['features']) : [];
  for (const feature of features.filter((id) => id.startsWith('./') || id.startsWith('../')).sort())
    hashTree(hash, dir, feature);
  return {
    file,
    shown,
    source: dockerfile === null ? 'image' : 'dockerfile',
    dockerfile,
    fingerprint: hash.digest('hex'),
  };
}

/** The image a definition builds to: `hydra-devcontainer-<repository key>:<fingerprint>`. */
export const devcontainerImageName = (repoRoot: string, definition: DevcontainerDefinition): string =>
  `hydra-devcontainer-${repoKey(repoRoot)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')}:${definition.fingerprint.slice(0, 12)}`;

/**
 * The build-context paths a Dockerfile's COPY and ADD read (not `--from` another stage, not URLs,
 * not heredocs). A wildcard stands for the directory before it: more than it reads, never less.
 */
export function copiedSources(dockerfile: string): string[] {
  const sources: string[] = [];
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of instructions) {
    const match = /^(COPY|ADD)\s+(.*)$/i.exec(line);
    if (match === null) continue;
    let rest = match[2] ?? '';
    const flags: string[] = [];
    while (rest.startsWith('--')) {
      const space = rest.search(/\s/);
      flags.push(space < 0 ? rest : rest.slice(0, space));
      rest = space < 0 ? '' : rest.slice(space).trimStart();
    }
    if (flags.some((flag) => flag.startsWith('--from'))) continue;
    let words: string[];
    try {
      words = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
    } catch {
      words = rest.split(/\s+/);
    }
    for (const word of words.slice(0, -1)) {
      if (word.startsWith('<<') || /^[a-z]+:\/\//i.test(word) || word.startsWith('git@')) continue;
      const wildcard = word.search(/[*?[]/);
      const plain = wildcard < 0 ? word : word.slice(0, wildcard);
      sources.push(wildcard < 0 ? word : path.dirname(`${plain}x`));
    }
  }
  return sources;
}

/** Files above this size are hashed by size and time rather than read. */
const READ_LIMIT = 16 * 1024 * 1024;

/** Adds `relative` (a file or a directory, under `base`) to the hash: paths and contents, `.git` left out. */
function hashTree(hash: ReturnType<typeof createHash>, base: string, relative: string): void {
  const root = path.resolve(base, relative);
  const rel = path.relative(base, root);
  // The context's outside is not sent to the engine; the build cannot read it.
  if (rel.startsWith('..') || path.isAbsolute(rel)) return;
  const walk = (at: string): void => {
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      hash.update(`\0missing ${path.relative(base, at)}`);
      return;
    }
    const name = path.relative(base, at);
    if (stat.isSymbolicLink()) {
      hash.update(`\0link ${name} ${readlinkSync(at)}`);
    } else if (stat.isDirectory()) {
      if (path.basename(at) === '.git') return;
      for (const entry of readdirSync(at).sort()) walk(path.join(at, entry));
    } else if (stat.size > READ_LIMIT) {
      hash.update(`\0file ${name} ${stat.size} ${stat.mtimeMs}`);
    } else {
      hash.update(`\0file ${name} ${stat.mode & 0o111 ? 'x' : '-'}\0`).update(readFileSync(at));
    }
  };
  walk(root);
}
