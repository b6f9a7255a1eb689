/**
 * Agents in hydra's OS sandbox: every CLI runs in its no-approval mode there (and starts no
 * sandbox of its own), outside it nothing changes; what the sandbox refused, as the tools' output
 * reports it, becomes a warning event. Outputs are the real ones recorded in the sandbox
 * (fixtures/adapters/<agent>/streams/sandbox-refused.*) or quoted from real tools.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adapterOf } from '../../../src/adapters/registry.js';
import { refusalsIn, withRefusals } from '../../../src/adapters/kit/refusals.js';
import { SANDBOX_REFUSED_STAGE, ev } from '../../../src/core/events.js';
import type { AgentEvent } from '../../../src/core/events.js';
import type { AdapterId, Capabilities, SpawnRequest } from '../../../src/adapters/types.js';
import {
  endOf,
  fixtureRunner,
  helpVersions,
  loadStream,
  replay,
  streamNames,
} from '../../support/adapter-fixtures.js';

const CWD = '/tmp/hydra-fixture/repo';

const request = (overrides: Partial<SpawnRequest> = {}): SpawnRequest => ({
  prompt: 'Run the tests',
  cwd: CWD,
  scratchDir: '/tmp/hydra-fixture/scratch',
  unsafe: false,
  extraArgs: [],
  env: {},
  ...overrides,
});

const capabilitiesOf = async (agent: AdapterId, version: string): Promise<Capabilities> => {
  const result = await adapterOf(agent).probe(`/bin/${agent}`, fixtureRunner(agent, version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

const refused = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((event) =>
    event.kind === 'progress' && event.stage === SANDBOX_REFUSED_STAGE ? [event.detail ?? ''] : [],
  );

/** Per CLI: what full autonomy adds to its command at its latest recorded version, and its env. */
const FULL_AUTONOMY: Record<AdapterId, { args: string[]; notArgs: string[]; env: Record<string, string> }> = {
  claude: {
    args: ['--permission-mode', 'bypassPermissions'],
    notArgs: ['acceptEdits'],
    env: { IS_SANDBOX: '1' },
  },
  codex: {
    args: ['--dangerously-bypass-approvals-and-sandbox'],
    notArgs: ['workspace-write', '--full-auto'],
    env: {},
  },
  gemini: { args: ['--approval-mode', 'yolo'], notArgs: ['auto_edit'], env: { GEMINI_SANDBOX: 'false' } },
  qwen: {
    args: ['--approval-mode', 'yolo'],
    notArgs: ['auto-edit'],
    env: { QWEN_SANDBOX: 'false', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' },
  },
  opencode: { args: ['--auto'], notArgs: [], env: {} },
  cursor: { args: ['--force', '--sandbox', 'disabled'], notArgs: [], env: {} },
};

describe.each(Object.keys(FULL_AUTONOMY))('%s in the OS sandbox', (agent) => {
  const latest = helpVersions(agent).at(-1)!;
  const expected = FULL_AUTONOMY[agent]!;

  it('runs in its no-approval mode, without a sandbox of its own', async () => {
    const built = adapterOf(agent).buildCommand(
      request({ sandboxed: true }),
      await capabilitiesOf(agent, latest),
    );
    expect(built.args).toEqual(expect.arrayContaining(expected.args));
    for (const arg of expected.notArgs) expect(built.args).not.toContain(arg);
    expect(built.env).toMatchObject(expected.env);
  });

  it('builds the same command as before outside the sandbox', async () => {
    const capabilities = await capabilitiesOf(agent, latest);
    const plain = adapterOf(agent).buildCommand(request(), capabilities);
    expect(adapterOf(agent).buildCommand(request({ sandboxed: false }), capabilities)).toEqual(plain);
    for (const [name] of Object.entries(expected.env)) expect(plain.env[name]).toBeUndefined();
    if (agent !== 'cursor') expect(plain.args).not.toEqual(expect.arrayContaining(expected.args));
    else expect(plain.args).not.toContain('disabled');
  });

  it.each(helpVersions(agent))('finds a full-autonomy mode in %s, or warns', async (version) => {
    const result = await adapterOf(agent).probe(`/bin/${agent}`, fixtureRunner(agent, version));
    if (!result.ok) return; // refused at probe time (too old): it never races
    const sandboxed = adapterOf(agent).buildCommand(request({ sandboxed: true }), result.capabilities);
    const plain = adapterOf(agent).buildCommand(request(), result.capabilities);
    const warned = result.capabilities.warnings.some((warning) => /sandboxed/.test(warning));
    expect(warned || sandboxed.args.join(' ') !== plain.args.join(' ')).toBe(true);
  });
});

describe('docs/adapters.md', () => {
  it("names each CLI's no-approval mode as a sandboxed race runs it (doctor prints the same)", () => {
    const doc = readFileSync(new URL('../../../docs/adapters.md', import.meta.url), 'utf8');
    for (const [agent, expected] of Object.entries(FULL_AUTONOMY)) {
      const row = doc.split('\n').find((line) => line.includes(` ${adapterOf(agent).displayName} `));
      expect(row, agent).toContain(`\`${expected.args.join(' ')}\``);
    }
  });
});

describe('full autonomy where a CLI lacks the flags', () => {
  it('keeps Claude Code on acceptEdits in the sandbox when it can bypass nothing, and says so at probe time', async () => {
    const strip = (_file: string, text: string): string =>
      text
        .replace(/--dangerously-skip-permissions/g, '--dangerous-other')
        .replace(/--permission-mode/g, '--mode-other');
    const version = helpVersions('claude').at(-1)!;
    const result = await adapterOf('claude').probe('/bin/claude', fixtureRunner('claude', version, strip));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.capabilities.warnings.join(' ')).toMatch(/sandboxed and --unsafe races keep its edit-only/);
    const built = adapterOf('claude').buildCommand(request({ sandboxed: true }), result.capabilities);
    expect(built.args).toEqual(
      expect.arrayContaining(['--allowedTools', 'Edit,Write,MultiEdit,NotebookEdit']),
    );
    expect(built.args).not.toContain('--dangerously-skip-permissions');
  });

  it('uses --sandbox danger-full-access for a Codex without the bypass flag', async () => {
    const version = helpVersions('codex').at(-1)!;
    const runner = fixtureRunner('codex', version, (_file, text) =>
      text.replace(/--dangerously-bypass-approvals-and-sandbox/g, '--dangerously-other'),
    );
    const result = await adapterOf('codex').probe('/bin/codex', runner);
    if (!result.ok) throw result.error;
    const built = adapterOf('codex').buildCommand(request({ sandboxed: true }), result.capabilities);
    expect(built.args).toEqual(expect.arrayContaining(['--sandbox', 'danger-full-access']));
  });

  it('does not disable a Cursor sandbox its help does not offer', async () => {
    const version = helpVersions('cursor').at(-1)!;
    const runner = fixtureRunner('cursor', version, (_file, text) =>
      text.replace(/--sandbox <mode>.*\n/, ''),
    );
    const result = await adapterOf('cursor').probe('/bin/cursor-agent', runner);
    if (!result.ok) throw result.error;
    const built = adapterOf('cursor').buildCommand(request({ sandboxed: true }), result.capabilities);
    expect(built.args).not.toContain('--sandbox');
  });
});

