/**
 * Issue 20, errors: every HydraError subclass takes one options object ({ kind?, message, hint,
 * cause?, ...its own fields }), and no error message says "--help": where to read more is the
 * hint's job (cli/errors.ts seeHelp).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HydraError } from '../../../src/core/hydra-error.js';
import { EngineError } from '../../../src/engine/errors.js';
import { ConfigError } from '../../../src/engine/config/config-error.js';
import { GitCommandError, runGit } from '../../../src/engine/git/git.js';
import { CommandError, UsageError } from '../../../src/cli/errors.js';
import { AdapterError } from '../../../src/adapters/errors.js';

const cause = new Error('underneath');

describe('one constructor shape', () => {
  it('every subclass is built from one options object and keeps its kind, message, hint and cause', () => {
    const built: Array<[HydraError, string]> = [
      [new HydraError({ kind: 'Refused', message: 'm0', hint: 'h0', cause }), 'Refused'],
      [new EngineError({ kind: 'Refused', message: 'm1', hint: 'h1', cause, files: ['a'] }), 'Refused'],
      [new UsageError({ message: 'm2', hint: 'h2', cause }), 'InvalidConfig'],
      [new CommandError({ message: 'm3', hint: 'h3', cause }), 'Refused'],
      [new ConfigError({ problems: ['m4'], hint: 'h4', cause }), 'InvalidConfig'],
      [
        new AdapterError({ kind: 'AuthMissing', adapterId: 'claude', message: 'm5', hint: 'h5', cause }),
        'AuthMissing',
      ],
    ];
    built.forEach(([error, kind], i) => {
      expect(error).toBeInstanceOf(HydraError);
      expect(error.kind).toBe(kind);
      expect(error.message).toBe(`m${i}`);
      expect(error.hint).toBe(`h${i}`);
      expect(error.cause).toBe(cause);
    });
    expect((built[1]![0] as EngineError).files).toEqual(['a']);
    // A kind given overrides a CLI error's default.
    expect(new CommandError({ kind: 'TimedOut', message: 'm', hint: '' }).kind).toBe('TimedOut');
  });

  it('a GitCommandError is built from one options object; its kind says how git ended', () => {
    const result = { stdout: '', stderr: 'fatal: bad', exitCode: 128 };
    const failed = new GitCommandError({ args: ['status'], result, cwd: '/repo', cause });
    expect(failed.kind).toBe('GitFailed');
    expect(failed.message).toBe('git status failed (exit 128): fatal: bad');
    expect(failed.hint).toContain('Run `git status` in /repo');
    expect(failed.cause).toBe(cause);
    const notStarted = new GitCommandError({ args: ['status'], result, failure: 'not-started' });
    expect(notStarted.kind).toBe('SpawnFailed');
  });

  it('a git command that ran and exited non-zero is GitFailed, not SpawnFailed', async () => {
    const error = await runGit(process.cwd(), [
      'rev-parse',
      '--verify',
      'refs/heads/no-such-branch-here',
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as GitCommandError).kind).toBe('GitFailed');
    expect((error as GitCommandError).toInfo().kind).toBe('GitFailed');
  });

  it('no HydraError subclass in src/ has a constructor of positional parameters', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      const classes = text.matchAll(/class (\w+) extends (?:HydraError|EngineError|AdapterError)\b[^{]*\{/g);
      for (const found of classes) {
        const body = text.slice(found.index + found[0].length);
        const ctor = /\n\s*constructor\(([^)]*)\)/.exec(body.slice(0, body.search(/\n}/)));
        if (ctor === null) continue;
        const params = ctor[1]!.split(',').filter((param) => param.trim() !== '');
        if (params.length !== 1 || !/^\s*options\s*:/.test(params[0]!))
          offenders.push(`${path.relative(process.cwd(), file)}: ${found[1]}(${ctor[1]!.trim()})`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('--help is the hint’s, never the message’s', () => {
  it('no error message in src/ says --help', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      // `message: ...` up to the end of its line (and a template's continuation): a literal message.
      for (const match of text.matchAll(/\bmessage:\s*(?:'[^'\n]*'|`[^`]*`|"[^"\n]*")/g))
        if (match[0].includes('--help')) offenders.push(`${path.relative(process.cwd(), file)}: ${match[0]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('a usage error puts --help in its hint', () => {
    const error = new UsageError({ message: 'unexpected argument "x"', hint: 'see hydra show --help' });
    expect(error.message).not.toContain('--help');
    expect(error.hint).toContain('hydra show --help');
  });
});

function sourceFiles(dir = path.resolve('src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}
