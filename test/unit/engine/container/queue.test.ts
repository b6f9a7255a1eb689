/**
 * The agent machine's `queued` state: a container agent whose host is full (`max_agents`) waits
 * before anything of it starts, says so (a progress event, stage `queued`), runs no idle or overall
 * timer meanwhile, starts once room is made, and a stop ends the wait cleanly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { noteRunning, releaseSlot, takeSlot } from '../../../../src/engine/container/slots.js';
import { startAgent, testLaunch } from '../../../support/agent-harness.js';

const HOST = 'tcp://machine-queue:2376';

const launch = () =>
  testLaunch({
    runId: 'run-q',
    idleTimeoutMs: 100,
    timeoutMs: 150,
    graceMs: 100,
    container: { host: HOST, image: 'i', network: 'none', remote: true, passEnv: [], maxAgents: 1 },
  });

let started = 0;
const fakes = {
  process: () => {
    started += 1;
    return () => undefined;
  },
  finalize: () => Promise.resolve({ commit: null, diff: null }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let stopActor = (): void => undefined;

afterEach(() => {
  stopActor();
  releaseSlot(HOST, 'hydra-other-holder');
  releaseSlot(HOST, 'hydra-run-q-claude');
  started = 0;
});

const run = async () => {
  noteRunning(HOST, []);
  // Someone else holds the host's one slot.
  await takeSlot({
    host: HOST,
    maxAgents: 1,
    holder: 'hydra-other-holder',
    signal: new AbortController().signal,
    onWait: () => undefined,
  });
  const agent = startAgent(fakes, launch());
  stopActor = agent.stop;
  return agent;
};

describe('a container agent waiting for room on its host', () => {
  it('waits, says so, runs no timer meanwhile, and starts once room is made', async () => {
    const agent = await run();
    await sleep(400);
    // Past its idle (100 ms) and overall (150 ms) limits: still waiting, nothing started.
    expect(agent.state()).toBe('queued');
    expect(started).toBe(0);
    const progress = agent
      .reports()
      .flatMap((report) => (report.type === 'AGENT.OUTPUT' ? report.events : []))
      .filter((event) => event.kind === 'progress');
    expect(progress.at(-1)).toMatchObject({ stage: 'queued' });
    expect(JSON.stringify(progress.at(-1))).toContain('1/1 agents running there');
    expect(JSON.stringify(progress.at(-1))).toContain('waiting for a container on');

    releaseSlot(HOST, 'hydra-other-holder');
    await sleep(100);
    expect(started).toBe(1);
    expect(agent.state()).toMatchObject({ live: expect.anything() });
  });

  it('a stop while it waits settles it as cancelled, and nothing starts', async () => {
    const agent = await run();
    await sleep(100);
    expect(agent.state()).toBe('queued');
    agent.send({ type: 'STOP' });
    await sleep(50);
    const settled = agent.reports().find((report) => report.type === 'AGENT.SETTLED');
    expect(settled).toMatchObject({ status: 'cancelled' });
    releaseSlot(HOST, 'hydra-other-holder');
    await sleep(100);
    expect(started).toBe(0);
  });

  it('--stop first-verified while it waits settles it as stopped early; nothing starts, and its turn goes to the next', async () => {
    const agent = await run();
    await sleep(100);
    expect(agent.state()).toBe('queued');
    agent.send({ type: 'STOP_EARLY' });
    while (!agent.reports().some((report) => report.type === 'AGENT.SETTLED')) await sleep(10);
    const settled = agent.reports().find((report) => report.type === 'AGENT.SETTLED');
    expect(settled).toMatchObject({ status: 'cancelled' });
    expect(JSON.stringify(settled)).toContain("was stopped before it started: another agent's result passed");
    releaseSlot(HOST, 'hydra-other-holder');
    const next = await takeSlot({
      host: HOST,
      maxAgents: 1,
      holder: 'hydra-next-holder',
      signal: new AbortController().signal,
      onWait: () => undefined,
    });
    releaseSlot(HOST, 'hydra-next-holder');
    expect(next).toBe(true);
    expect(started).toBe(0);
  });
});
