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

/** The files a module of dist/ loads before it runs: its static imports, transitively. */
const staticClosure = (file: string, into = new Set<string>()): Set<string> => {
  if (into.has(file)) return into;
  into.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\b[^;"'`]*?["'](\.[^"']+)["']/gm))
    staticClosure(path.resolve(path.dirname(file), match[1] ?? ''), into);
  return into;
};

/** A chunk that dist/cli/main.js or start.ts imports on demand, by the source file that names it. */
const chunkImportedBy = (file: string, pattern: RegExp): string => {
  const match = pattern.exec(readFileSync(file, 'utf8'));
  expect(match, `${pattern} in ${file}`).not.toBeNull();
  return path.resolve(path.dirname(file), match?.[1] ?? '');
};

describe('what a race loads before it runs (issue 33)', () => {
  it('neither the price database, nor the sandbox library, nor a text segmenter at import', () => {
    const start = chunkImportedBy(path.join(DIST, 'cli', 'main.js'), /import\("(\.[^"]*start-[^"]*\.js)"\)/);
    const race = chunkImportedBy(start, /import\("(\.\/race-[^"]*\.js)"\)/);
    const loaded = staticClosure(race, staticClosure(start));
    for (const file of loaded) {
      const text = readFileSync(file, 'utf8');
      const name = path.relative(DIST, file);
      // Loaded as an agent spawns (agent-process.ts), and when an agent is sandboxed.
      expect(text, name).not.toContain('node_modules/@pydantic/genai-prices/');
      expect(text, name).not.toContain('node_modules/@anthropic-ai/sandbox-runtime/');
      // string-width's set-up runs at its first call (scripts/lazy-string-width.mjs).
      expect(text, name).not.toMatch(/^(?:var|let|const) \w+ = new Intl\.Segmenter\(/m);
    }
  });
});
