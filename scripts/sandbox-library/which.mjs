// hydra's build puts this module in place of the sandbox library's `utils/which.js` (see
// scripts/sandbox-library.mjs): the same answer, the first executable file of that name on PATH,
// found by looking at the files instead of running `which` with spawnSync, which blocked hydra's
// event loop (and with it the library's proxies, in hydra's process) on every wrapped command.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

const executable = (file) => {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** `bin` as `which` finds it: a path is taken as it is, a name is looked up on PATH; null when not found. */
export function whichSync(bin) {
  if (bin.includes('/')) return executable(bin) ? bin : null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter))
    if (dir !== '' && executable(path.join(dir, bin))) return path.join(dir, bin);
  return null;
}
