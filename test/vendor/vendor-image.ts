/**
 * The vendor suite's container image: the container tests' image (test/support/container-image.ts:
 * sh, git, node and their libraries, built from files on this machine) plus bash and the pinned
 * Claude Code and Codex installs of the suite's cache (.cache/vendor/, installed from the npm
 * registry on this machine by scripts/vendor-cli.ts), added by `docker build` with a Dockerfile of
 * COPY lines, as a user adds the CLIs to a dev container image.
 *
 * The CLIs are installed on the host and copied in because a build cannot reach the registry here:
 * `RUN npm install` on the build's default (bridge) network has no DNS (EAI_AGAIN), and on the host
 * network the registry answers through a TLS-intercepting proxy whose CA the image does not trust
 * (SELF_SIGNED_CERT_IN_CHAIN). The build context is hard links into the cache (no copy on disk).
 *
 * Tagged by what goes in (`hydra-vendor-test:<hash>`: the base image, the CLI versions, the files
 * added) and built once per content; labelled as a test image, as the base is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RECORD_VERSIONS, vendorDir } from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { TEST_IMAGE_LABEL, testImage } from '../support/container-image.js';
import { PROJECT_ROOT } from './harness.js';

/** The CLIs in the image. */
export const IMAGE_AGENTS = ['claude', 'codex'] as const satisfies readonly VendorAgent[];

/** Where the installs go in the image; `bin/` holds a link per CLI and comes first on PATH. */
const VENDOR_IN_IMAGE = '/opt/hydra-vendor';

/** The image's PATH: the real CLIs, not the base image's fakes (/opt/hydra-test/bin). */
const IMAGE_PATH = `${VENDOR_IN_IMAGE}/bin:/usr/local/bin:/usr/bin:/bin`;

/**
 * Host files the CLIs need that the base lacks: Claude Code 2.1 is a native glibc executable
 * (librt, libdl, libpthread, libm), and its Bash tool wants bash.
 */
const nativeFiles = (): string[] => {
  const claude = path.join(
    vendorDir(PROJECT_ROOT, 'claude', RECORD_VERSIONS.claude),
    'node_modules',
    '@anthropic-ai',
    'claude-code',
    'bin',
    'claude.exe',
  );
  const bash = execFileSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();
  const libraries = [claude, bash].flatMap((binary) => {
    const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
    return [...out.matchAll(/(\/[^\s)]+)/g)].map((match) => match[1] ?? '').filter((file) => file !== '');
  });
  return [...new Set([bash, ...libraries])];
};

const DOCKERFILE = [
  'ARG BASE',
  'FROM ${BASE}',
  'COPY root/ /',
  `COPY vendor/ ${VENDOR_IN_IMAGE}/`,
  `ENV PATH=${IMAGE_PATH}`,
  '',
].join('\n');

let built: string | null = null;

/** The image (built at most once per content), as `hydra-vendor-test:<hash>`. */
export function vendorImage(): string {
  if (built !== null) return built;
  const base = testImage();
  const files = nativeFiles();
  const hash = createHash('sha256').update(`${base}\n${DOCKERFILE}\n`);
  for (const agent of IMAGE_AGENTS) hash.update(`${agent}@${RECORD_VERSIONS[agent]}\n`);
  for (const file of files) hash.update(`${file} ${statSync(file).size}\n`);
  const tag = `hydra-vendor-test:${hash.digest('hex').slice(0, 16)}`;
  if (spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', tag]).status === 0)
    return (built = tag);

  // On the cache's filesystem, so the installs go in as hard links.
  const context = mkdtempSync(path.join(PROJECT_ROOT, '.cache', 'vendor-image-'));
  try {
    for (const file of files) {
      const target = path.join(context, 'root', file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
    const bin = path.join(context, 'vendor', 'bin');
    mkdirSync(bin, { recursive: true });
    for (const agent of IMAGE_AGENTS) {
      const install = vendorDir(PROJECT_ROOT, agent, RECORD_VERSIONS[agent]);
      execFileSync('cp', ['-al', install, path.join(context, 'vendor', agent)]);
      symlinkSync(path.join(VENDOR_IN_IMAGE, agent, 'node_modules', '.bin', agent), path.join(bin, agent));
    }
    writeFileSync(path.join(context, 'Dockerfile'), DOCKERFILE);
    const result = spawnSync(
      'docker',
      ['build', '-q', '--build-arg', `BASE=${base}`, '--label', `${TEST_IMAGE_LABEL}=1`, '-t', tag, context],
      { encoding: 'utf8', timeout: 900_000 },
    );
    if (result.status !== 0)
      throw new Error(`docker build of ${tag} failed: ${result.stderr || String(result.error)}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  return (built = tag);
}
