/**
 * The tests' fake agent CLI: the demo's replay (src/demo/replay.ts) plus the faults a test asks
 * for in its scenario (fault-scenario.ts): hangs, crashes (an exit code or a signal), garbage and
 * binary noise, a flood of lines, a huge line, stderr, an ignored SIGTERM, a grandchild,
 * background children, an escapee, or a sandbox's /proc lookup (bubblewrap's).
 *
 * Compiled by vitest's global setup (build-fault-agent.ts) to .cache/test-bin/fault-agent.js and
 * installed with fault-bin.ts: `node fault-agent.js --scenario <file> -- <args>`.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { write } from '../../src/demo/fake-io.js';
import type { Invocation, ReplayHooks } from '../../src/demo/replay.js';
import { runFakeAgent } from '../../src/demo/replay.js';
import type { FaultScenario } from './fault-scenario.js';

const readStdin = (): string | null => {
  if (process.stdin.isTTY) return null;
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return null;
  }
};

const hangForever = (): Promise<never> =>
  new Promise(() => {
    setInterval(() => undefined, 1 << 30);
  });

/** Short non-JSON lines, written in big chunks so the pipe, not the fake, sets the pace. */
const flood = async (count: number, line = 'flood {n}'): Promise<void> => {
  const perWrite = 10_000;
  for (let done = 0; done < count; done += perWrite) {
    const lines = Math.min(perWrite, count - done);
    await write(
      Array.from({ length: lines }, (_, i) => `${line.replace('{n}', String(done + i))}\n`).join(''),
    );
  }
};

/** Deterministic bytes with NULs, lone continuation bytes and truncated UTF-8 sequences. */
const noise = (bytes: number, seed: number): Buffer => {
  const buffer = Buffer.alloc(bytes);
  let state = seed * 2654435761 + 1;
  for (let i = 0; i < bytes; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const pick = state % 8;
    buffer[i] = pick === 0 ? 0 : pick === 1 ? 0x80 : pick === 2 ? 0xe2 : pick === 3 ? 0x0a : state % 256;
  }
  // Ends its own line, so the stream's next line stays whole.
  if (bytes > 0) buffer[bytes - 1] = 0x0a;
  return buffer;
};

/** One line of `bytes` bytes and no newline, written in 1 MB pieces. */
const hugeLine = async (bytes: number): Promise<void> => {
  const piece = Buffer.alloc(1024 * 1024, 'x');
  for (let left = bytes; left > 0; left -= piece.length)
    await write(left >= piece.length ? piece : piece.subarray(0, left));
};

/** Background children that ignore SIGTERM/SIGHUP, each with a grandchild, in the agent's group. */
const forkChildren = (count: number): void => {
  for (let i = 0; i < count; i += 1) {
    const stdout = i % 2 === 0 ? 'inherit' : 'ignore';
    spawn('sh', ['-c', `trap '' TERM HUP; sleep 300 & wait`], {
      stdio: ['ignore', stdout, 'ignore'],
    }).unref();
  }
};

/**
 * Whether /proc/<pid of a child just started> is that child (its parent is this process), as
 * bubblewrap needs when it opens /proc/<child>/ns. The child is killed before returning.
 */
const procShowsOwnChild = (): { ok: boolean; pid: number | undefined } => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { ok: parent === process.pid, pid };
  } catch {
    return { ok: false, pid };
  } finally {
    child.kill('SIGKILL');
  }
};

const garbageFor = (line: string, index: number): string =>
  index % 2 === 0
    ? 'fake-agent: this line is not JSON {'
    : line.slice(0, Math.max(1, Math.floor(line.length / 2)));

/** Before the stream: the argv log, the sandbox check, the signal handler, stray processes, noise. */
async function start({ scenario, args, cwd }: Invocation<FaultScenario>): Promise<number | undefined> {
  if (scenario.logArgvTo !== undefined) {
    appendFileSync(scenario.logArgvTo, `${JSON.stringify({ argv: args, cwd, stdin: readStdin() })}\n`);
  }
  if (scenario.logEnvTo !== undefined) writeFileSync(scenario.logEnvTo, JSON.stringify(process.env));
  if (scenario.sandboxChild === true) {
    const { ok, pid } = procShowsOwnChild();
    if (!ok) {
      process.stderr.write(`bwrap: open /proc/${pid}/ns failed: not the child it started\n`);
      return 1;
    }
  }
  if (scenario.ignoreSigterm === true) process.on('SIGTERM', () => undefined);
  if (scenario.spawnGrandchild === true) {
    spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] }).unref();
  }
  if (scenario.forkChildren !== undefined) forkChildren(scenario.forkChildren);
  // `detached`: setsid(2) in the child, as setsid(1) does (util-linux's, which macOS lacks).
  if (scenario.spawnEscapee !== undefined) {
    spawn('env', ['-i', 'sh', '-c', `trap "" TERM; sleep ${scenario.spawnEscapee}`], {
      stdio: 'ignore',
      detached: true,
    }).unref();
  }
  if (scenario.spawnDetached !== undefined) {
    spawn('sh', ['-c', `(trap "" TERM; sleep ${scenario.spawnDetached}) >/dev/null 2>&1 &`], {
      stdio: 'ignore',
      detached: true,
    }).unref();
  }
  if (scenario.spawnUnmarked !== undefined) {
    spawn('env', ['-i', 'sh', '-c', `trap "" TERM; sleep ${scenario.spawnUnmarked}`], {
      stdio: 'ignore',
    }).unref();
  }
  if (scenario.stderr !== undefined) process.stderr.write(scenario.stderr);
  if (scenario.floodLines !== undefined) await flood(scenario.floodLines, scenario.floodLine);
  return undefined;
}

/** The last-message file made a link to `target` instead of written; the exit is a success. */
const linkLastMessage = (args: readonly string[], target: string): number => {
  const at = args.indexOf('--output-last-message');
  const file = at === -1 ? undefined : args[at + 1];
  if (file !== undefined) symlinkSync(target, file);
  return 0;
};

const faults = (invocation: Invocation<FaultScenario>): ReplayHooks => {
  const { scenario } = invocation;
  return {
    start: () => start(invocation),
    perLine:
      scenario.hangAfterLines !== undefined ||
      scenario.crashAfterLines !== undefined ||
      scenario.signalAfterLines !== undefined ||
      scenario.garbage === true ||
      scenario.noiseBytes !== undefined,
    stopAt: async (index) => {
      if (scenario.hangAfterLines !== undefined && index >= scenario.hangAfterLines) return hangForever();
      if (scenario.crashAfterLines !== undefined && index >= scenario.crashAfterLines) return 139;
      if (scenario.signalAfterLines !== undefined && index >= scenario.signalAfterLines.lines) {
        process.kill(process.pid, scenario.signalAfterLines.signal);
        return hangForever();
      }
      return undefined;
    },
    beforeLine: async (line, index) => {
      if (scenario.garbage === true) await write(`${garbageFor(line, index)}\n`);
      if (scenario.noiseBytes !== undefined) await write(noise(scenario.noiseBytes, index));
    },
    end: async () => {
      if (scenario.linkLastMessageTo !== undefined)
        return linkLastMessage(invocation.args, scenario.linkLastMessageTo);
      if (scenario.hangAfterLines !== undefined) return hangForever();
      if (scenario.crashAfterLines !== undefined) return 139;
      if (scenario.hugeLineBytes !== undefined) await hugeLine(scenario.hugeLineBytes);
      return undefined;
    },
  };
};

await runFakeAgent<FaultScenario>(faults);
