import { readFileSync } from 'node:fs';

/** hydra's version from package.json (src/engine and dist/engine are both two levels down). */
export const hydraVersion = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
};
