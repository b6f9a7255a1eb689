/**
 * The process registry's exit and signal rule, with a fake `process`: what is killed, what is
 * cancelled, and when the signal is raised again, whoever else listens.
 */
import { describe, expect, it } from 'vitest';
import { isEngineHost } from '../../../../src/engine/process/container-labels.js';
import { createProcessRegistry } from '../../../../src/engine/process/process-registry.js';
import type { HandledSignal, SignalHost } from '../../../../src/engine/process/process-registry.js';

type Listener = (signal: HandledSignal) => void;

class FakeHost implements SignalHost {
  readonly pid = 4242;
  readonly kills: Array<[number, NodeJS.Signals]> = [];
  private readonly listeners = new Map<string, Set<Listener>>();

  on(event: string, listener: Listener): this {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(event, set);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  kill(pid: number, signal: NodeJS.Signals): boolean {
    this.kills.push([pid, signal]);
    return true;
  }

  emit(event: 'exit' | HandledSignal): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(event as HandledSignal);
  }

  count(event: string): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  /** Signals sent to hydra itself (re-raised). */
  reraised(): NodeJS.Signals[] {
    return this.kills.filter(([pid]) => pid === this.pid).map(([, signal]) => signal);
  }

  /** Process groups that got a SIGKILL. */
  killedGroups(): number[] {
    return this.kills.filter(([pid, signal]) => pid < 0 && signal === 'SIGKILL').map(([pid]) => -pid);
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('process registry: handlers', () => {
  it('installs its handlers with the first race or group and removes them with the last', () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host });
    expect(registry.handlersInstalled()).toBe(false);

    const forget = registry.registerRace('run-1', async () => undefined);
    registry.registerGroup(101, { runId: 'run-1', agent: 'claude' });
    expect(registry.handlersInstalled()).toBe(true);
    expect(['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((event) => host.count(event))).toEqual([1, 1, 1, 1]);

    forget();
    expect(registry.handlersInstalled()).toBe(true);
    registry.unregisterGroup(101);
    expect(registry.handlersInstalled()).toBe(false);
    expect(['exit', 'SIGINT', 'SIGTERM', 'SIGHUP'].map((event) => host.count(event))).toEqual([0, 0, 0, 0]);
  });

  it('keeps its handlers after dispose only while a group is still alive', () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host });
    registry.registerRace('run-1', async () => undefined);
    registry.registerGroup(101, { runId: 'run-1' });

    registry.dispose();
    expect(registry.handlersInstalled()).toBe(true);
    registry.unregisterGroup(101);
    expect(registry.handlersInstalled()).toBe(false);
  });

  it('SIGKILLs every live group when hydra exits', () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host });
    registry.registerGroup(101, { runId: 'run-1' });
    registry.registerGroup(102, { runId: 'probe' });

    host.emit('exit');

    expect(host.killedGroups()).toEqual([101, 102]);
    expect(host.reraised()).toEqual([]);
  });
});