describe('refusals in a tool output', () => {
  const details = (output: string, cwd: string | undefined = CWD): string[] =>
    refusalsIn(output, cwd).map((event) => event.detail ?? '');
  const withoutWorktree = (output: string): string[] =>
    refusalsIn(output, undefined).map((event) => event.detail ?? '');

  it.each([
    ['bash', '/bin/bash: line 1: ../outside.txt: Read-only file system', 'a write to ../outside.txt'],
    [
      "Claude Code's Write",
      "EROFS: read-only file system, open '/tmp/hydra-fixture/outside.txt.tmp.2.43b3dfafa41b'",
      'a write to /tmp/hydra-fixture/outside.txt.tmp.2.43b3dfafa41b',
    ],
    ['touch', "touch: cannot touch '/root/x.txt': Read-only file system", 'a write to /root/x.txt'],
    [
      'mkdir (typographic quotes)',
      'mkdir: cannot create directory ‘../x’: Read-only file system',
      'a write to ../x',
    ],
    ['Python', "OSError: [Errno 30] Read-only file system: '/etc/x'", 'a write to /etc/x'],
    ['Node', "Error: EROFS: read-only file system, open '/etc/x'", 'a write to /etc/x'],
    [
      'git in the shared git directory',
      "fatal: Unable to create '/tmp/hydra-fixture/main/.git/index.lock': Read-only file system",
      'a write to /tmp/hydra-fixture/main/.git/index.lock',
    ],
  ])('reads a write refused by a read-only mount (%s)', (_tool, output, what) => {
    expect(details(output)).toEqual([`${what} (read-only file system)`]);
  });

  it.each([
    [
      'curl (plain HTTP: the proxy’s 403 body)',
      'Connection blocked by network allowlist',
      'a network connection',
    ],
    ['curl (HTTPS)', 'curl: (56) CONNECT tunnel failed, response 403', 'a network connection'],
    [
      'git',
      "fatal: unable to access 'https://github.com/git/git/': CONNECT tunnel failed, response 403",
      'a connection to github.com',
    ],
    [
      'Python',
      'urllib.error.URLError: <urlopen error Tunnel connection failed: 403 Forbidden>',
      'a network connection',
    ],
    ['curl -i', 'X-Proxy-Error: blocked-by-allowlist', 'a network connection'],
  ])('reads a host the proxy refused (%s)', (_tool, output, what) => {
    expect(details(output)).toEqual([`${what} (its host is not on the sandbox's network allowlist)`]);
  });

  it('reads a denied path outside the worktree or in a .git directory', () => {
    expect(details("cp: cannot create regular file '/etc/hosts': Permission denied")).toEqual([
      'access to /etc/hosts (permission denied)',
    ]);
    expect(details('cat: /root/.ssh/id_rsa: Operation not permitted')).toEqual([
      'access to /root/.ssh/id_rsa (operation not permitted)',
    ]);
    expect(details("EACCES: permission denied, open '../sibling/lib.js'")).toEqual([
      'access to ../sibling/lib.js (permission denied)',
    ]);
    expect(details('error: could not write config file .git/config: Device or resource busy')).toEqual([
      'access to .git/config (device or resource busy)',
    ]);
  });

  it('does not call a denial inside the worktree, or one naming no path, a refusal', () => {
    expect(details('/bin/bash: line 1: ./build.sh: Permission denied')).toEqual([]);
    expect(details(`${CWD}/test/fixtures/locked.txt: Permission denied`)).toEqual([]);
    expect(details("PermissionError: [Errno 13] Permission denied: 'fixtures/locked.txt'")).toEqual([]);
    expect(details('git@github.com: Permission denied (publickey).')).toEqual([]);
    expect(details('socket: Operation not permitted')).toEqual([]);
    expect(details('ok\nall 12 tests passed')).toEqual([]);
    // Without the worktree it cannot tell, so it says nothing.
    expect(withoutWorktree("cp: cannot create regular file '/etc/hosts': Permission denied")).toEqual([]);
    expect(withoutWorktree('/bin/bash: line 1: /etc/x: Read-only file system')).toHaveLength(1);
  });

  it('reports each refusal once per output, at most three and how many more', () => {
    const lines = ['a', 'b', 'c', 'd', 'e'].map((name) => `/bin/bash: /etc/${name}: Read-only file system`);
    const output = [...lines, lines[0], lines[0]].join('\n');
    expect(details(output)).toEqual([
      'a write to /etc/a (read-only file system)',
      'a write to /etc/b (read-only file system)',
      'a write to /etc/c (read-only file system)',
      '2 more in the same output',
    ]);
  });

  it('leaves the output of tools that show file contents alone', () => {
    const result = ev({ kind: 'tool_result', id: 't1', ok: true, summary: 'read', output: 'x' });
    const text = "'/etc/x': Read-only file system";
    expect(withRefusals(result, 'Read', text, CWD)).toEqual([result]);
    expect(withRefusals(result, 'read_file', text, CWD)).toEqual([result]);
    expect(withRefusals(result, 'Bash', text, CWD)).toHaveLength(2);
  });
});

