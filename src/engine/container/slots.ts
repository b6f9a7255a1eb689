/**
 * `[container] max_agents`: how many agents' containers run at once on one engine. Placement gives
 * every agent a host (least busy first) and never refuses; an agent whose host is full waits here,
 * in the agent machine's `queued` state (no idle or overall timer runs), and starts as soon as one
 * of the host's agents ends. It stays on the host it was given: its image and CLI were checked
 * there, the summary and the watchdog name it, and a follow-up's volumes are there.
 *
 * Busy is this process's agents holding a slot on the host plus the hydra containers running there
 * that are not theirs (other runs on the same engine, by label, as placement counts them). The
 * first in line asks the engine (`docker ps`, at most every POLL_MS while others fill the host);
 * the rest wait their turn. Two hydra processes that look at the same moment can both start: the
 * count is a courtesy between runs, not a lock.
 */
import { docker, hostLabel } from './docker.js';
import { containerName, LABEL_MANAGED } from './labels.js';
import type { ContainerLaunch } from './types.js';

/** How long a read of the host's running containers stands before it is asked again. */
const FRESH_MS = 2_000;
/** How often the first in line asks again while containers of other runs fill the host. */
const POLL_MS = 3_000;

interface HostSlots {
  /** This process's agents (their container names) that hold a slot on the host. */
  holders: Set<string>;
  /** Waiting agents, first in line first. */
  line: string[];
  /** The hydra containers seen running there (any run), and when. */
  running: { names: string[]; at: number } | null;
  /** Resolved (and replaced) whenever a slot is released or the line moves. */
  changed: { promise: Promise<void>; resolve: () => void };
}

const signal = (): HostSlots['changed'] => {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

const hosts = new Map<string, HostSlots>();

const slotsOf = (host: string): HostSlots => {
  let slots = hosts.get(host);
  if (slots === undefined) {
    slots = { holders: new Set(), line: [], running: null, changed: signal() };
    hosts.set(host, slots);
  }
  return slots;
};

const notify = (slots: HostSlots): void => {
  const { resolve } = slots.changed;
  slots.changed = signal();
  resolve();
};

/** What placement saw running on `host` (names of hydra containers): the first agents start without asking again. */
export const noteRunning = (host: string, names: readonly string[]): void => {
  slotsOf(host).running = { names: [...names], at: Date.now() };
};

/** The names of the hydra containers running on `host`, or null when it did not say. */
export async function runningNames(host: string): Promise<string[] | null> {
  const result = await docker(
    host,
    ['ps', '--format', '{{.Names}}', '--filter', `label=${LABEL_MANAGED}=1`],
    {
      timeoutMs: 20_000,
    },
  );
  if (result.exitCode !== 0) return null;
  return result.stdout.split('\n').filter((line) => line.trim() !== '');
}

/** A holder's containers: its agent's, and the helper that brings a remote result back. */
const heldBy = (slots: HostSlots, name: string): boolean =>
  slots.holders.has(name) ||
  (name.endsWith('-result') && slots.holders.has(name.slice(0, -'-result'.length)));

/** Containers of other runs (or other processes) running on the host, read again when stale. */
async function othersOn(host: string, slots: HostSlots): Promise<number> {
  if (slots.running === null || Date.now() - slots.running.at > FRESH_MS) {
    const names = await runningNames(host).catch(() => null);
    // An engine that does not answer now: its containers' start will say so, with the host.
    slots.running = { names: names ?? [], at: Date.now() };
  }
  return slots.running.names.filter((name) => !heldBy(slots, name)).length;
}

const wait = (slots: HostSlots, abort: AbortSignal, ms: number | null): Promise<void> =>
  new Promise((resolve) => {
    const timer = ms === null ? null : setTimeout(done, ms);
    function done(): void {
      if (timer !== null) clearTimeout(timer);
      abort.removeEventListener('abort', done);
      resolve();
    }
    abort.addEventListener('abort', done, { once: true });
    void slots.changed.promise.then(done);
  });

export interface SlotRequest {
  host: string;
  /** `[container] max_agents`. */
  maxAgents: number;
  /** The agent's container name (one per agent, whatever the round). */
  holder: string;
  signal: AbortSignal;
  /** Said when it has to wait, and again whenever what it waits for changes. */
  onWait: (detail: string) => void;
}

/**
 * Resolves once the agent may start its container on its host (it then holds a slot until
 * `releaseSlot`), or with false when `signal` aborted first (it holds nothing).
 */
export async function takeSlot(request: SlotRequest): Promise<boolean> {
  const { host, maxAgents, holder } = request;
  const slots = slotsOf(host);
  if (slots.holders.has(holder)) return true;
  slots.line.push(holder);
  let said = '';
  const say = (busy: number): void => {
    const ahead = slots.line.indexOf(holder);
    const detail =
      busy >= maxAgents
        ? `waiting for a container on ${hostLabel(host)}: ${maxAgents}/${maxAgents} agents running there ([container] max_agents)${ahead > 0 ? `, ${ahead} waiting before it` : ''}`
        : `waiting for a container on ${hostLabel(host)}: ${ahead} agent${ahead === 1 ? '' : 's'} before it ([container] max_agents = ${maxAgents})`;
    if (detail !== said) request.onWait(detail);
    said = detail;
  };
  try {
    while (!request.signal.aborted) {
      const first = slots.line[0] === holder;
      if (first && slots.holders.size < maxAgents) {
        const busy = slots.holders.size + (await othersOn(host, slots));
        if (request.signal.aborted) break;
        if (busy < maxAgents) {
          slots.holders.add(holder);
          return true;
        }
        say(busy);
        await wait(slots, request.signal, POLL_MS);
        continue;
      }
      say(slots.holders.size + (slots.running?.names.filter((name) => !heldBy(slots, name)).length ?? 0));
      await wait(slots, request.signal, null);
    }
    return false;
  } finally {
    slots.line = slots.line.filter((name) => name !== holder);
    notify(slots);
  }
}

/** The agent's container is gone (or never started): the next in line on its host may start. */
export const releaseSlot = (host: string, holder: string): void => {
  const slots = hosts.get(host);
  if (slots?.holders.delete(holder) === true) notify(slots);
};

type Queued = { runId: string; agent: string; container?: ContainerLaunch | null };

/** Whether the agent waits for room on its host before it starts (its host has a `max_agents`). */
export const roomDue = (launch: Queued): boolean =>
  launch.container !== undefined &&
  launch.container !== null &&
  (launch.container.maxAgents ?? null) !== null;

/** takeSlot for an agent's launch (its container's name holds the slot): false when aborted. */
export const waitForRoom = (
  launch: Queued,
  abort: AbortSignal,
  onWait: (detail: string) => void,
): Promise<boolean> =>
  launch.container?.maxAgents === undefined || launch.container.maxAgents === null
    ? Promise.resolve(true)
    : takeSlot({
        host: launch.container.host,
        maxAgents: launch.container.maxAgents,
        holder: containerName(launch.runId, launch.agent),
        signal: abort,
        onWait,
      });

/** The agent's container is gone, or it never started: its room goes to the next in line. */
export const leaveRoom = (launch: Queued): void => {
  if (launch.container) releaseSlot(launch.container.host, containerName(launch.runId, launch.agent));
};
