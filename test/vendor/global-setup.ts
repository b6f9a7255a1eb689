/**
 * Installs the pinned vendor CLIs into .cache/vendor/ before the vendor suite runs (a no-op when
 * the cache already has working installs).
 */
import { HELP_VERSIONS, RECORD_VERSIONS, VENDOR_AGENTS, ensureVendorCli, findProjectRoot } from '../../scripts/vendor-cli.js';

export default async function setup(): Promise<void> {
  const root = findProjectRoot();
  for (const agent of VENDOR_AGENTS) {
    const versions = new Set([RECORD_VERSIONS[agent], ...HELP_VERSIONS[agent]]);
    for (const version of versions) {
      const install = await ensureVendorCli(root, agent, version);
      if (install.installed) console.log(`installed ${agent}@${version} in ${install.installMs} ms`);
    }
  }
}
