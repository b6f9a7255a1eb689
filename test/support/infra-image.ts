/**
 * Small images for the container infrastructure's tests (watchdog, `hydra clean`, doctor, dev
 * containers, the vendor suite), built from files on this machine, as no registry is reachable: a
 * rootfs of host binaries with the libraries `ldd` names, plus files and folders given, imported
 * with `docker import`. The tag carries a hash of what went in, so a second build is a lookup.
 * Every image is labelled `io.hydra.test=container-infra`; `removeTestImages()` removes them.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { dockerAsync } from './docker-cli.js';

export const TEST_IMAGE_LABEL = 'io.hydra.test=container-infra';

export interface ImageSpec {
  /** The name before the tag: `hydra-infra-<name>:<hash>`. */
  name: string;
  /** Absolute paths of host executables, copied to the same path with their shared libraries. */
  binaries: string[];
  /** Files written into the image: path → content (mode 0755 when `executable`). */
  files?: Record<string, { content: string; executable?: boolean }>;
  /** Host folders copied into the image: image path → host path. */
  folders?: Record<string, string>;
}

/** Whether a Docker engine answers here (the tests that need one fail, saying so, where none does). */
export async function engineAnswers(): Promise<boolean> {
  const result = await dockerAsync(['info', '--format', '{{.ServerVersion}}'], {
    reject: false,
    timeoutMs: 20_000,
  });
  return result.exitCode === 0;
}

/** Throws, naming what to do, when no engine answers: a test that skips checks nothing. */
export async function requireEngine(): Promise<void> {
  if (await engineAnswers()) return;
  throw new Error(
    'No Docker engine answers (`docker info` failed). Install one (Debian: apt-get install docker.io) and start it (`dockerd --storage-driver=vfs --iptables=false &`, as .ci/run does).',
  );
}

/** The shared libraries `ldd` names for an executable (none for a static one). */
async function librariesOf(binary: string): Promise<string[]> {
  const result = await execa('ldd', [binary], { reject: false });
  return [...result.stdout.matchAll(/(\/\S+)\s+\(0x/g)].map((match) => match[1]!);
}

/** Removes every image these helpers built (tests call it where they want none left). */
export async function removeTestImages(): Promise<void> {
  const listed = await dockerAsync(['images', '-q', '--filter', `label=${TEST_IMAGE_LABEL}`], {
    reject: false,
  });
  const ids = [...new Set(listed.stdout.split('\n').filter((id) => id !== ''))];
  if (ids.length > 0) await dockerAsync(['rmi', '-f', ...ids], { reject: false });
}

/** Builds the image (or finds it built) and returns its reference. */
export async function buildTestImage(spec: ImageSpec): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(spec));
  for (const binary of spec.binaries)
    hash.update(`${binary}:${statSync(binary).mtimeMs}:${statSync(binary).size}`);
  const reference = `hydra-infra-${spec.name}:${hash.digest('hex').slice(0, 12)}`;
  const existing = await dockerAsync(['image', 'inspect', reference], { reject: false });
  if (existing.exitCode === 0) return reference;

  const rootfs = mkdtempSync(path.join(tmpdir(), 'hydra-infra-rootfs-'));
  try {
    for (const folder of ['tmp', 'etc', 'root', 'home', 'work', 'proc', 'sys', 'dev']) {
      mkdirSync(path.join(rootfs, folder), { recursive: true });
    }
    chmodSync(path.join(rootfs, 'tmp'), 0o1777);
    writeFileSync(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(path.join(rootfs, 'etc/group'), 'root:x:0:\n');
    const copies = new Set<string>();
    for (const binary of spec.binaries) {
      copies.add(binary);
      for (const library of await librariesOf(binary)) copies.add(library);
    }
    for (const file of copies) {
      const target = path.join(rootfs, file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(file, target);
      chmodSync(target, statSync(file).mode & 0o777);
    }
    // /bin/sh for `sh -c`, wherever the host keeps its shell.
    if (!copies.has('/bin/sh')) {
      const shell = spec.binaries.find((binary) => /\/(dash|sh|bash)$/.test(binary));
      if (shell !== undefined) {
        mkdirSync(path.join(rootfs, 'bin'), { recursive: true });
        copyFileSync(shell, path.join(rootfs, 'bin/sh'));
        chmodSync(path.join(rootfs, 'bin/sh'), 0o755);
      }
    }
    for (const [file, { content, executable }] of Object.entries(spec.files ?? {})) {
      const target = path.join(rootfs, file);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      chmodSync(target, executable === true ? 0o755 : 0o644);
    }
    for (const [inImage, onHost] of Object.entries(spec.folders ?? {})) {
      cpSync(onHost, path.join(rootfs, inImage), {
        recursive: true,
        dereference: false,
        verbatimSymlinks: true,
      });
    }
    const archive = `${rootfs}.tar`;
    await execa('tar', ['-C', rootfs, '-cf', archive, '.']);
    await dockerAsync([
      'import',
      '--change',
      `LABEL ${TEST_IMAGE_LABEL}`,
      '--change',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      archive,
      reference,
    ]);
    return reference;
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
    rmSync(`${rootfs}.tar`, { force: true });
  }
}

/** An image with /bin/sh and sleep: enough for a container that waits. */
export const sleeperImage = (): Promise<string> =>
  buildTestImage({ name: 'sleeper', binaries: [realShell(), '/usr/bin/sleep'] });

/** The host's /bin/sh, resolved (dash on Debian). */
export const realShell = (): string => realpathSync('/bin/sh');
