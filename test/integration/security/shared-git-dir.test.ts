/**
 * Issue 21, case 7: the shared git directory is the user's. An agent that writes hooks, config
 * (`core.fsmonitor`, `alias.*`, `core.pager`, `include.path`, `filter.*`), `info/attributes` or
 * `info/exclude` into the repository's `.git` leaves nothing behind: all of it is put back and
 * named. hydra's own git runs none of it while the race runs (a clean filter the agent defined does
 * not run as hydra, outside the agent's containment), a merge does not run an agent-set
 * `gpg.program`, and one agent's `*` in `info/exclude` does not hide another agent's new files.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureExcluded } from '../../../src/engine/git/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { SCRIPT_AGENT, raceScript, raceScripts, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
let marker: string;
let gitDir: string;

/** The files of the shared git dir the attack writes to, as the user had them. */
const settings = (): Record<string, string | null> => {
  const read = (rel: string): string | null => {
    const file = path.join(gitDir, rel);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  };
  return {
    config: read('config'),
    'info/exclude': read('info/exclude'),
    'info/attributes': read('info/attributes'),
    'hooks/pre-commit': read('hooks/pre-commit'),
    'hooks/reference-transaction': read('hooks/reference-transaction'),
  };
};

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  marker = path.join(sandbox.dir, 'ran.log');
  gitDir = path.join(sandbox.repo, '.git');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

/** A program that logs its name to the marker file (and passes its input through, as a filter). */
const logger = (name: string): string => {
  const file = path.join(sandbox.dir, `${name}.sh`);
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${marker}'\ncat\n`, { mode: 0o755 });
  return file;
};
const ran = (): string[] =>
  existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

const GIT_COMMON = 'common=$(git rev-parse --path-format=absolute --git-common-dir)';

