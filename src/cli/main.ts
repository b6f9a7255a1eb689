#!/usr/bin/env node
/**
 * The `hydra` binary. On Node 22.1 and later, V8's compile cache is turned on first (the modules
 * then load from compiled code the next time, on any run of the same hydra build; Node 20 has no
 * such cache and goes on without it); then start.ts runs the command.
 */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./start.js');
