/**
 * Issue 22: hydra's build bundles the sandbox library and ships its seccomp filter in dist/vendor/
 * (scripts/sandbox-library.mjs). An install that lacks the filter does not sandbox without it (the
 * library would, only weaker): `hydra doctor` says the sandbox is unavailable and why. The install
 * is a copy of dist/ and package.json with no node_modules (as `npm install` of the package gives,
 * the sandbox library being bundled). test/system/sandbox/stops.test.ts checks that a sandboxed agent of
 * the real dist/ runs under the filter.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { createRepo, createSandbox, ROOT } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let install: string;

beforeEach(() => {
  sandbox = createSandbox();
  install = mkdtempSync(path.join(os.tmpdir(), 'hydra-install-'));
  cpSync(path.join(ROOT, 'dist'), path.join(install, 'dist'), { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(install, 'package.json'));
});

afterEach(() => {
  sandbox.cleanup();
  rmSync(install, { recursive: true, force: true });
});

const doctor = async (repo: string): Promise<string> => {
  const result = await execa(process.execPath, [path.join(install, 'dist', 'cli', 'main.js'), 'doctor'], {
    cwd: repo,
    env: { ...sandbox.env, HYDRA_SANDBOX: 'auto' },
    extendEnv: false,
    reject: false,
    timeout: 90_000,
  });
  return `${result.stdout}${result.stderr}`;
};

describe('an install of hydra', () => {
  it(
    'sandboxes with the seccomp filter it ships, and not at all without it',
    { timeout: 120_000, skip: process.arch !== 'x64' && process.arch !== 'arm64' },
    async () => {
      const repo = await createRepo(sandbox.dir);
      expect(await doctor(repo)).toContain('bubblewrap per agent');
      rmSync(path.join(install, 'dist', 'vendor', 'seccomp'), { recursive: true });
      const said = await doctor(repo);
      expect(said).toContain("sandbox: unavailable: the sandbox's seccomp filter (apply-seccomp) is missing");
      expect(said).toContain(path.join(install, 'dist', 'vendor'));
    },
  );
});
