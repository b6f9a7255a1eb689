/**
 * The layering rules from ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm run lint`):
 * cli → ui → engine → adapters → core, nothing imports upward, nobody reaches around an entry point,
 * the engine's folders import only downward (ENGINE_LAYERS), and there are no import cycles.
 */
/**
 * The engine's folders from the bottom up (ARCHITECTURE.md, "The engine's folders"): a folder
 * imports only folders of the rows below its own, never one of its own row or above. Below them
 * all, the engine's root files (agent-name.ts, agent-plan.ts, check-types.ts, probe-types.ts,
 * errors.ts, version.ts: the shapes every folder names) import no engine folder; above them all,
 * src/engine/index.ts.
 */
const ENGINE_LAYERS = [
  ['sandbox'],
  ['process'],
  ['git'],
  ['locks', 'records'],
  ['probe'],
  ['container'],
  ['devcontainer', 'setup'],
  ['checks'],
  ['judge', 'results', 'ledger'],
  ['config'],
  ['agent'],
  ['race'],
];

/** One rule per engine folder: none of its imports reaches a folder of its own row or above. */
const engineLayerRules = ENGINE_LAYERS.flatMap((row, level) =>
  row.map((folder) => ({
    name: 'engine-imports-only-downward',
    severity: 'error',
    comment: `src/engine/${folder} imports only the engine folders below its row (ENGINE_LAYERS) and the root files.`,
    from: { path: `^src/engine/${folder}/` },
    to: {
      path: `^src/engine/(${ENGINE_LAYERS.slice(level)
        .flat()
        .filter((other) => other !== folder)
        .join('|')})/`,
    },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...engineLayerRules,
    {
      name: 'engine-root-files-are-the-floor',
      severity: 'error',
      comment:
        "The engine's root files (the shapes every folder names, errors.ts, version.ts) import no engine folder; only src/engine/index.ts does.",
      from: { path: '^src/engine/[^/]+\\.ts$', pathNot: '^src/engine/index\\.ts$' },
      to: { path: '^src/engine/[^/]+/' },
    },
    {
      name: 'engine-folders-are-listed',
      severity: 'error',
      comment: 'Every engine folder has its row in ENGINE_LAYERS, so the rule above covers it.',
      from: { path: '^src/engine/' },
      to: {
        path: `^src/engine/`,
        pathNot: [`^src/engine/(${ENGINE_LAYERS.flat().join('|')})/`, '^src/engine/[^/]+$'],
      },
    },
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
