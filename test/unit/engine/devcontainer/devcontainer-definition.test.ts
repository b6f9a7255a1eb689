/**
 * Reading a repository's dev container (no engine): which devcontainer.json, in the spec's order;
 * JSON with comments and trailing commas; the image name follows every input of the build (the
 * file, its Dockerfile, what the Dockerfile copies in, local features) and nothing else; what hydra
 * cannot build is refused, saying why.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  copiedSources,
  devcontainerImageName,
  findDevcontainer,
  parseJsonc,
  readDevcontainer,
} from '../../../../src/engine/devcontainer/index.js';

let repo: string;

beforeEach(() => {
  repo = mkdtempSync(path.join(tmpdir(), 'hydra-devcontainer-definition-'));
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

const write = (files: Record<string, string>): void => {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    writeFileSync(path.join(repo, name), content);
  }
};

const imageOf = (): string => devcontainerImageName(repo, readDevcontainer(repo));

const DOCKERFILE_DEFINITION = '{ "build": { "dockerfile": "Dockerfile", "context": ".." } }';

describe('the dev container definition', () => {
  it('is looked up in the spec’s order, and several named ones are refused', () => {
    expect(findDevcontainer(repo)).toBeNull();
    write({ '.devcontainer/python/devcontainer.json': '{"image":"a"}' });
    expect(findDevcontainer(repo)).toBe(path.join(repo, '.devcontainer/python/devcontainer.json'));
    write({ '.devcontainer.json': '{"image":"a"}' });
    expect(findDevcontainer(repo)).toBe(path.join(repo, '.devcontainer.json'));
    write({ '.devcontainer/devcontainer.json': '{"image":"a"}' });
    expect(findDevcontainer(repo)).toBe(path.join(repo, '.devcontainer/devcontainer.json'));

    rmSync(path.join(repo, '.devcontainer/devcontainer.json'));
    rmSync(path.join(repo, '.devcontainer.json'));
    write({ '.devcontainer/node/devcontainer.json': '{"image":"a"}' });
    expect(() => findDevcontainer(repo)).toThrow(
      /several dev containers \(\.devcontainer\/node\/devcontainer\.json, \.devcontainer\/python\/devcontainer\.json\)/,
    );
  });

  it('reads JSON with comments and trailing commas, leaving strings alone', () => {
    expect(
      parseJsonc('{\n  // a comment\n  "a": "// not one, }", /* another */\n  "b": [1, 2,],\n}\n'),
    ).toEqual({
      a: '// not one, }',
      b: [1, 2],
    });
  });

  it('names an image that follows the Dockerfile and the files it copies in, not the rest of the repository', () => {
    write({
      '.devcontainer/devcontainer.json': DOCKERFILE_DEFINITION,
      '.devcontainer/Dockerfile':
        'FROM base\nCOPY --chown=1:1 package.json tools/ /app/\nCOPY --from=build /out /out\n',
      'package.json': '{}',
      'tools/setup.sh': 'echo one',
      'src/index.ts': 'one',
    });
    const first = imageOf();
    expect(first).toMatch(
      /^hydra-devcontainer-hydra-devcontainer-definition-[a-z0-9]+-[0-9a-f]{8}:[0-9a-f]{12}$/,
    );

    write({ 'src/index.ts': 'two' });
    expect(imageOf()).toBe(first);
    write({ 'tools/setup.sh': 'echo two' });
    const second = imageOf();
    expect(second).not.toBe(first);
    write({ '.devcontainer/Dockerfile': 'FROM base\nCOPY package.json tools/ /app/\nRUN true\n' });
    expect(imageOf()).not.toBe(second);
  });

  it('follows a local feature’s files', () => {
    write({
      '.devcontainer/devcontainer.json': '{ "image": "base", "features": { "./tools": {} } }',
      '.devcontainer/tools/install.sh': 'echo one',
    });
    const first = imageOf();
    write({ '.devcontainer/tools/install.sh': 'echo two' });
    expect(imageOf()).not.toBe(first);
  });

  it('reads the sources of COPY and ADD, not stages, URLs or heredocs', () => {
    expect(
      copiedSources(
        [
          'FROM x AS build',
          'COPY a.txt b/ /dst/',
          'ADD ["with space.txt", "/dst/"]',
          'COPY --from=build /out /out',
          'ADD https://example.com/f.tgz /tmp/',
          'COPY src/*.ts \\',
          '  /app/',
          'COPY <<EOF /etc/x',
        ].join('\n'),
      ),
    ).toEqual(['a.txt', 'b/', 'with space.txt', 'src']);
  });

  it('refuses what hydra cannot build, saying why', () => {
    write({ '.devcontainer/devcontainer.json': '{ "dockerComposeFile": "compose.yml", "service": "app" }' });
    expect(() => readDevcontainer(repo)).toThrow(
      /Docker Compose dev container; hydra runs one container per agent/,
    );
    write({ '.devcontainer/devcontainer.json': '{ "build": { "dockerfile": "Missing" } }' });
    expect(() => readDevcontainer(repo)).toThrow(/builds from \.devcontainer\/Missing, which does not exist/);
    write({ '.devcontainer/devcontainer.json': '{ "name": "nothing" }' });
    expect(() => readDevcontainer(repo)).toThrow(/names neither an image/);
  });
});
