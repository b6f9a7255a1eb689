/**
 * A fake docker CLI for the container runner's unit tests (HYDRA_DOCKER points at it): it logs each
 * call, lists the running hydra containers from a file, knows one image, and answers the Claude
 * Code probe (`exec <probe container> claude --version|--help`) from the recorded fixtures, or says
 * a binary is not in the image. No engine is touched.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';

const FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/adapters/claude/help/2.1.330',
);

export interface FakeDocker {
  /** The script (HYDRA_DOCKER). */
  bin: string;
  /** Each call's arguments, `--host=...` left out. */
  calls: () => string[][];
  /** The names `docker ps` lists. */
  setRunning: (names: string[]) => void;
  cleanup: () => void;
}

/** `images`: image name → id; `inImage`: the binaries the image has. */
export function fakeDocker(options: { images: Record<string, string>; inImage: string[] }): FakeDocker {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-fake-docker-'));
  const bin = path.join(dir, 'docker');
  writeFileSync(path.join(dir, 'running'), '');
  writeFileSync(path.join(dir, 'calls'), '');
  const images = Object.entries(options.images)
    .map(([name, id]) => `    ${JSON.stringify(name)}) echo ${JSON.stringify(id)}; exit 0 ;;`)
    .join('\n');
  const known = options.inImage.map((name) => JSON.stringify(name)).join('|') || '__none__';
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `dir=${JSON.stringify(dir)}`,
      'case "$1" in --host=*) shift ;; esac',
      // One call a line, its arguments joined by a tab.
      'printf "%s\\t" "$@" >> "$dir/calls"; printf "\\n" >> "$dir/calls"',
      'case "$1" in',
      '  ps) cat "$dir/running"; exit 0 ;;',
      '  image)',
      '    for last in "$@"; do :; done',
      '    case "$last" in',
      images,
      '      *) echo "Error: No such image: $last" >&2; exit 1 ;;',
      '    esac ;;',
      '  run|rm) exit 0 ;;',
      '  exec)',
      '    case "$3" in',
      `      ${known})`,
      '        case "$4" in',
      `          --version) cat ${JSON.stringify(path.join(FIXTURES, 'version.txt'))} ;;`,
      `          *) cat ${JSON.stringify(path.join(FIXTURES, 'help.txt'))} ;;`,
      '        esac; exit 0 ;;',
      '      *) echo "OCI runtime exec failed: exec: \\"$3\\": executable file not found in \\$PATH: unknown" >&2; exit 126 ;;',
      '    esac ;;',
      'esac',
      'echo "fake docker: $*" >&2; exit 1',
      '',
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  return {
    bin,
    calls: () =>
      readFileSync(path.join(dir, 'calls'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('\t').filter((arg) => arg !== '')),
    setRunning: (names) =>
      writeFileSync(path.join(dir, 'running'), names.map((name) => `${name}\n`).join('')),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What each test of a fake-docker file works with. */
export interface FakeDockerTest {
  docker: FakeDocker;
  /** An empty probe cache directory. */
  cacheDir: string;
}

/**
 * The hooks of a file that runs the container runner against the fake docker: for each test a fake
 * (as HYDRA_DOCKER) and a probe cache directory, handed to `use`; afterwards HYDRA_DOCKER as it was
 * and both removed.
 */
export function useFakeDocker(
  options: { images: Record<string, string>; inImage: string[] },
  use: (made: FakeDockerTest) => void,
): void {
  let made: FakeDockerTest | undefined;
  let saved: string | undefined;

  beforeEach(() => {
    made = {
      docker: fakeDocker(options),
      cacheDir: mkdtempSync(path.join(os.tmpdir(), 'hydra-probe-cache-')),
    };
    saved = process.env['HYDRA_DOCKER'];
    process.env['HYDRA_DOCKER'] = made.docker.bin;
    use(made);
  });

  afterEach(() => {
    if (saved === undefined) delete process.env['HYDRA_DOCKER'];
    else process.env['HYDRA_DOCKER'] = saved;
    if (made === undefined) return;
    made.docker.cleanup();
    rmSync(made.cacheDir, { recursive: true, force: true });
    made = undefined;
  });
}