describe('the shared git directory after a race', () => {
  it('hooks, fsmonitor, alias, pager, include, filters, attributes and excludes are put back and named', async () => {
    // hydra's own exclusion lines go in before the race's copy, as in any race.
    await ensureExcluded(sandbox.repo);
    const before = settings();
    const include = path.join(sandbox.dir, 'evil.gitconfig');
    writeFileSync(include, `[core]\n\tpager = ${logger('included-pager')}\n`);
    handle = raceScript(
      sandbox,
      [
        GIT_COMMON,
        `printf '#!/bin/sh\\necho hook >> ${marker}\\n' > "$common/hooks/pre-commit"`,
        'chmod +x "$common/hooks/pre-commit"',
        `printf '#!/bin/sh\\necho ref-hook >> ${marker}\\n' > "$common/hooks/reference-transaction"`,
        'chmod +x "$common/hooks/reference-transaction"',
        `git config core.fsmonitor ${logger('fsmonitor')}`,
        `git config alias.st '!${logger('alias')}'`,
        `git config core.pager ${logger('pager')}`,
        `git config include.path ${include}`,
        `git config filter.evil.clean ${logger('clean')}`,
        'echo "* filter=evil" > "$common/info/attributes"',
        'echo "*" >> "$common/info/exclude"',
        'echo agent > agent.txt',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const warning = handle.getSnapshot().agents[0]!.warnings.join('\n');
    expect(warning).toMatch(/shared git settings .* were changed during the race/);
    expect(warning).toMatch(
      /config \(.*alias\.st.*core\.fsmonitor.*core\.pager.*filter\.evil\.clean.*include\.path.*\)/,
    );
    expect(warning).toMatch(/hooks\/pre-commit \(added\)/);
    expect(warning).toMatch(/info\/attributes \(added\)/);
    expect(warning).toMatch(/info\/exclude \(changed\)/);
    // hydra's own git ran none of it: no hook on its commit or ref updates, no fsmonitor, no filter.
    expect(ran()).toEqual([]);
    // The agent's file is its result, whatever the exclude said.
    expect(git(sandbox.repo, 'show', `hydra/${handle.runId}/${SCRIPT_AGENT}:agent.txt`)).toBe('agent\n');
    await handle.finish();
    expect(settings()).toEqual(before);
    // The user's own git commands run none of it either.
    writeFileSync(path.join(sandbox.repo, 'mine.txt'), 'mine\n');
    git(sandbox.repo, 'status');
    git(sandbox.repo, 'add', 'mine.txt');
    git(sandbox.repo, 'commit', '-q', '-m', 'mine');
    expect(ran()).toEqual([]);
  });

  it('a large hook of the user is put back byte for byte, and a large one the agent added is removed', async () => {
    // Larger than the files hydra reads in one synchronous call (git-dir.ts READ_AT_ONCE_BYTES).
    const big = `#!/bin/sh\n${"# the user's own hook, padded\n".repeat(20_000)}exit 0\n`;
    writeFileSync(path.join(gitDir, 'hooks', 'pre-push'), big, { mode: 0o755 });
    handle = raceScript(
      sandbox,
      [
        GIT_COMMON,
        'printf "echo hook >> /dev/null\n" >> "$common/hooks/pre-push"',
        'head -c 400000 /dev/zero | tr "\\0" "#" > "$common/hooks/post-checkout"',
        'echo agent > agent.txt',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const warning = handle.getSnapshot().agents[0]!.warnings.join('\n');
    expect(warning).toMatch(/hooks\/pre-push \(changed\)/);
    expect(warning).toMatch(/hooks\/post-checkout \(added\)/);
    await handle.finish();
    expect(readFileSync(path.join(gitDir, 'hooks', 'pre-push'), 'utf8')).toBe(big);
    expect(existsSync(path.join(gitDir, 'hooks', 'post-checkout'))).toBe(false);
  });

  it("a clean filter the agent defined does not run when hydra stages the agent's work", async () => {
    handle = raceScript(
      sandbox,
      [
        `git config filter.evil.clean ${logger('clean')}`,
        'git config filter.evil.required true',
        'echo "*.txt filter=evil" > .gitattributes',
        'echo secret > data.txt',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(ran()).toEqual([]);
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    expect(git(sandbox.repo, 'show', `${branch}:data.txt`)).toBe('secret\n');
    await handle.finish();
    expect(readFileSync(path.join(gitDir, 'config'), 'utf8')).not.toContain('evil');
  });

  it('a merge runs no gpg.program the agent set', async () => {
    handle = raceScript(
      sandbox,
      [
        'git config commit.gpgsign true',
        `git config gpg.program ${logger('gpg')}`,
        'echo work > work.txt',
      ].join('\n'),
    );
    await handle.settled;
    const result = await handle.merge(SCRIPT_AGENT);
    expect(ran()).toEqual([]);
    expect(git(sandbox.repo, 'cat-file', 'commit', result.commit)).not.toContain('gpgsig');
    expect(git(sandbox.repo, 'show', 'main:work.txt')).toBe('work\n');
  });

  it("one agent's * in info/exclude does not hide another agent's new files", async () => {
    const unregisterSecond = registerScriptAgent('honest');
    try {
      const ready = path.join(sandbox.dir, 'exclude-written');
      handle = raceScripts(sandbox, {
        // Writes the exclude, then keeps running while the honest agent settles.
        [SCRIPT_AGENT]: `${GIT_COMMON}\necho "*" >> "$common/info/exclude"\ntouch ${ready}\nsleep 4`,
        honest: `while [ ! -e ${ready} ]; do sleep 0.05; done\necho "new work" > new.txt\nmkdir -p lib && echo "x" > lib/x.js`,
      });
      const summary = await handle.settled;
      const honest = summary.agents.find((agent) => agent.agent === 'honest');
      expect(honest?.status).toBe('completed');
      expect(honest?.diff?.filesChanged).toBe(2);
      const files = git(sandbox.repo, 'ls-tree', '-r', '--name-only', `hydra/${handle.runId}/honest`)
        .trim()
        .split('\n');
      expect(files).toEqual(expect.arrayContaining(['new.txt', 'lib/x.js']));
      await handle.finish();
      expect(readFileSync(path.join(gitDir, 'info', 'exclude'), 'utf8')).not.toMatch(/^\*$/m);
    } finally {
      unregisterSecond();
    }
  });
});

describe("the user's gitignore still holds", () => {
  it('a file the user ignores in .gitignore is not committed when another agent changed info/exclude', async () => {
    writeFileSync(path.join(sandbox.repo, '.gitignore'), '*.log\n');
    git(sandbox.repo, 'add', '.gitignore');
    git(sandbox.repo, 'commit', '-q', '-m', 'ignore logs');
    handle = raceScript(
      sandbox,
      `${GIT_COMMON}\necho "*" >> "$common/info/exclude"\necho debug > debug.log\necho kept > kept.txt`,
    );
    await handle.settled;
    const files = execFileSync(
      'git',
      ['ls-tree', '-r', '--name-only', `hydra/${handle.runId}/${SCRIPT_AGENT}`],
      { cwd: sandbox.repo, encoding: 'utf8' },
    );
    expect(files).toContain('kept.txt');
    expect(files).not.toContain('debug.log');
  });
});
