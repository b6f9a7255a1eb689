/**
 * A small npm project for the `[setup] share` tests: `test.js` requires `leftpad`, which only the
 * checkout's git-ignored node_modules holds (so a bare worktree fails it), plus what an agent may
 * change or delete there.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from './engine-helpers.js';

/** Writes and commits the project; node_modules is ignored and left uncommitted. */
export function makeNodeProject(repo: string): void {
  writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  writeFileSync(
    path.join(repo, 'test.js'),
    "const leftpad = require('leftpad');\nif (leftpad() !== 'ok') process.exit(1);\nconsole.log('leftpad ok');\n",
  );
  mkdirSync(path.join(repo, 'lib'));
  writeFileSync(path.join(repo, 'lib', 'index.js'), 'module.exports = 1;\n');
  const modules = path.join(repo, 'node_modules');
  mkdirSync(path.join(modules, 'leftpad'), { recursive: true });
  writeFileSync(path.join(modules, 'leftpad', 'package.json'), '{"name":"leftpad","main":"index.js"}\n');
  writeFileSync(path.join(modules, 'leftpad', 'index.js'), "module.exports = () => 'ok';\n");
  writeFileSync(path.join(modules, 'leftpad', 'extra.txt'), 'deleted by the agents\n');
  mkdirSync(path.join(modules, 'unused', 'deep'), { recursive: true });
  writeFileSync(path.join(modules, 'unused', 'deep', 'file.js'), '// removed by the agents\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'node project');
}

/** Every entry under `dir`: its kind, mode and bytes (a link's target), by relative path. */
export function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (relative: string): void => {
    const full = path.join(dir, relative);
    const stat = lstatSync(full);
    const mode = (stat.mode & 0o7777).toString(8);
    if (stat.isDirectory()) {
      state[relative || '.'] = `dir ${mode}`;
      for (const entry of readdirSync(full).sort()) walk(path.join(relative, entry));
    } else if (stat.isSymbolicLink()) state[relative] = `link ${readlinkSync(full)}`;
    else state[relative] = `file ${mode} ${readFileSync(full).toString('base64')}`;
  };
  walk('');
  return state;
}

/** A file's content on a branch. */
export const branchFile = (repo: string, branch: string, file: string): string =>
  git(repo, 'show', `${branch}:${file}`);
