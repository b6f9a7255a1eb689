/**
 * The layering rules from ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm run lint`):
 * cli → ui → engine → adapters → core, nothing imports upward, nobody reaches around an entry point,
 * and there are no import cycles.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-the-floor',
      severity: 'error',
      comment:
        'src/core (the error shape, the normalized events, text helpers) is shared by every layer and imports none.',
      from: { path: '^src/core' },
      to: { path: '^src/(adapters|engine|ui|cli|demo)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide the design.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'adapters-are-the-bottom',
      severity: 'error',
      comment: 'Adapters are pure: they import nothing from the engine, the UI or the CLI.',
      from: { path: '^src/adapters' },
      to: { path: '^src/(engine|ui|cli|demo)' },
    },
    {
      name: 'engine-does-not-import-up',
      severity: 'error',
      from: { path: '^src/engine' },
      to: { path: '^src/(ui|cli|demo)' },
    },
    {
      name: 'ui-does-not-import-the-cli',
      severity: 'error',
      from: { path: '^src/ui' },
      to: { path: '^src/(cli|demo)' },
    },
    {
      name: 'engine-only-through-its-entry',
      severity: 'error',
      comment: 'The CLI, the UI and the demo import the engine only through src/engine/index.ts.',
      from: { path: '^src/(cli|ui|demo)' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index\\.ts$' },
    },
    {
      name: 'ui-only-through-its-entry',
      severity: 'error',
      comment: 'The CLI imports the dashboard only through src/ui/index.ts.',
      from: { path: '^src/(cli|demo)' },
      to: { path: '^src/ui/', pathNot: '^src/ui/index\\.ts$' },
    },
    {
      name: 'ui-entry-loads-ink-lazily',
      severity: 'error',
      comment:
        'The CLI imports src/ui/index.ts for the shared formatters too (hydra runs, hydra show, headless races): it may load the Ink components only dynamically, when the dashboard starts.',
      from: { path: '^src/ui/index\\.ts$' },
      to: { path: '^src/ui/(components|state|layout)/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'ui-text-is-pure',
      severity: 'error',
      comment:
        'src/ui/text formats for the CLI as well as the dashboard: no Ink, no React, nothing of the dashboard.',
      from: { path: '^src/ui/text/' },
      to: { path: ['node_modules/(ink|react)/', '^src/ui/(components|state|layout)/'] },
    },
    {
      name: 'engine-folders-through-their-index',
      severity: 'error',
      comment: "An engine folder imports another folder only through that folder's index.ts.",
      from: { path: '^src/engine/([^/]+)/' },
      to: { path: '^src/engine/([^/]+)/', pathNot: ['^src/engine/$1/', '^src/engine/[^/]+/index\\.ts$'] },
    },
    {
      name: 'ui-folders-through-their-index',
      severity: 'error',
      from: { path: '^src/ui/([^/]+)/' },
      to: { path: '^src/ui/([^/]+)/', pathNot: ['^src/ui/$1/', '^src/ui/[^/]+/index\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js'],
    },
  },
};
