/**
 * The sandbox library's helper files: its seccomp filter (`apply-seccomp`, one per architecture,
 * which the sandbox runs before the agent; without it an agent could open unix sockets) and its
 * JVM proxy agent (handed to Java programs in the sandbox). hydra's build bundles the library and
 * ships them in dist/vendor/ (scripts/sandbox-library.mjs); run from source, they are in the
 * library's package. runtime.ts names them to the library, which otherwise looks beside its own
 * module and then asks `npm root -g`, and would run the sandbox without the filter if none is found.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SandboxHelpers {
  /** apply-seccomp for this architecture; null when it is missing (or the library has none for it). */
  seccomp: string | null;
  /** The JVM proxy agent, or null. */
  javaAgent: string | null;
  /** The folders looked in, for the message when one is missing. */
  searched: string[];
}

/** The library's folder names for the architectures it has a seccomp filter for. */
const SECCOMP_ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x64', arm64: 'arm64' };

/** Whether the library has a seccomp filter for this machine (x64 and arm64 only). */
export const hasSeccompFilter = (arch: NodeJS.Architecture = process.arch): boolean =>
  SECCOMP_ARCH[arch] !== undefined;

/** dist/vendor/ (every entry and chunk of dist/ is one folder below it), then the package's vendor/. */
const vendorDirs = (): string[] => {
  const dirs = [fileURLToPath(new URL('../vendor', import.meta.url))];
  try {
    const main = createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime');
    dirs.push(path.join(path.dirname(main), '..', 'vendor'));
  } catch {
    // Bundled: the package is not installed.
  }
  return dirs;
};

const firstExisting = (dirs: readonly string[], file: string): string | null =>
  dirs.map((dir) => path.join(dir, file)).find((candidate) => existsSync(candidate)) ?? null;

let found: SandboxHelpers | null = null;

/** The helpers, looked up once per process. */
export const findSandboxHelpers = (): SandboxHelpers => {
  if (found !== null) return found;
  const searched = vendorDirs();
  const arch = SECCOMP_ARCH[process.arch];
  found = {
    seccomp: arch === undefined ? null : firstExisting(searched, path.join('seccomp', arch, 'apply-seccomp')),
    javaAgent: firstExisting(searched, path.join('java-proxy-agent', 'srt-proxy-agent.jar')),
    searched,
  };
  return found;
};
