// hydra's build puts this module in place of the sandbox library's `utils/ripgrep.js` (see
// scripts/sandbox-library.mjs). The library scans its process's working directory with ripgrep on
// every wrapped command, for files no sandboxed process may write (`.bashrc`, `.git/hooks`, ...):
// in hydra that is the user's checkout, which no agent can write at all. The scan is made once
// and its answer reused until hydra stops the library's proxies (forgetScans, runtime.ts), instead
// of a ripgrep process per agent, per check and per trial, each spawned from hydra's event loop.
import { ripGrep as scan } from '@anthropic-ai/sandbox-runtime/dist/utils/ripgrep.js';

const scans = new Map();

/** The library's ripGrep, answered from the first identical scan while hydra keeps it. */
export function ripGrep(args, target, abortSignal, config) {
  const key = JSON.stringify([args, target, config ?? null]);
  let answer = scans.get(key);
  if (answer === undefined) {
    answer = scan(args, target, abortSignal, config);
    scans.set(key, answer);
    answer.catch(() => scans.delete(key));
  }
  return answer.then((lines) => [...lines]);
}

/** Forgets every scan (hydra calls it when the proxies stop: the next race scans again). */
export function forgetScans() {
  scans.clear();
}
