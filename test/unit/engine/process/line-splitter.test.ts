import { describe, expect, it } from 'vitest';
import { LineSplitter, TailBuffer } from '../../../../src/engine/process/line-splitter.js';

const collect = (maxBytes?: number) => {
  const lines: string[] = [];
  const oversize: Array<{ bytes: number; head: string }> = [];
  const splitter = new LineSplitter(
    { line: (text) => lines.push(text), oversize: (bytes, head) => oversize.push({ bytes, head }) },
    maxBytes,
  );
  return { splitter, lines, oversize };
};

describe('LineSplitter', () => {
  it('splits on newlines across chunk boundaries and drops a CR before LF', () => {
    const { splitter, lines } = collect();
    splitter.push(Buffer.from('{"a":1}\r\n{"b"'));
    splitter.push(Buffer.from(':2}\n\n{"c":3}'));
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}']);
  });

  it('decodes invalid UTF-8 with replacement characters and keeps multi-byte characters split across chunks', () => {
    const { splitter, lines } = collect();
    const snowman = Buffer.from('☃');
    splitter.push(Buffer.concat([Buffer.from('a'), snowman.subarray(0, 1)]));
    splitter.push(Buffer.concat([snowman.subarray(1), Buffer.from([0xff, 0x0a])]));
    expect(lines).toEqual(['a☃\uFFFD']);
  });

  it('reports a line over the cap once, with its size, and goes on with the next line', () => {
    const { splitter, lines, oversize } = collect(10);
    splitter.push(Buffer.from('short\n0123456789'));
    splitter.push(Buffer.from('abcdef'));
    splitter.push(Buffer.from('ghij\nnext\n'));
    expect(lines).toEqual(['short', 'next']);
    expect(oversize).toEqual([{ bytes: 20, head: '0123456789abcdef' }]);
  });
});

/** What the splitter must report for `bytes`, line by line, whatever the chunks. */
const expectedLines = (bytes: Buffer, maxBytes: number) => {
  const lines: string[] = [];
  const oversize: Array<{ bytes: number; head: string }> = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const line = bytes.subarray(start, newline === -1 ? bytes.length : newline);
    if (line.length > maxBytes)
      oversize.push({ bytes: line.length, head: line.subarray(0, 200).toString('utf8') });
    else lines.push(line.toString('utf8').replace(/\r$/, ''));
    if (newline === -1) break;
    start = newline + 1;
  }
  return { lines, oversize };
};

describe('LineSplitter on any chunking', () => {
  it('reports the same lines as splitting the whole stream at once', () => {
    let seed = 12345;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const pieces = ['{"a":1}', 'plain', '☃ snow', '\r', '', 'x'.repeat(250), 'é'.repeat(200), '\ud83d\ude00'];
    for (let round = 0; round < 200; round += 1) {
      const parts: Buffer[] = [];
      for (let line = random(12); line >= 0; line -= 1) {
        for (let piece = random(4); piece >= 0; piece -= 1)
          parts.push(Buffer.from(pieces[random(pieces.length)]!));
        if (random(10) === 0) parts.push(Buffer.from([0xff, 0xe2, 0x98]));
        parts.push(Buffer.from(random(5) === 0 ? '\r\n' : '\n'));
      }
      if (random(2) === 0) parts.pop();
      const stream = Buffer.concat(parts);
      const { splitter, lines, oversize } = collect(300);

      for (let at = 0; at < stream.length;) {
        const size = 1 + random(random(3) === 0 ? 900 : 40);
        splitter.push(stream.subarray(at, at + size));
        at += size;
      }
      splitter.end();

      expect({ lines, oversize }, `round ${round}`).toEqual(expectedLines(stream, 300));
    }
  });
});

describe('TailBuffer', () => {
  it('keeps only the last bytes', () => {
    const tail = new TailBuffer(8);
    for (let i = 0; i < 10; i += 1) tail.push(Buffer.from(`line${i}\n`));
    expect(tail.text()).toBe('8\nline9\n');
  });
});
