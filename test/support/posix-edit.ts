/**
 * A file edited in place by an agent's shell script, spelled so any POSIX sed runs it: GNU's
 * `sed -i` is `sed -i ''` on macOS and the BSDs (where `sed -i 's/…/'` takes the script for a
 * backup suffix), so the tests write the result beside the file and move it over.
 */
const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

export const sedInPlace = (script: string, file: string): string =>
  `sed ${quoted(script)} ${file} > ${file}.edited && mv ${file}.edited ${file}`;
