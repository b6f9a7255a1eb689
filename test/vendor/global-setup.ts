/**
 * Before the vendor suite runs: installs the pinned vendor CLIs into .cache/vendor/ (a no-op when
 * the cache already has working installs) and compiles hydra into dist/, because the end-to-end
 * tests spawn the real `hydra` entry point (dist/cli/main.js) and must run the current source.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import {
  HELP_VERSIONS,
  RECORD_VERSIONS,
  VENDOR_AGENTS,
  ensureVendorCli,
  findProjectRoot,
} from '../../scripts/vendor-cli.js';

export default async function setup(): Promise<void> {
  const root = findProjectRoot();
  for (const agent of VENDOR_AGENTS) {
    const versions = new Set([RECORD_VERSIONS[agent], ...HELP_VERSIONS[agent]]);
    for (const version of versions) {
      const install = await ensureVendorCli(root, agent, version);
      if (install.installed) console.log(`installed ${agent}@${version} in ${install.installMs} ms`);
    }
  }
  await buildHydra(root);
}

const buildHydra = async (root: string): Promise<void> => {
  const result = await execa(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    reject: false,
    stdin: 'ignore',
    timeout: 300_000,
  });
  if (result.exitCode !== 0) {
    throw new Error(
      `npm run build failed (exit ${String(result.exitCode)}); the vendor suite runs dist/cli/main.js:\n${result.stdout}\n${result.stderr}`,
    );
  }
};
