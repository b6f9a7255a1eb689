/** The diff view's colours: a content line that starts with `++` or `--` is an added or removed line, not a header. */
import { describe, expect, it } from 'vitest';
import { diffView } from '../../../../src/ui/layout/diff-lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';

const theme = createTheme({ ascii: false, color: false });

describe('the diff view', () => {
  it('colours +++/--- as a header before the first hunk and as added/removed inside it', () => {
    const text = [
      'diff --git a/count.js b/count.js',
      '--- a/count.js',
      '+++ b/count.js',
      '@@ -1 +1 @@',
      '---i;',
      '+++i;',
      '',
    ].join('\n');
    const view = diffView({ status: 'ready', text }, theme, 80);
    const tones = view.lines.map((line) => line[0]?.tone ?? null);
    expect(tones).toEqual(['accent', null, null, 'hunk', 'removed', 'added']);
  });
});
