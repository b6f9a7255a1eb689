/**
 * Issue 22: an agent in the OS sandbox tries every escape an attacker would (write to $HOME, the
 * user's checkout, a sibling's worktree, the shared git dir's config, hooks and packed-refs, delete
 * a shared object, read ~/.ssh/id_rsa, reach a loopback server) and is refused each time, while its
 * own edit is committed and its own `git commit` (in its private repository) lands on its branch. The same agent with `mode = "off"` succeeds at each: the test can fail.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';

const SECRET = 'PRIVATE-KEY-sandbox-test-5f1c';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: Array<() => void> = [];
let home: string;
let savedHome: string | undefined;
let server: http.Server;
let hits: string[];
let port: number;
let spareObject: string;

beforeEach(async () => {
  sandbox = makeSandbox();
  unregister = [registerScriptAgent('escaper'), registerScriptAgent('honest')];
  // A fake home: its ~/.ssh holds the key the agent tries to read.
  home = mkdtempSync(path.join(os.tmpdir(), 'hydra-sandbox-home-'));
  mkdirSync(path.join(home, '.ssh'));
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${SECRET}\n`, { mode: 0o600 });
  savedHome = process.env.HOME;
  process.env.HOME = home;
  // A loose object nothing refers to: deleting it harms no race, so the unsandboxed run can too.
  spareObject = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: sandbox.repo,
    input: 'spare object\n',
    encoding: 'utf8',
  }).trim();
  hits = [];
  server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    response.end('reached\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister) undo();
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(home, { recursive: true, force: true });
  sandbox.cleanup();
});

/**
 * Each attempt records `<name>=ok` or `<name>=refused` in attempts.txt of its worktree (committed
 * with its result), so what the shared git dir looked like mid-race is known even after hydra's
 * race-end restore put it back.
 */
const escaperBody = (): string => {
  const objectPath = `objects/${spareObject.slice(0, 2)}/${spareObject.slice(2)}`;
  const attempts: Record<string, string> = {
    home: `echo escaped > "${home}/escaped.txt"`,
    checkout: `echo escaped > "${sandbox.repo}/escaped.txt"`,
    sibling: 'echo escaped > ../honest/escaped.txt',
    gitConfig: 'git config --file "$common/config" hydra.escaped yes',
    gitHook: `printf '#!/bin/sh\\nexit 0\\n' > "$common/hooks/post-checkout"`,
    packedRefs: `echo "$(git rev-parse HEAD) refs/escaped/x" >> "$common/packed-refs"`,
    sharedObject: `rm -f "$common/${objectPath}" && test ! -e "$common/${objectPath}"`,
    sshKey: `cat "${home}/.ssh/id_rsa" > leaked.txt`,
    loopbackDirect: `node -e "fetch('http://127.0.0.1:${port}/direct').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"`,
    loopbackProxied: `command -v curl >/dev/null && curl -sf -m 5 --noproxy '' http://127.0.0.1:${port}/proxied >/dev/null`,
  };
  return [
    // The repository's shared git directory (the agent's own git, sandboxed, is a private repository).
    `common="${sandbox.repo}/.git"`,
    ...Object.entries(attempts).map(
      ([name, command]) =>
        `if ( ${command} ) 2>/dev/null; then echo "${name}=ok" >> attempts.txt; else echo "${name}=refused" >> attempts.txt; fi`,
    ),
    // Its legitimate work: an edit in its own worktree, and a commit of its own with its git.
    'echo hello > hello.txt',
    `if ( echo mine > own.txt && git add own.txt && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m "${OWN_COMMIT}" ) 2>/dev/null; then echo "gitCommit=ok" >> attempts.txt; else echo "gitCommit=refused" >> attempts.txt; fi`,
  ].join('\n');
};

/** The subject of the commit the agent makes itself, in its worktree, with its own git. */
const OWN_COMMIT = 'the agent commits its own work';

