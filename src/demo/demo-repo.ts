/**
 * The throwaway repository `hydra demo` races in: a tiny project with one commit on `main`,
 * committed as "hydra demo" so a machine with no git identity works.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const FILES: Record<string, string> = {
  'README.md':
    '# greeter\n\nA tiny project for the hydra demo. The demo agents are asked to create hello.txt with a short greeting.\n',
  'package.json': `${JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', main: 'src/greet.js' }, null, 2)}\n`,
  'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n',
};

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'hydra demo',
  GIT_AUTHOR_EMAIL: 'demo@hydra.invalid',
  GIT_COMMITTER_NAME: 'hydra demo',
  GIT_COMMITTER_EMAIL: 'demo@hydra.invalid',
};

/** Runs git in `dir` (stdin ignored, the user's environment plus the demo identity); rejects with its stderr. */
const runGit = (dir: string, args: string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`git ${args.join(' ')} failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`),
        );
    });
  });

/** Creates `dir` as a git repository with a first commit on `main`. Returns `dir`. */
export async function createDemoRepo(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(FILES)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  const git = (args: string[]) => runGit(dir, args);
  await git(['init', '--quiet', '--initial-branch=main']);
  await git(['add', '-A']);
  await git([
    '-c',
    'commit.gpgsign=false',
    'commit',
    '--quiet',
    '--no-verify',
    '-m',
    'greeter: first commit',
  ]);
  return dir;
}

/**
 * A copy of the user's repository for `hydra demo "<prompt>"`: a clone of its committed HEAD (the
 * current branch, no hard links to its objects) at `dir`, so the race's branches and merges land in
 * the copy and the user's checkout is never touched. Returns `dir`.
 */
export async function copyUserRepo(root: string, dir: string): Promise<string> {
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(path.dirname(dir), ['clone', '--quiet', '--no-hardlinks', '--', root, dir]);
  return dir;
}