describe('process registry: a signal', () => {
  it('cancels every race, then kills what is left and raises the signal again', async () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host });
    const cancelled: string[] = [];
    let finishCancel: () => void = () => undefined;
    registry.registerRace('run-1', () => {
      cancelled.push('run-1');
      return new Promise<void>((resolve) => {
        finishCancel = resolve;
      });
    });
    registry.registerGroup(101, { runId: 'probe' });

    host.emit('SIGTERM');
    await flush();
    expect(cancelled).toEqual(['run-1']);
    expect(host.reraised()).toEqual([]);

    finishCancel();
    await flush();
    expect(host.killedGroups()).toEqual([101]);
    expect(host.reraised()).toEqual(['SIGTERM']);
    expect(registry.handlersInstalled()).toBe(false);
  });

  it('leaves a signal the caller handles to the caller, even when nobody else listens', async () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host, signalsHandledByCaller: ['SIGINT'] });
    const cancelled: string[] = [];
    registry.registerRace('run-1', async () => {
      cancelled.push('run-1');
    });

    host.emit('SIGINT');
    await flush();

    expect(cancelled).toEqual(['run-1']);
    expect(host.reraised()).toEqual([]);
    expect(registry.handlersInstalled()).toBe(true);
  });

  it('re-raises a signal the caller does not handle, even when others listen to it', async () => {
    const host = new FakeHost();
    host.on('SIGHUP', () => undefined);
    const registry = createProcessRegistry({ host, signalsHandledByCaller: ['SIGINT', 'SIGTERM'] });
    registry.registerRace('run-1', async () => undefined);

    host.emit('SIGHUP');
    await flush();

    expect(host.reraised()).toEqual(['SIGHUP']);
  });

  it('kills every group at once on a second signal', async () => {
    const host = new FakeHost();
    const registry = createProcessRegistry({ host, signalsHandledByCaller: ['SIGINT'] });
    registry.registerRace('run-1', () => new Promise<void>(() => undefined));
    registry.registerGroup(101, { runId: 'run-1', agent: 'codex' });

    host.emit('SIGINT');
    await flush();
    expect(host.killedGroups()).toEqual([]);
    host.emit('SIGINT');

    expect(host.killedGroups()).toEqual([101]);
    expect(host.reraised()).toEqual([]);
  });
});

describe('process registry: waiting for groups', () => {
  it('resolves once every group of the run is forgotten, ignoring other runs', async () => {
    const registry = createProcessRegistry({ host: new FakeHost() });
    registry.registerGroup(101, { runId: 'run-1' });
    registry.registerGroup(102, { runId: 'run-1' });
    registry.registerGroup(103, { runId: 'run-2' });
    let done = false;
    const waiting = registry.waitForGroups('run-1').then(() => {
      done = true;
    });

    registry.unregisterGroup(101);
    await flush();
    expect(done).toBe(false);
    registry.unregisterGroup(102);
    await waiting;

    expect(done).toBe(true);
  });
});

describe('container hosts', () => {
  it('tells a listener every host announced, those before it first, each once', () => {
    const registry = createProcessRegistry({ host: new FakeHost() });
    registry.watchContainerHost('unix:///var/run/docker.sock');
    const seen: string[] = [];
    const stop = registry.onContainerHost((host) => seen.push(host));
    registry.watchContainerHost('tcp://10.0.0.5:2376');
    registry.watchContainerHost('unix:///var/run/docker.sock');
    stop();
    registry.watchContainerHost('ssh://buildbox');

    expect(seen).toEqual(['unix:///var/run/docker.sock', 'tcp://10.0.0.5:2376']);
  });

  it('passes on engine addresses only, never what a shell could read as more than one word', () => {
    const good = [
      '',
      'unix:///var/run/docker.sock',
      'tcp://[::1]:2376',
      'ssh://me@buildbox:22',
      'tcp://10.0.0.5:2376',
    ];
    const bad = [
      'buildbox',
      'tcp://h; rm -rf /',
      'unix:///x$(id)',
      'tcp://a b',
      'ssh://x\nhost y',
      '-H=tcp://x',
    ];

    expect(good.filter(isEngineHost)).toEqual(good);
    expect(bad.filter(isEngineHost)).toEqual([]);
  });
});

describe('process groups, for the watchdog', () => {
  it('tells a listener the live groups first, then each group registered and each forgotten, once', () => {
    const registry = createProcessRegistry({ host: new FakeHost() });
    registry.registerGroup(101, { runId: 'run-a', agent: 'claude' });
    registry.registerGroup(102, { runId: 'run-a', agent: 'codex' });
    registry.unregisterGroup(101);
    const seen: Array<[number, boolean]> = [];
    const stop = registry.onGroup((pgid, live) => seen.push([pgid, live]));
    registry.registerGroup(103, { runId: 'run-a', agent: 'gemini' });
    registry.unregisterGroup(102);
    registry.unregisterGroup(102);
    stop();
    registry.unregisterGroup(103);

    expect(seen).toEqual([
      [102, true],
      [103, true],
      [102, false],
    ]);
    registry.dispose();
  });
});
