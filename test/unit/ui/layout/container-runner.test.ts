/**
 * What a user sees of containers (issue 25, a user trial): the pane, the detail view and `hydra
 * show` say an agent runs in a container and on which engine; the engine's one wording; a prompt
 * that starts with "-" given to continue; clean's help; a follow-up run here says `local`.
 */
import { describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../../../src/cli/args.js';
import { ev } from '../../../../src/core/events.js';
import { renderRun } from '../../../../src/cli/commands/show.js';
import { UsageError } from '../../../../src/cli/errors.js';
import { COMMAND_HELP } from '../../../../src/cli/help.js';
import { createStyle } from '../../../../src/cli/style.js';
import { hostLabel } from '../../../../src/engine/container/docker.js';
import { roundRunner } from '../../../../src/engine/race/race-rounds.js';
import type { AgentLaunch } from '../../../../src/engine/agent/index.js';
import type { AgentSummary, RunRecord } from '../../../../src/engine/index.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { paneLines } from '../../../../src/ui/layout/pane-lines.js';
import { detailLines } from '../../../../src/ui/layout/view-lines.js';
import { displayWidth } from '../../../../src/ui/text/text.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import {
  T0,
  agentSnapshot,
  completed,
  raceSummaryOf,
  runRecordOf,
  summaryAgent,
} from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });
const NOW = T0 + 5_000;

const pane = (overrides: Parameters<typeof agentSnapshot>[1], width = 60, compact = false): string[] =>
  paneLines(agentSnapshot('claude', overrides), {
    index: 0,
    focused: false,
    now: NOW,
    theme,
    width,
    height: 12,
    compact,
  }).map(lineText);

describe('the pane of an agent in a container', () => {
  it('says "container" in its title, with the engine when it is not the default one', () => {
    expect(pane({ runner: 'container', host: 'default' })[0]).toContain('· container');
    expect(pane({ runner: 'container', host: 'default' })[0]).not.toContain('@');
    expect(pane({ runner: 'container', host: 'ssh://buildbox' })[0]).toContain('· container @ buildbox');
    expect(pane({ runner: 'container', host: 'tcp://10.0.0.5:2376' }, 80)[0]).toContain(
      'container @ 10.0.0.5:2376',
    );
    // On this machine: nothing is added.
    expect(pane({})[0]).not.toContain('container');
    expect(pane({ runner: 'local' })[0]).not.toContain('container');
  });

  it('says "waiting for a container…" while it waits for room on its engine, "waiting" otherwise', () => {
    const queued = ev({
      kind: 'progress',
      stage: 'queued',
      detail:
        'waiting for a container on the default engine: 2/2 agents running there ([container] max_agents)',
    });
    const pending = { status: 'pending' as const, eventCount: 1, startedAt: null };
    expect(pane({ ...pending, runner: 'container', host: 'default', recentEvents: [queued] })[1]).toContain(
      'waiting for a container…',
    );
    expect(pane({ ...pending, recentEvents: [] })[1]).toContain('waiting');
    expect(pane({ ...pending, recentEvents: [] })[1]).not.toContain('container');
  });

  it('says "starting container…" while the container starts, "starting" for a local agent', () => {
    const starting = { status: 'spawning' as const, recentEvents: [], eventCount: 0, startedAt: null };
    expect(pane({ ...starting, runner: 'container', host: 'default' })[1]).toContain('starting container…');
    expect(pane({ ...starting })[1]).toContain('starting');
    expect(pane({ ...starting })[1]).not.toContain('container');
    expect(pane({ runner: 'container', host: 'default' })[1]).toContain('running');
  });

  it('keeps every line within a narrow pane, stacked or not', () => {
    const agent = {
      status: 'spawning' as const,
      runner: 'container' as const,
      host: 'ssh://a-build-machine-with-a-long-name',
    };
    for (const width of [12, 20, 30])
      for (const compact of [false, true])
        for (const line of pane(agent, width, compact)) expect(displayWidth(line)).toBeLessThanOrEqual(width);
  });
});

