/**
 * The container tests' image, built from files on this machine (no registry is reachable here or in
 * CI): /bin/sh, the coreutils the fakes use, git, node and their shared libraries, /etc/passwd, /tmp,
 * and the tests' fault agent (.cache/test-bin/fault-agent.js) with an sh wrapper per adapter binary
 * name in /opt/hydra-test/bin (first on the image's PATH). A wrapper runs the fault agent with the
 * scenario in HYDRA_FAKE_SCENARIO (JSON; the agent's `env` in hydra.toml passes it in), so one image
 * serves every test, on a local or a remote engine. Built once per content (`hydra-test:<hash>`);
 * the tag is worked out once per test run (TAG_NOTE), not in every file that asks for the image.
 *
 * Also: `dockerReachable()`, which every container test asks first: without an engine the tests
 * fail, naming .ci/run's set-up, unless HYDRA_TEST_DOCKER=0 says to leave them out.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listAdapters } from '../../src/adapters/registry.js';
import { FAULT_AGENT_SCRIPT } from './fault-scenario.js';
import type { DockerCall } from './docker-cli.js';
import { dockerSync } from './docker-cli.js';

const REPO_ROOT = path.resolve(path.dirname(FAULT_AGENT_SCRIPT), '..', '..');

/** The label on the tests' images (never on anything else). */
export const TEST_IMAGE_LABEL = 'io.hydra.test-image';

/** Where the fault agent and its wrappers are in the image. */
export const IMAGE_FAKE_DIR = '/opt/hydra-test';

const BINARIES = ['/bin/sh', 'env', 'mktemp', 'cat', 'sleep', 'rm', 'mkdir', 'ls', 'setsid', 'git', 'chown'];

const which = (name: string): string =>
  name.startsWith('/') ? name : execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();

/** The shared libraries `ldd` lists for a binary (with the loader). */
const librariesOf = (binary: string): string[] => {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
  return [...out.matchAll(/(\/[^\s)]+)/g)].map((match) => match[1] ?? '').filter((file) => file !== '');
};

const wrapperText = (adapter: string): string =>
  [
    '#!/bin/sh',
    '# hydra test fake (test/support/container-image.ts): the fault agent with $HYDRA_FAKE_SCENARIO',
    'scenario=$(mktemp)',
    `if [ -n "$HYDRA_FAKE_SCENARIO" ]; then printf '%s' "$HYDRA_FAKE_SCENARIO" > "$scenario"; else printf '{"agent":"${adapter}"}' > "$scenario"; fi`,
    `exec node ${IMAGE_FAKE_DIR}/.cache/test-bin/fault-agent.js --scenario "$scenario" -- "$@"`,
    '',
  ].join('\n');

/** Every file that goes in, keyed by its path in the image (the host path it comes from). */
function imageFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const add = (file: string, at = file): void => {
    files.set(at, file);
  };
  const binaries = BINARIES.map(which);
  for (const binary of [...binaries, process.execPath]) {
    add(binary);
    for (const library of librariesOf(binary)) add(library);
  }
  add(process.execPath, '/usr/local/bin/node');
  return files;
}

/** The tag for what goes in: the files' paths, sizes and times, and the small files' content. */
function contentTag(files: Map<string, string>): string {
  const hash = createHash('sha256');
  for (const [at, from] of [...files.entries()].sort()) {
    const stat = statSync(from);
    hash.update(`${at}\0${from}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  hash.update(readFileSync(FAULT_AGENT_SCRIPT));
  hash.update(
    execFileSync('sh', ['-c', 'find fixtures -type f -printf "%p %s %T@\\n" | sort'], { cwd: REPO_ROOT }),
  );
  for (const adapter of listAdapters())
    hash.update(`${adapter.binaries[0] ?? ''}:${wrapperText(adapter.id)}`);
  // Images built before `/` was made 0755 (a user other than root could not run in them).
  hash.update('root 0755');
  return `hydra-test:${hash.digest('hex').slice(0, 16)}`;
}

const docker = (args: string[], input?: Buffer): DockerCall =>
  dockerSync(args, input === undefined ? {} : { input });

/** Whether the engine answers; throws, naming .ci/run's docker set-up, unless HYDRA_TEST_DOCKER=0. */
export function dockerReachable(): boolean {
  if (process.env['HYDRA_TEST_DOCKER'] === '0') return false;
  const result = dockerSync(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 20_000 });
  if (result.status !== 0) {
    throw new Error(
      `The container tests need a Docker engine, and \`docker version\` failed: ${result.stderr.trim()}. ` +
        '.ci/run installs docker.io and starts dockerd (vfs storage driver) where none runs; start it the same way, ' +
        'or set HYDRA_TEST_DOCKER=0 to leave these tests out on purpose.',
    );
  }
  return true;
}

