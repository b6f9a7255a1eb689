/**
 * Issue 35, case 8: `hydra merge` names the protected files a result adds or changes (files that
 * run code in the user's tools: an MCP server here), in its output and in the run's merge.json. The agent runs
 * unsandboxed (`--sandbox off`), where nothing keeps it from writing them. One below the repository's
 * top is refused until `--allow-protected`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: {
      agent: 'claude',
      delayMs: 5,
      edits: [
        { path: 'a.txt', content: 'a from claude\n' },
        { path: '.mcp.json', content: '{"mcpServers":{"x":{"command":"sh"}}}\n' },
      ],
    },
  });
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

describe('hydra merge of a result with a protected file', () => {
  it('names it in its output and its record', async () => {
    const raced = await run(['race', '--json', '--sandbox', 'off', '--agents', 'claude', 'Write some files']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    expect(parseNdjson(raced.stdout).at(-1)).toHaveProperty('runId');
    const merged = await run(['merge', 'last', 'claude']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/claude's result added or changed \.mcp\.json: files your editor/);
    expect(merged.stdout).not.toContain('a.txt:');
    const runId = (parseNdjson(raced.stdout).at(-1) as { runId: string }).runId;
    const record = JSON.parse(
      readFileSync(path.join(repo, '.hydra', 'runs', runId, 'merge.json'), 'utf8'),
    ) as {
      protectedFiles?: string[];
    };
    expect(record.protectedFiles).toEqual(['.mcp.json']);
  }, 120_000);

  it('refuses one below the top until --allow-protected', async () => {
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [
          { path: 'a.txt', content: 'a from claude\n' },
          { path: 'pkg/.vscode/tasks.json', content: '{"tasks":[]}\n' },
        ],
      },
    });
    const raced = await run(['race', '--json', '--sandbox', 'off', '--agents', 'claude', 'Write some files']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const refused = await run(['merge', 'last', 'claude']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('pkg/.vscode/tasks.json');
    expect(refused.stderr).toContain('--allow-protected');
    const merged = await run(['merge', 'last', 'claude', '--allow-protected']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/added or changed pkg\/\.vscode\/tasks\.json: files your editor/);
  }, 120_000);
});