const RECORDED = (['claude', 'codex', 'gemini', 'qwen', 'opencode'] as const).filter((agent) =>
  streamNames(agent).includes('sandbox-refused'),
);

describe.each(RECORDED)('%s run recorded in the OS sandbox', (agent) => {
  const fixture = loadStream(agent, 'sandbox-refused');

  it('shows the refused write and the blocked host as warnings after the tool result, not the denial inside', () => {
    const { events, final } = replay(adapterOf(agent), fixture.lines, endOf(fixture.meta), {
      cwd: CWD,
      sandboxed: true,
    });
    expect(final.kind).toBe('completed');
    // In the order the tool printed them (Qwen Code puts stdout before stderr).
    expect(refused(events).sort()).toEqual([
      "a network connection (its host is not on the sandbox's network allowlist)",
      'a write to ../outside.txt (read-only file system)',
    ]);
    const first = events.findIndex(
      (event) => event.kind === 'progress' && event.stage === SANDBOX_REFUSED_STAGE,
    );
    expect(events[first - 1]?.kind).toBe('tool_result');
  });

  it('adds no warning when the run is not sandboxed', () => {
    const { events } = replay(adapterOf(agent), fixture.lines, endOf(fixture.meta), { cwd: CWD });
    expect(refused(events)).toEqual([]);
  });

  it('was recorded in full autonomy', () => {
    expect(fixture.meta.argv?.join(' ')).toContain(FULL_AUTONOMY[agent]!.args.join(' '));
  });
});
