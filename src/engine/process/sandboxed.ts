/**
 * A supervised process in the OS sandbox (src/engine/sandbox): its command is wrapped first (the
 * library builds the bubblewrap command, which takes a moment), then it starts under the same
 * supervision and containment as any other. Nesting: the PID namespace's init runs bubblewrap,
 * which runs the agent; stopping the group stops bubblewrap, which takes the sandbox down with it
 * at once (it leaves no grace to the agent: bubblewrap dies of the SIGTERM and the kernel kills
 * its sandbox), and the namespace's end, or its watchdog, ends whatever is left.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxedCommand, SandboxPolicy } from '../sandbox/index.js';
import { prewrapSandboxed, sandboxedCommand } from '../sandbox/index.js';

/** `file` as the agent's PATH finds it, or why it cannot be run (ENOENT, EACCES). */
const resolveExecutable = (file: string, pathValue: string): { path: string } | { error: string } => {
  const candidates = file.includes('/')
    ? [path.resolve(file)]
    : pathValue
        .split(path.delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => path.join(dir, file));
  let denied = false;
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isDirectory()) {
        denied = true;
        continue;
      }
      accessSync(candidate, constants.X_OK);
      return { path: candidate };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EACCES') denied = true;
    }
  }
  return { error: `spawn ${file} ${denied ? 'EACCES' : 'ENOENT'}` };
};

/** The key the sandbox files a process's refusals under (at most 100 characters count). */
export const refusalKey = (runId: string, agent: string): string => `hydra:${runId}:${agent}`.slice(0, 100);

/** Prepares `file args` for `policy`: the binary found, the temp directory made, the command wrapped. */
export const prepareSandboxed = async (
  policy: SandboxPolicy,
  file: string,
  args: readonly string[],
  pathValue: string,
  key: string,
): Promise<SandboxedCommand | { error: string }> => {
  const resolved = resolveExecutable(file, pathValue);
  if ('error' in resolved) return resolved;
  mkdirSync(policy.tmpDir, { recursive: true });
  return sandboxedCommand(policy, resolved.path, args, key);
};

/**
 * Starts wrapping `file args` for `policy` ahead of its spawn (the library's wrap takes a while):
 * prepareSandboxed with the same inputs then takes that wrap. The caller has made every directory
 * the policy makes writable (a missing one would be left read-only); a binary not found is left to
 * the spawn to report.
 */
export const prewrapSandboxedCommand = async (
  policy: SandboxPolicy,
  file: string,
  args: readonly string[],
  pathValue: string,
  key: string,
): Promise<void> => {
  const resolved = resolveExecutable(file, pathValue);
  if ('error' in resolved) return;
  await mkdir(policy.tmpDir, { recursive: true });
  prewrapSandboxed(policy, resolved.path, args, key);
};
