/**
 * Issue 35, case 8: a result that adds or changes a protected file (one that runs code in the
 * user's tools: an editor's tasks, an MCP server, a slash command, `.gitmodules`, a shell's rc file)
 * is named when it is merged: in `hydra merge`'s result and record, and in the race's summary and
 * warnings after `--auto-merge`. (That a sandboxed agent cannot write them is
 * test/system/sandbox/rivals-and-protected.test.ts.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeRun } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

/** An agent (unsandboxed here) that adds an MCP server and an editor task beside its honest edit. */
const PLANTER = [
  'echo hello > hello.txt',
  `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`,
  'mkdir -p pkg/.vscode',
  `echo '{"tasks":[]}' > pkg/.vscode/tasks.json`,
].join('\n');

describe('a result with protected files', () => {
  it('is named by hydra merge, in its result and its record', async () => {
    handle = raceScript(sandbox, PLANTER);
    await handle.settled;
    await handle.finish();
    const result = await mergeRun(
      sandbox.repo,
      handle.runId,
      SCRIPT_AGENT,
      {},
      { worktreeRoot: sandbox.worktreeRoot },
    );
    expect(result.protectedFiles).toEqual(['.mcp.json', 'pkg/.vscode/tasks.json']);
    const record = JSON.parse(
      readFileSync(path.join(sandbox.repo, '.hydra', 'runs', handle.runId, 'merge.json'), 'utf8'),
    ) as { protectedFiles?: string[] };
    expect(record.protectedFiles).toEqual(['.mcp.json', 'pkg/.vscode/tasks.json']);
  });

  it('is named in the summary and the warnings of a race that merged it', async () => {
    handle = raceScript(sandbox, PLANTER, {
      autoMerge: 'best',
      checks: [{ name: 'ok', run: 'true', timeoutMs: 30_000, gate: true }],
    });
    const summary = await handle.settled;
    expect(summary.merged?.agent, summary.mergeReason).toBe(SCRIPT_AGENT);
    expect(summary.merged?.protectedFiles).toEqual(['.mcp.json', 'pkg/.vscode/tasks.json']);
    expect(handle.getSnapshot().warnings.join('\n')).toMatch(
      /added or changed \.mcp\.json, pkg\/\.vscode\/tasks\.json: files your editor/,
    );
  });

  it('an honest result is merged without a word about them', async () => {
    handle = raceScript(sandbox, 'echo hello > hello.txt');
    await handle.settled;
    await handle.finish();
    const result = await mergeRun(
      sandbox.repo,
      handle.runId,
      SCRIPT_AGENT,
      {},
      { worktreeRoot: sandbox.worktreeRoot },
    );
    expect(result.protectedFiles).toBeUndefined();
  });
});
