/** A shell script imported as its text (esbuild's `text` loader in scripts/build.mjs; the vitest configs load it the same way). */
declare module '*.sh' {
  const text: string;
  export default text;
}