describe('the detail view of an agent in a container', () => {
  it('has a runner line, and the container start in its status', () => {
    const lines = (overrides: Parameters<typeof completed>[1]) =>
      detailLines(completed('claude', overrides), NOW, theme, 100, 'run-1').map(lineText);
    expect(lines({ runner: 'container', host: 'ssh://buildbox' })).toContain('runner   container @ buildbox');
    expect(lines({ runner: 'container', host: 'default' })).toContain('runner   container');
    expect(lines({}).some((line) => line.startsWith('runner'))).toBe(false);
    const starting = detailLines(
      agentSnapshot('claude', { status: 'spawning', runner: 'container', startedAt: null }),
      NOW,
      theme,
      100,
      'run-1',
    ).map(lineText);
    expect(starting[0]).toContain('starting container…');
  });
});

const agentSummary = summaryAgent;
const record = (agents: AgentSummary[]): RunRecord => runRecordOf(raceSummaryOf(agents));

describe('hydra show of agents in containers', () => {
  it('prints where each one ran, and nothing for one that ran here', () => {
    const lines = renderRun(
      record([
        agentSummary('claude', { runner: 'container', host: 'default' }),
        agentSummary('codex', { runner: 'container', host: 'ssh://buildbox' }),
        agentSummary('gemini', { runner: 'local' }),
        agentSummary('old'),
      ]),
      createStyle(false),
      theme.symbols,
    );
    expect(lines.filter((line) => line.startsWith('  runner'))).toEqual([
      '  runner  container',
      '  runner  container @ buildbox',
    ]);
  });
});

describe("the container engine's name in messages", () => {
  it('is DOCKER_HOST when set, else the Docker context, never "this machine"', () => {
    expect(hostLabel('default', { DOCKER_HOST: 'tcp://10.0.0.5:2376' })).toBe(
      'tcp://10.0.0.5:2376 (DOCKER_HOST)',
    );
    expect(hostLabel('default', { DOCKER_CONTEXT: 'buildbox' })).toBe(
      'the Docker context buildbox (DOCKER_CONTEXT)',
    );
    expect(hostLabel('default', {})).toBe('the current Docker context (DOCKER_HOST unset)');
    expect(hostLabel('ssh://buildbox', {})).toBe('ssh://buildbox');
  });
});

describe('a prompt that starts with "-"', () => {
  const hintOf = (command: string, args: string[]): string => {
    try {
      parseCommandArgs(command, args, { json: { type: 'boolean' } });
    } catch (error) {
      if (error instanceof UsageError) return `${error.message}\n${error.hint}`;
      throw error;
    }
    throw new Error('parsed');
  };

  it('is told to go after "--" for continue, as for race', () => {
    expect(hintOf('race', ['-x'])).toContain('goes after "--": hydra race -- "-x ..."');
    expect(hintOf('continue', ['last', 'claude', '-x'])).toContain(
      'goes after "--": hydra continue <run> <agent> -- "-x ..."',
    );
    // Commands without a prompt say nothing of it.
    expect(hintOf('rerun', ['last', 'claude', '-x'])).not.toContain('goes after');
    expect(hintOf('show', ['-x'])).not.toContain('goes after');
  });
});

describe("hydra clean's help", () => {
  it('says it removes containers, volumes and unused dev container images', () => {
    const help = COMMAND_HELP.clean.replace(/\s+/g, ' ');
    expect(help).toContain('containers and volumes');
    expect(help).toContain('dev container images');
    expect(help).toContain('--keep-results keeps those');
  });
});

describe("a follow-up's runner", () => {
  const container = { host: 'ssh://buildbox' } as NonNullable<AgentLaunch['container']>;

  it('is local, without a host, when it runs here after a round in a container', () => {
    expect(roundRunner({ runner: 'container', host: 'ssh://buildbox' }, {})).toEqual({
      runner: 'local',
      host: undefined,
    });
  });

  it('is its launch container and host when it runs in one', () => {
    expect(roundRunner({}, { container })).toEqual({ runner: 'container', host: 'ssh://buildbox' });
    expect(roundRunner({ runner: 'container', host: 'default' }, { container })).toEqual({
      runner: 'container',
      host: 'ssh://buildbox',
    });
  });

  it('stays unsaid for an agent that always ran here (records before runners)', () => {
    expect(roundRunner({}, {}).runner).toBeUndefined();
  });
});
