/**
 * Issue 9, case 6: what an agent (or a CLI's --version) prints never reaches the terminal as
 * control sequences: window titles, clipboard writes (OSC 52), screen clears and 8-bit C1 forms
 * are removed by the one sanitizer before headless stderr, `hydra show`, `hydra runs` and doctor
 * print; the NDJSON keeps the raw text, JSON-escaped.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../../../src/core/events.js';
import { lineText } from '../../../src/ui/layout/lines.js';
import { buildScreen } from '../../../src/ui/layout/screen.js';
import type { Screen } from '../../../src/ui/layout/screen.js';
import { initialViewState } from '../../../src/ui/state/view-state.js';
import { sanitize, terminalSafeJson } from '../../../src/ui/text/text.js';
import { createTheme } from '../../../src/ui/text/theme.js';
import { agentSnapshot, raceSnapshot } from '../../support/ui-fixtures.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
} from '../../support/fault-invariants.js';
import { claudeStreamSaying } from '../../support/security-helpers.js';

/** A title, a clipboard write, a screen clear, 8-bit CSI and OSC, a DCS string, BEL and a lone ESC. */
const HOSTILE =
  'A\u001b]0;pwned-title\u0007B\u001b]52;c;ZXZpbA==\u0007C\u001b[2JD\u009b31mE\u001bPdcs\u001b\\F\u009d8;;http://x\u009cG\u0007H\u001b';

/** Anything a terminal would act on: C0 controls but newline and tab, DEL and C1. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A TOML basic string, every control character as a \\uXXXX escape. */
const tomlString = (text: string): string =>
  JSON.stringify(text).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

const expectPrintable = (where: string, text: string): void => {
  const found = CONTROLS.exec(text);
  expect(found, `${where} has U+${(found?.[0].charCodeAt(0) ?? 0).toString(16).padStart(4, '0')}`).toBeNull();
};

describe('sanitize', () => {
  it('removes OSC (BEL or ST), CSI, 8-bit C1 forms, DCS strings, lone ESC and controls, keeping the text', () => {
    expect(sanitize(HOSTILE)).toBe('ABCDEFGH');
  });

  it.each([
    ['OSC with ESC \\', 'a\u001b]2;t\u001b\\b', 'ab'],
    ['unterminated OSC swallows the rest', 'a\u001b]0;never ends', 'a'],
    ['APC, PM and SOS strings', 'a\u001b_apc\u001b\\b\u001b^pm\u001b\\c\u001bXsos\u001b\\d', 'abcd'],
    ['8-bit DCS with 8-bit ST', 'a\u0090q#0\u009cb', 'ab'],
    ['charset and keypad escapes', 'a\u001b(Bb\u001b=c\u001bcd', 'abcd'],
    ['CR LF and lone CR become LF, tabs spaces', 'a\r\nb\rc\td', 'a\nb\nc  d'],
  ])('%s', (_name, input, expected) => {
    expect(sanitize(input)).toBe(expected);
  });

  it('leaves ordinary text, Unicode and line breaks alone', () => {
    const text = 'héllo — 世界 🎉\nnext line [1] ]0; ^_^';
    expect(sanitize(text)).toBe(text);
  });

  it('terminalSafeJson escapes DEL and C1 but keeps the same value', () => {
    const json = terminalSafeJson({ text: HOSTILE });
    expectPrintable('json', json);
    expect((JSON.parse(json) as { text: string }).text).toBe(HOSTILE);
  });
});

