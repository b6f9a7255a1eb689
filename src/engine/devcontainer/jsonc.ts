/**
 * devcontainer.json is JSON with comments (`//`, `/* *\/`) and trailing commas, as the spec and the
 * reference CLI read it. This drops both outside strings and parses the rest; it throws as
 * JSON.parse does on anything else.
 */

/** The end (exclusive) of the string starting at `start` (a `"`). */
const stringEnd = (text: string, start: number): number => {
  let end = start + 1;
  while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
  return end + 1;
};

/** `text` without what `skip(at)` says to leave out (the index after it), strings kept whole. */
const scan = (text: string, skip: (at: number) => number | null): string => {
  let out = '';
  let index = 0;
  while (index < text.length) {
    if (text[index] === '"') {
      const end = stringEnd(text, index);
      out += text.slice(index, end);
      index = end;
      continue;
    }
    const after = skip(index);
    if (after !== null) {
      index = after;
      continue;
    }
    out += text[index] ?? '';
    index += 1;
  }
  return out;
};

export function parseJsonc(text: string): unknown {
  const uncommented = scan(text, (at) => {
    if (text.startsWith('//', at)) {
      const end = text.indexOf('\n', at);
      return end < 0 ? text.length : end;
    }
    if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      return end < 0 ? text.length : end + 2;
    }
    return null;
  });
  const closes = /\s*[}\]]/y;
  const bare = scan(uncommented, (at) => {
    if (uncommented[at] !== ',') return null;
    closes.lastIndex = at + 1;
    return closes.test(uncommented) ? at + 1 : null;
  });
  return JSON.parse(bare);
}
