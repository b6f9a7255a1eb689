import { describe, expect, it } from 'vitest';
import {
  envValues,
  isEnvLike,
  isTrivialValue,
  secretValues,
} from '../../../../src/engine/setup/env-values.js';
import { patternReaches } from '../../../../src/engine/setup/include-list.js';
import { redactSecrets, rememberSecrets } from '../../../../src/engine/records/index.js';

describe('env-like files', () => {
  it('are .env, .env.*, *.env, .envrc and *.local, at any depth', () => {
    for (const file of ['.env', '.env.local', 'api/.env.production', 'prod.env', '.envrc', 'settings.local'])
      expect(isEnvLike(file), file).toBe(true);
    for (const file of ['env', 'environment.ts', '.local', 'src/env.ts', 'config.json', '.envoy'])
      expect(isEnvLike(file), file).toBe(false);
  });

  it('read KEY=value, export KEY=value, quoted values and unquoted comments', () => {
    const text = [
      '# a comment',
      'API_KEY=sk_abc123456789',
      'export TOKEN="quoted value 42"',
      "SINGLE='it''s'",
      'PLAIN=value-with-hash#inside # and a comment',
      'not an assignment',
      '',
    ].join('\n');
    expect(envValues(text)).toEqual([
      { key: 'API_KEY', value: 'sk_abc123456789' },
      { key: 'TOKEN', value: 'quoted value 42' },
      { key: 'SINGLE', value: 'it' },
      { key: 'PLAIN', value: 'value-with-hash#inside' },
    ]);
  });
});

describe('trivial values', () => {
  it('are short, numbers, booleans, plain words and loopback addresses', () => {
    for (const value of [
      'abc',
      '1234567',
      '123456789',
      '3.14159265',
      '0xdeadbeef',
      'true',
      'FALSE',
      'development',
      'production',
      'http://localhost:3000',
      'localhost:5432/app',
      'http://127.0.0.1:8080/api',
    ])
      expect(isTrivialValue(value), value).toBe(true);
  });

  it('leave real secrets: keys, passwords, URLs with a password', () => {
    for (const value of [
      'sk_live_abcdef123',
      'hunter2hunter2',
      'postgres://app:s3cret@localhost/db',
      'correct horse battery',
      'https://hooks.example.com/T000/B000/XXXX',
    ])
      expect(isTrivialValue(value), value).toBe(false);
  });

  it('are left out of what a file gives redaction', () => {
    expect(secretValues('NODE_ENV=development\nPORT=3000\nDEBUG=true\nDB_PASSWORD=p4ssw0rd-x\n')).toEqual([
      { key: 'DB_PASSWORD', value: 'p4ssw0rd-x' },
    ]);
  });
});

describe('remembered secrets', () => {
  it('are redacted from every later text, with no caller passing them', () => {
    const value = `remembered-${Date.now()}-value`;
    expect(redactSecrets(`it says ${value}`)).toBe(`it says ${value}`);
    rememberSecrets([{ name: 'API_KEY from .env', value }]);
    expect(redactSecrets(`it says ${value}.`)).toBe('it says [redacted: env API_KEY from .env].');
  });
});

describe('which ignored directories a pattern enters', () => {
  it('an unanchored name only the directory it names (or a parent)', () => {
    expect(patternReaches('.env', 'node_modules/')).toBe(false);
    expect(patternReaches('*.local', 'build/')).toBe(false);
    expect(patternReaches('node_modules', 'node_modules/')).toBe(true);
    expect(patternReaches('build', 'out/build/')).toBe(true);
  });

  it('an anchored path the directories on its way', () => {
    expect(patternReaches('config/secrets.json', 'config/')).toBe(true);
    expect(patternReaches('/config/secrets.json', 'config/')).toBe(true);
    expect(patternReaches('config/secrets.json', 'node_modules/')).toBe(false);
    expect(patternReaches('conf*/x', 'config/')).toBe(true);
    expect(patternReaches('**/.env', 'node_modules/')).toBe(true);
    expect(patternReaches('a/b/c', 'a/b/')).toBe(true);
    expect(patternReaches('a/x/c', 'a/b/')).toBe(false);
  });
});
