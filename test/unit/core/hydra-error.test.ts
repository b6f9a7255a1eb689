/** The one error shape: every error class reads the same way through describeError. */
import { describe, expect, it } from 'vitest';
import { AdapterError } from '../../../src/adapters/errors.js';
import { describeError, errorText, EXIT, HydraError, toErrorInfo } from '../../../src/core/hydra-error.js';
import { CommandError, UsageError } from '../../../src/cli/errors.js';
import { ConfigError, EngineError } from '../../../src/engine/index.js';

describe('describeError', () => {
  it('reads an AdapterError: message, hint, exit code 1', () => {
    const error = new AdapterError({
      kind: 'AuthMissing',
      adapterId: 'codex',
      message: 'Codex is not logged in.',
      hint: 'Run `codex login`, then race again.',
      command: ['codex', 'login', 'status'],
    });
    expect(describeError(error)).toEqual({
      message: 'Codex is not logged in.',
      hint: 'Run `codex login`, then race again.',
      exitCode: EXIT.failed,
      problems: ['Codex is not logged in.'],
    });
    expect(error.adapterId).toBe('codex');
  });

  it('reads an EngineError refusal the same way, hint included', () => {
    const error = new EngineError({
      kind: 'Refused',
      message: 'Merging would conflict in src/math.ts.',
      hint: 'Nothing was changed. Resolve it by hand.',
      files: ['src/math.ts'],
    });
    expect(describeError(error)).toEqual({
      message: 'Merging would conflict in src/math.ts.',
      hint: 'Nothing was changed. Resolve it by hand.',
      exitCode: EXIT.failed,
      problems: ['Merging would conflict in src/math.ts.'],
    });
    expect(error.toInfo()).toEqual({
      kind: 'Refused',
      message: 'Merging would conflict in src/math.ts.',
      hint: 'Nothing was changed. Resolve it by hand.',
    });
    expect(error.files).toEqual(['src/math.ts']);
  });

  it('reads a ConfigError as one line per problem, exit code 2', () => {
    const problems = [
      'hydra.toml: agents.codex.idle_timeout_s must be a positive number of seconds (got "soon")',
      'hydra.toml: unknown key race.agnets (did you mean "agents"?); allowed here: agents, timeout_s',
    ];
    const error = new ConfigError({ problems });
    expect(describeError(error)).toEqual({
      message: problems.join('\n'),
      hint: '',
      exitCode: EXIT.usage,
      problems,
    });
    expect(error.kind).toBe('InvalidConfig');
  });

  it('reads a UsageError: its hint, exit code 2', () => {
    const error = new UsageError({
      message: 'unknown option --jsn',
      hint: 'put the command first; see hydra --help',
    });
    expect(describeError(error)).toMatchObject({
      message: 'unknown option --jsn',
      hint: 'put the command first; see hydra --help',
      exitCode: EXIT.usage,
    });
    expect(error.kind).toBe('InvalidConfig');
  });

  it('reads a CommandError: a refusal with its own exit code', () => {
    const error = new CommandError({ message: 'no run "x" in /repo', hint: 'list run ids with: hydra runs' });
    expect(describeError(error)).toMatchObject({
      message: 'no run "x" in /repo',
      hint: 'list run ids with: hydra runs',
      exitCode: EXIT.failed,
    });
    expect(error.kind).toBe('Refused');
    expect(
      describeError(new CommandError({ message: 'stopped', hint: '', exitCode: EXIT.interrupted })).exitCode,
    ).toBe(130);
  });

  it("reads a summary's ErrorInfo, with the exit code its kind calls for", () => {
    expect(describeError({ kind: 'Refused', message: 'HEAD is detached.', hint: 'git switch main' })).toEqual(
      {
        message: 'HEAD is detached.',
        hint: 'git switch main',
        exitCode: EXIT.failed,
        problems: ['HEAD is detached.'],
      },
    );
    expect(describeError({ kind: 'InvalidConfig', message: 'bad', hint: '' }).exitCode).toBe(EXIT.usage);
  });

  it('reads anything else as an unexpected failure without a hint', () => {
    expect(describeError(new Error('ENOSPC: no space left on device'))).toEqual({
      message: 'ENOSPC: no space left on device',
      hint: '',
      exitCode: EXIT.failed,
      problems: ['ENOSPC: no space left on device'],
    });
    expect(describeError('boom').message).toBe('boom');
  });
});

describe('HydraError', () => {
  it('keeps its cause and an explicit exit code', () => {
    const cause = new Error('git failed');
    const error = new HydraError({ kind: 'Refused', message: 'm', hint: 'h', exitCode: 3, cause });
    expect(error.cause).toBe(cause);
    expect(error.exitCode).toBe(3);
  });

  it('gives the serializable info for snapshots; anything else becomes AgentFailed', () => {
    expect(toErrorInfo(new UsageError({ message: 'bad flag', hint: 'see --help' }))).toEqual({
      kind: 'InvalidConfig',
      message: 'bad flag',
      hint: 'see --help',
    });
    expect(toErrorInfo(new Error('crash'), 'Try again.')).toEqual({
      kind: 'AgentFailed',
      message: 'crash',
      hint: 'Try again.',
    });
  });
});

describe('errorText', () => {
  it('puts the hint after the message, or the message alone', () => {
    expect(
      errorText(
        new EngineError({ kind: 'Refused', message: 'Nothing to merge.', hint: 'Start a new race.' }),
      ),
    ).toBe('Nothing to merge. Start a new race.');
    expect(errorText(new ConfigError({ problems: ['hydra.toml: bad'] }))).toBe('hydra.toml: bad');
  });
});