const ESCAPES = [
  'home',
  'checkout',
  'sibling',
  'gitConfig',
  'gitHook',
  'packedRefs',
  'sharedObject',
  'sshKey',
  'loopbackDirect',
  'loopbackProxied',
];

const race = async (
  mode: 'auto' | 'off',
): Promise<{ summary: RaceSummary; attempts: Record<string, string> }> => {
  handle = raceScripts(
    sandbox,
    {
      escaper: escaperBody(),
      honest: 'echo honest > honest.txt; printf %s "$NODE_USE_ENV_PROXY" > node-proxy.txt',
    },
    { sandbox: { mode, allowHosts: [], allowWrite: [] }, keepWorktrees: true },
  );
  const summary = await handle.settled;
  const escaper = summary.agents.find((agent) => agent.agent === 'escaper');
  expect(escaper?.status).toBe('completed');
  const branch = escaper?.branch ?? '';
  const attempts = Object.fromEntries(
    git(sandbox.repo, 'show', `${branch}:attempts.txt`)
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
  return { summary, attempts };
};

const leaked = (summary: RaceSummary): string => {
  const branch = summary.agents.find((agent) => agent.agent === 'escaper')?.branch ?? '';
  try {
    return git(sandbox.repo, 'show', `${branch}:leaked.txt`);
  } catch {
    return '';
  }
};

describe('an agent in the sandbox', () => {
  it('is refused every escape while its own edit is committed', { timeout: 90_000 }, async () => {
    const { summary, attempts } = await race('auto');
    expect(summary.agents.map((agent) => agent.sandbox)).toEqual(['bubblewrap', 'bubblewrap']);
    // Its own work is there.
    const branch = summary.agents.find((agent) => agent.agent === 'escaper')?.branch ?? '';
    expect(git(sandbox.repo, 'show', `${branch}:hello.txt`)).toBe('hello\n');
    // Every attempt failed, as the agent saw it, while its own git commit worked...
    expect(attempts).toEqual({
      ...Object.fromEntries(ESCAPES.map((name) => [name, 'refused'])),
      gitCommit: 'ok',
    });
    // ...and that commit is on its branch, in the user's repository, with the file it committed.
    expect(git(sandbox.repo, 'log', '--format=%s', branch)).toContain(OWN_COMMIT);
    expect(git(sandbox.repo, 'show', `${branch}:own.txt`)).toBe('mine\n');
    // ...and as the disk and the server say.
    expect(existsSync(path.join(home, 'escaped.txt'))).toBe(false);
    expect(existsSync(path.join(sandbox.repo, 'escaped.txt'))).toBe(false);
    const honest = summary.agents.find((agent) => agent.agent === 'honest');
    expect(existsSync(path.join(honest?.worktree ?? '', 'escaped.txt'))).toBe(false);
    // Node 22.21+ and 24 route fetch through the sandbox's proxy when asked (Node 20's ignores it).
    expect(git(sandbox.repo, 'show', `${honest?.branch ?? ''}:node-proxy.txt`)).toBe('1');
    expect(git(sandbox.repo, 'cat-file', '-t', spareObject)).toBe('blob\n');
    expect(leaked(summary)).not.toContain(SECRET);
    expect(hits).toEqual([]);
  });

  it('succeeds at every escape with mode "off" (the test above can fail)', { timeout: 90_000 }, async () => {
    const { summary, attempts } = await race('off');
    expect(summary.agents.map((agent) => agent.sandbox)).toEqual([null, null]);
    expect(attempts).toEqual({ ...Object.fromEntries(ESCAPES.map((name) => [name, 'ok'])), gitCommit: 'ok' });
    expect(readFileSync(path.join(home, 'escaped.txt'), 'utf8')).toBe('escaped\n');
    expect(existsSync(path.join(sandbox.repo, 'escaped.txt'))).toBe(true);
    expect(leaked(summary)).toContain(SECRET);
    expect(hits.sort()).toEqual(['/direct', '/proxied']);
  });
});
