/**
 * Markers that stop a test from counting, in the lines a result added to a test file: pytest's
 * `skip`/`skipif`/`xfail` (marks and calls) and unittest's `skip*`/`expectedFailure`/`skipTest`;
 * JavaScript's `it.skip`/`test.todo`/`describe.skip`/`it.fails`/`.skipIf`, `xit`/`xdescribe`/
 * `xtest`, `.only` (the others then do not run), node:test's `{ skip }`/`{ todo }` options and
 * `t.skip()`/`t.todo()`/`this.skip()`; Go's `t.Skip*`; Rust's `#[ignore]`. A result that adds one
 * changes the tests (docs/verdict.md, "The contract"). Pure.
 */

const MARKERS: ReadonlyArray<{ file: RegExp; marker: RegExp }> = [
  {
    file: /\.py$/,
    marker:
      /(?:@pytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(|\bpytestmark\s*=|@unittest\.(?:skip\w*|expectedFailure)\b|\.skipTest\s*\()/,
  },
  {
    file: /\.[cm]?[jt]sx?$/,
    marker:
      /(?:\b(?:it|test|describe|suite|context|bench)\.(?:skip|todo|fails|only|skipIf|runIf)\b|\bx(?:it|describe|test|context)\s*\(|\b(?:skip|todo)\s*:\s*(?!false\b)|\b(?:t|this|ctx|context)\.(?:skip|todo)\s*\()/,
  },
  { file: /_test\.go$/, marker: /\bt\.Skip(?:f|Now)?\s*\(/ },
  { file: /\.rs$/, marker: /#\[\s*ignore\b/ },
];

/** The markers in the lines a result added to `file`, each as the text that holds it (trimmed, cut at 80). */
export const addedMarkers = (file: string, added: readonly string[]): string[] => {
  const rules = MARKERS.filter((rule) => rule.file.test(file));
  if (rules.length === 0) return [];
  return added
    .filter((line) => rules.some((rule) => rule.marker.test(line)))
    .map((line) => {
      const text = line.trim();
      return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
    });
};
