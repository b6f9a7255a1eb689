/**
 * The programs the sandbox runs on Linux: bubblewrap (the jail), socat (the bridge to the network
 * proxy) and ripgrep (the library's scan for files no agent may write). Looked up on PATH, or on
 * HYDRA_SANDBOX_PATH when set (a test points it at an empty folder to see a machine without them).
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export const SANDBOX_PATH_ENV = 'HYDRA_SANDBOX_PATH';

export interface SandboxTools {
  bwrap: string | null;
  socat: string | null;
  rg: string | null;
}

/** The Debian/Ubuntu packages that hold them, in the order of SandboxTools. */
const LINUX_PACKAGES = { bwrap: 'bubblewrap', socat: 'socat', rg: 'ripgrep' } as const;

export const LINUX_INSTALL = 'apt-get install bubblewrap socat ripgrep';

/**
 * The first executable file `name` in `dirs`, as spawn's PATH lookup finds it; null when none. Also
 * the containment's lookup (process/containment.ts), which imports it from here.
 */
export const findExecutable = (name: string, dirs: readonly string[]): string | null => {
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isDirectory()) return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
};

export const findSandboxTools = (env: NodeJS.ProcessEnv = process.env): SandboxTools => {
  const dirs = (env[SANDBOX_PATH_ENV] ?? env.PATH ?? '').split(path.delimiter);
  return {
    bwrap: findExecutable('bwrap', dirs),
    socat: findExecutable('socat', dirs),
    rg: findExecutable('rg', dirs),
  };
};

/** The packages missing for a Linux sandbox (`bubblewrap`, `socat`, `ripgrep`). */
export const missingPackages = (tools: SandboxTools): string[] =>
  (Object.keys(LINUX_PACKAGES) as Array<keyof SandboxTools>)
    .filter((tool) => tools[tool] === null)
    .map((tool) => LINUX_PACKAGES[tool]);