describe('the dashboard', () => {
  const screenLines = (screen: Screen): string[] => {
    const body = screen.body;
    const bodyLines =
      body.kind === 'panes'
        ? body.panes.flatMap((pane) => pane.lines)
        : body.kind === 'scroll'
          ? [body.title, ...body.lines]
          : body.lines;
    return [
      ...screen.header,
      ...bodyLines,
      ...screen.notices,
      ...(screen.footer === null ? [] : [screen.footer]),
    ].map(lineText);
  };

  it('draws hostile messages, tool output, errors and warnings without their escape sequences', () => {
    const events = [
      ev({ kind: 'message', role: 'assistant', text: HOSTILE }),
      ev({ kind: 'tool_call', id: 't1', name: 'Bash', summary: HOSTILE }),
      ev({ kind: 'tool_result', id: 't1', ok: false, summary: HOSTILE, output: HOSTILE }),
    ];
    const snapshot = raceSnapshot(
      [
        agentSnapshot('claude', { recentEvents: events, warnings: [HOSTILE] }),
        agentSnapshot('codex', {
          status: 'failed',
          recentEvents: events,
          error: { kind: 'SpawnFailed', message: HOSTILE, hint: HOSTILE },
        }),
      ],
      { warnings: [HOSTILE] },
    );
    for (const [focus, view] of [
      [0, 'panes'],
      [0, 'detail'],
      [1, 'detail'],
    ] as const) {
      const screen = buildScreen({
        snapshot,
        now: snapshot.now,
        columns: 100,
        rows: 40,
        theme: createTheme({ ascii: false, color: false }),
        patches: {},
        keepWorktrees: false,
        state: { ...initialViewState(), focus, view },
      });
      const text = screenLines(screen).join('\n');
      expect(text).toContain('ABCDEFGH');
      expectPrintable(`dashboard ${view} ${focus}`, text);
    }
  });
});

describe('agent output with escape sequences', () => {
  let sandbox: Sandbox;
  let repo: string;

  beforeEach(async () => {
    sandbox = createSandbox();
    repo = await createRepo(sandbox.dir);
  });

  afterEach(() => sandbox.cleanup());

  const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env });

  it('reaches no printer raw: headless stderr, show, show --json, runs; NDJSON keeps it escaped', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 2, lines: claudeStreamSaying(HOSTILE, `result ${HOSTILE}`) },
      codex: { agent: 'codex', delayMs: 2, crashAfterLines: 1, stderr: `boom ${HOSTILE}\n` },
    });
    const before = captureUserState(repo);
    const result = await run(['race', '--json', '--agents', 'claude,codex', `prompt ${HOSTILE}`]);
    expect(result.exitCode, result.stderr).toBe(0);
    expectPrintable('headless stderr', result.stderr);
    expectPrintable('headless stdout', result.stdout);
    const lines = parseNdjson(result.stdout);
    const texts = lines
      .filter((line) => line['type'] === 'agent_event')
      .map((line) => JSON.stringify((line as { event: unknown }).event));
    // The raw text is there, JSON-escaped, for programs that read the NDJSON.
    expect(texts.some((text) => text.includes('\\u001b]52;c;ZXZpbA=='))).toBe(true);
    const runId = (lines[0] as { runId: string }).runId;

    const show = await run(['show', runId]);
    expect(show.exitCode).toBe(0);
    expectPrintable('show', show.stdout);
    expect(show.stdout).toContain('ABCDEFGH');
    expect(show.stdout).toContain('boom ABCDEFGH');

    const showJson = await run(['show', '--json', runId]);
    expectPrintable('show --json', showJson.stdout);
    expect(JSON.stringify(JSON.parse(showJson.stdout))).toContain('\\u001b]0;pwned-title');

    const runs = await run(['runs']);
    expectPrintable('runs', runs.stdout);
    expect(runs.stdout).toContain('prompt ABCDEFGH');
    expectPrintable('runs --json', (await run(['runs', '--json'])).stdout);

    expectUserStateUnchanged(repo, before);
    expectNoProcessOfRun(runId);
    expectRecordsReadable(repo);
  });

  it('doctor prints a configured binary whose path carries escape sequences without them', async () => {
    const vendor = path.join(sandbox.dir, 'vendor');
    await installFakes(vendor, { claude: { agent: 'claude' } });
    // A file name may hold ESC and BEL; a config names it, doctor prints the path.
    const hostileName = path.join(sandbox.dir, 'claude\u001b]0;pwned-title\u0007\u009b2J');
    symlinkSync(path.join(vendor, 'claude'), hostileName);
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(config, `[agents.claude]\nbinary = ${tomlString(hostileName)}\n`);
    const text = await run(['doctor', '--config', config]);
    expectPrintable('doctor', text.stdout + text.stderr);
    expect(text.stdout).toContain(`binary    ${path.join(sandbox.dir, 'claude')}\n`);
    expectPrintable('doctor --json', (await run(['doctor', '--json', '--config', config])).stdout);
  });

  it('an error that quotes a hostile config value prints without its escapes', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), `[race]\ntimeout_s = ${tomlString(HOSTILE)}\n`);
    const result = await run(['race', '--json', 'x']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('timeout_s');
    expectPrintable('config error', result.stderr);
  });
});
