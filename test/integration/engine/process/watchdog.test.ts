/**
 * The watchdog's script (src/engine/process/watchdog.sh) on its own, both ways (/proc, and ps as
 * macOS prints it): at end of file (hydra gone) it stops the process groups hydra recorded down
 * the pipe and has not said ended, and the processes with the run's marker; a group hydra said
 * ended is left alone (its pgid may be another's by then); `done` ends it touching nothing.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { SHELL, shellScript } from '../../../../src/engine/process/containment.js';
import watchdogScript from '../../../../src/engine/process/watchdog.sh';
import { eventually } from '../../../support/wait.js';
import { alive } from '../../../support/processes.js';
import { WAYS } from '../../../support/portable.js';

const RUN = '20261206-190000-wd01';
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0))
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
});

/** A process group of its own running a shell deaf to SIGTERM, with `env` (no marker unless given). */
const group = (env: NodeJS.ProcessEnv): number => {
  const child = spawn(SHELL, ['-c', 'trap "" TERM; while :; do sleep 1; done'], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH, ...env },
  });
  started.push(child);
  return child.pid!;
};

describe.each(WAYS)('the watchdog script ($way)', ({ way, env }) => {
  const watchdog = (): ChildProcess => {
    const child = spawn(
      SHELL,
      [
        '-c',
        shellScript(watchdogScript),
        'hydra-watchdog',
        RUN,
        '3',
        'HYDRA_RUN_ID',
        'io.hydra.run',
        'HYDRA_TEST_HELPER',
        'none',
        way === 'portable' ? '-E' : 'proc',
      ],
      { stdio: ['pipe', 'ignore', 'ignore'], env: env({ PATH: process.env.PATH }) },
    );
    started.push(child);
    return child;
  };

  it('stops the recorded groups still live and the marked processes once hydra is gone, not a group said ended', async () => {
    const recorded = group({});
    const ended = group({});
    const marked = group({ HYDRA_RUN_ID: RUN });
    const dog = watchdog();
    dog.stdin!.write(`group ${recorded}\ngroup ${ended}\nended ${ended}\n`);
    dog.stdin!.end();

    await new Promise((resolve) => dog.once('exit', resolve));

    await eventually(
      () => !alive(recorded) && !alive(marked),
      10_000,
      'the recorded group and the marked process to end',
    );
    expect(alive(ended)).toBe(true);
  });

  it('touches nothing when hydra says the race is over', async () => {
    const recorded = group({});
    const marked = group({ HYDRA_RUN_ID: RUN });
    const dog = watchdog();
    dog.stdin!.end(`group ${recorded}\ndone\n`);

    await new Promise((resolve) => dog.once('exit', resolve));

    expect(alive(recorded)).toBe(true);
    expect(alive(marked)).toBe(true);
  });
});