let built: string | null = null;

/**
 * The tag the first file of this test run worked out, beside the fault agent: vitest's global setup
 * writes that file anew on every run, so its time names the run (working the tag out, `ldd` of every
 * binary and a listing of the fixtures, costs most of a second per file).
 */
const TAG_NOTE = `${FAULT_AGENT_SCRIPT}.image-tag`;
const runMark = (): string => String(statSync(FAULT_AGENT_SCRIPT).mtimeMs);

function notedTag(): string | null {
  if (!existsSync(TAG_NOTE)) return null;
  const [mark, tag] = readFileSync(TAG_NOTE, 'utf8').split(' ');
  return mark === runMark() && tag !== undefined && tag !== '' ? tag : null;
}

function noteTag(tag: string): void {
  const partial = `${TAG_NOTE}.${process.pid}.tmp`;
  writeFileSync(partial, `${runMark()} ${tag}`);
  renameSync(partial, TAG_NOTE);
}

/** The tests' image (built at most once per content), as `hydra-test:<hash>`. */
export function testImage(): string {
  if (built !== null) return built;
  if (!existsSync(FAULT_AGENT_SCRIPT))
    throw new Error(`${FAULT_AGENT_SCRIPT} is missing: vitest's global setup builds it`);
  const noted = notedTag();
  if (noted !== null && docker(['image', 'inspect', '--format', '{{.Id}}', noted]).status === 0)
    return (built = noted);
  const files = imageFiles();
  const tag = contentTag(files);
  if (docker(['image', 'inspect', '--format', '{{.Id}}', tag]).status === 0) {
    noteTag(tag);
    return (built = tag);
  }
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-test-image-'));
  try {
    for (const [at, from] of files) {
      const target = path.join(root, at);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(from, target);
      chmodSync(target, statSync(from).mode & 0o7777);
    }
    // git runs its helpers (index-pack, ...) from its exec path; tar keeps their hard links.
    execFileSync('cp', ['-a', '/usr/lib/git-core', path.join(root, 'usr/lib/')]);
    for (const dir of ['tmp', 'etc', 'root', `${IMAGE_FAKE_DIR.slice(1)}/bin`])
      mkdirSync(path.join(root, dir), { recursive: true });
    chmodSync(path.join(root, 'tmp'), 0o1777);
    writeFileSync(
      path.join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n',
    );
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    // Laid out as in the checkout: the fault agent finds its recorded fixtures from package.json.
    const fakes = path.join(root, IMAGE_FAKE_DIR.slice(1));
    mkdirSync(path.join(fakes, '.cache/test-bin'), { recursive: true });
    copyFileSync(FAULT_AGENT_SCRIPT, path.join(fakes, '.cache/test-bin/fault-agent.js'));
    writeFileSync(
      path.join(fakes, 'package.json'),
      '{"name":"hydra-test-fakes","private":true,"type":"module"}\n',
    );
    execFileSync('cp', ['-a', path.join(REPO_ROOT, 'fixtures'), fakes]);
    for (const adapter of listAdapters()) {
      const name = adapter.binaries[0];
      if (name === undefined) continue;
      const wrapper = path.join(root, IMAGE_FAKE_DIR.slice(1), 'bin', name);
      writeFileSync(wrapper, wrapperText(adapter.id));
      chmodSync(wrapper, 0o755);
    }
    // mkdtemp made it 0700: as the image's `/`, no user but root could reach anything in it.
    chmodSync(root, 0o755);
    const tar = execFileSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 1 << 30 });
    const imported = docker(
      [
        'import',
        '--change',
        `ENV PATH=${IMAGE_FAKE_DIR}/bin:/usr/local/bin:/usr/bin:/bin`,
        '--change',
        `LABEL ${TEST_IMAGE_LABEL}=1`,
        '-',
        tag,
      ],
      tar,
    );
    if (imported.status !== 0) throw new Error(`docker import of the test image failed: ${imported.stderr}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  noteTag(tag);
  return (built = tag);
}
