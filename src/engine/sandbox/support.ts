/**
 * Whether this machine can sandbox agents, checked once per hydra process like the containment:
 * the platform, the programs (bubblewrap, socat, ripgrep on Linux), the library, and a trial run
 * of `true` in a sandbox (a container may forbid the namespaces bubblewrap needs). A race starts
 * the check early (prepareSandbox), beside its other start-up work.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { trace } from '../../trace.js';
import { findSandboxHelpers, hasSeccompFilter } from './helpers.js';
import type { SandboxPolicy } from './policy.js';
import { loadLibrary, sandboxedCommand } from './runtime.js';
import type { SandboxMechanism } from './settings.js';
import { LINUX_INSTALL, findSandboxTools, missingPackages } from './tools.js';
import type { SandboxTools } from './tools.js';

export type SandboxSupport =
  | { available: true; mechanism: SandboxMechanism; tools: SandboxTools }
  | {
      available: false;
      /** What is missing or failed, as a sentence part: "bubblewrap and socat are not installed". */
      reason: string;
      /** How to get it: the install command, or what the platform allows. */
      hint: string;
    };

/** How long the trial run may take. */
const TRIAL_TIMEOUT_MS = 15_000;

/** The library needs Node 20.11 (its `engines`). */
const nodeTooOld = (): boolean => {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major < 20 || (major === 20 && minor < 11);
};

const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;

/**
 * What stands in the way before any trial, or the mechanism and its programs: macOS's Seatbelt
 * (`sandbox-exec`, part of the system; the library needs none of Linux's programs there), Linux's
 * bubblewrap, nothing elsewhere. `platform` and `exists` are the machine's (tests pass others).
 */
export const sandboxRequirements = (
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = existsSync,
): { mechanism: SandboxMechanism; tools: SandboxTools } | Extract<SandboxSupport, { available: false }> => {
  const tools = findSandboxTools(env);
  if (platform === 'darwin') {
    if (!exists('/usr/bin/sandbox-exec'))
      return {
        available: false,
        reason: '/usr/bin/sandbox-exec is missing',
        hint: 'sandbox-exec ships with macOS; without it agents run unsandboxed (--sandbox off to say so).',
      };
    return { mechanism: 'sandbox-exec', tools };
  }
  if (platform !== 'linux')
    return {
      available: false,
      reason: `there is no sandbox for ${platform} (Linux: bubblewrap; macOS: sandbox-exec)`,
      hint: 'Run hydra on Linux or macOS for sandboxed agents, or race with --sandbox off.',
    };
  const missing = missingPackages(tools);
  if (missing.length > 0)
    return {
      available: false,
      reason: `${listed(missing)} ${missing.length === 1 ? 'is' : 'are'} not installed`,
      hint: `Install them: \`${LINUX_INSTALL}\` (Fedora: \`dnf install bubblewrap socat ripgrep\`).`,
    };
  // Without its seccomp filter the library would sandbox all the same, only weaker (unix sockets).
  if (hasSeccompFilter() && findSandboxHelpers().seccomp === null)
    return {
      available: false,
      reason: `the sandbox's seccomp filter (apply-seccomp) is missing from ${findSandboxHelpers().searched.join(' and ')}`,
      hint: 'Reinstall hydra (`npm install -g hydra-race`): the package comes with it.',
    };
  return { mechanism: 'bubblewrap', tools };
};

/** Runs `true` in a sandbox; null when it worked, else why not. */
const trial = async (mechanism: SandboxMechanism): Promise<string | null> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-sandbox-check-'));
  const policy: SandboxPolicy = {
    mechanism,
    allowWrite: [dir],
    denyRead: [],
    allowRead: [],
    denyWrite: [],
    allowHosts: [],
    tmpDir: dir,
    loopbackHosts: [],
  };
  try {
    const command = await sandboxedCommand(policy, '/bin/sh', ['-c', 'exit 0'], 'hydra:sandbox-check');
    // Not spawnSync: the sandbox's proxies run in this process and must keep answering.
    const child = spawn(command.file, command.args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk.slice(0, 4096)));
    const timer = setTimeout(() => child.kill('SIGKILL'), TRIAL_TIMEOUT_MS);
    const status = await new Promise<string | number>((resolve) => {
      child.once('error', (error) => resolve(error.message));
      child.once('close', (code, signal) => resolve(code ?? signal ?? 'no status'));
    });
    clearTimeout(timer);
    command.done();
    if (status === 0) return null;
    const why = stderr.trim().split('\n').at(-1) ?? '';
    return why !== '' ? why : typeof status === 'number' ? `exit ${status}` : status;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const check = async (env: NodeJS.ProcessEnv): Promise<SandboxSupport> => {
  const needs = sandboxRequirements(env);
  if ('available' in needs) return needs;
  if (nodeTooOld())
    return {
      available: false,
      reason: `the sandbox library needs Node 20.11 or later (this is ${process.versions.node})`,
      hint: 'Upgrade Node to 20.11 or later.',
    };
  try {
    await loadLibrary();
  } catch (error) {
    return {
      available: false,
      reason: `@anthropic-ai/sandbox-runtime could not be loaded: ${(error as Error).message}`,
      hint: 'Reinstall hydra (`npm install -g hydra-race`): hydra comes with it.',
    };
  }
  const failed = await trial(needs.mechanism);
  if (failed !== null)
    return {
      available: false,
      reason: `a trial run in ${needs.mechanism} failed: ${failed}`,
      hint:
        needs.mechanism === 'bubblewrap'
          ? 'bubblewrap needs unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`; in a container, run it with --privileged or a seccomp profile that allows them).'
          : 'Check that sandbox-exec works: `sandbox-exec -p "(version 1)(allow default)" true`.',
    };
  return { available: true, mechanism: needs.mechanism, tools: needs.tools };
};

let pending: Promise<SandboxSupport> | null = null;

/** Whether agents can be sandboxed here: checked on first use, then the same answer. */
export const prepareSandbox = (): Promise<SandboxSupport> => {
  pending ??= check(process.env).then((support) => {
    trace(`sandbox: ${support.available ? support.mechanism : `unavailable (${support.reason})`}`);
    return support;
  });
  return pending;
};

/** The backend a mechanism is, by the name its platform gives it. */
const BACKENDS: Record<SandboxMechanism, string> = {
  bubblewrap: 'backend: Linux namespaces and seccomp, through @anthropic-ai/sandbox-runtime',
  'sandbox-exec': "backend: macOS's Seatbelt, through @anthropic-ai/sandbox-runtime",
};

/** One line for `hydra doctor` and the dashboard. */
export const describeSandbox = (support: SandboxSupport): string =>
  support.available
    ? `${support.mechanism} per agent (${BACKENDS[support.mechanism]}; its worktree writable, its CLI's hosts reachable, the rest read-only or refused)`
    : `unavailable: ${support.reason}; agents run unsandboxed. ${support.hint}`;
