/**
 * An install gets only the runtime `dependencies` (`npm install --omit=dev`): every package that
 * dist/ imports at run time must be one of them, and each of them must be imported (nothing
 * bundled stays a runtime dependency). Needs `npm run build` first (npm test does it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/cli-helpers.js';

const DIST = path.join(ROOT, 'dist');

/** esbuild's static `import … from "x"` / `export … from "x"` / `import "x"` lines and dynamic `import("x")`. */
const IMPORT = /^\s*(?:import|export)\b[^;"'`]*?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const jsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });

describe('dist/ and the runtime dependencies', () => {
  it('imports no package that is not a runtime dependency, and every runtime dependency is imported', () => {
    expect(existsSync(DIST), 'run `npm run build` first').toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const runtime = Object.keys(manifest.dependencies ?? {});
    const imported = new Map<string, string>();
    for (const file of jsFiles(DIST))
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
          continue;
        imported.set(packageOf(specifier), path.relative(ROOT, file));
      }
    const missing = [...imported]
      .filter(([name]) => !runtime.includes(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
    expect(runtime.filter((name) => !imported.has(name))).toEqual([]);
    // The sandbox library is bundled (scripts/sandbox-library.mjs): only the dashboard's packages stay.
    expect(runtime.sort()).toEqual(['ink', 'react']);
  });

  it('ships the bundled sandbox library helper programs, executable, where it looks for them', () => {
    for (const arch of ['x64', 'arm64']) {
      const helper = path.join(DIST, 'vendor', 'seccomp', arch, 'apply-seccomp');
      expect(existsSync(helper), helper).toBe(true);
      expect(statSync(helper).mode & 0o111, `${helper} is executable`).toBe(0o111);
    }
    expect(existsSync(path.join(DIST, 'vendor', 'java-proxy-agent', 'srt-proxy-agent.jar'))).toBe(true);
    expect(existsSync(path.join(DIST, 'vendor', 'LICENSE.sandbox-runtime'))).toBe(true);
  });
});
