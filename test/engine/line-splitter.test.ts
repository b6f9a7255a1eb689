import { describe, expect, it } from 'vitest';
import { LineSplitter, TailBuffer } from '../../src/engine/process/line-splitter.js';

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

describe('TailBuffer', () => {
  it('keeps only the last bytes', () => {
    const tail = new TailBuffer(8);
    for (let i = 0; i < 10; i += 1) tail.push(Buffer.from(`line${i}\n`));
    expect(tail.text()).toBe('8\nline9\n');
  });
});
