/**
 * Every metric has an info record and a detail view: its own (`<id>.detail.svelte` beside its
 * record) where its record asks for one, the generic one otherwise. This checks the views the app
 * really loads (src/components/metrics/detail-views.ts globs them), through Vite with the Svelte
 * plugin (the unit config has none), and renders views on the server to see that they show what
 * the audit and the e2e tests rely on.
 */
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_IDS, metricInfo, metricRecord } from '../../../src/lib/metrics/registry.ts';
import type { CoherenceDetails } from '../../../src/lib/metrics/semantic/coherence/coherence.ts';
import type { AlignmentDetails } from '../../../src/lib/metrics/judge/summarization/alignment.ts';
import type { RedundancyDetails } from '../../../src/lib/metrics/semantic/redundancy/redundancy.ts';
import type { SourceOrderDetails } from '../../../src/lib/metrics/semantic/source-order/source-order.ts';
import type { SupportDetails } from '../../../src/lib/metrics/semantic/support/support.ts';
import { genericFields } from '../../../src/components/metrics/generic-fields.ts';
import { scoreExtractiveness } from '../../../src/lib/metrics/lexical/extractiveness/extractiveness.ts';
import { scoreQuality } from '../../../src/lib/metrics/lexical/quality-offline/quality.ts';
import { scoreSourceCoverage } from '../../../src/lib/metrics/lexical/source-coverage/source-coverage.ts';
import { repoRoot } from '../../helpers/shared.ts';
import { scored } from './scored.ts';

/** A property of a loaded value, read after checking that there is an object (Vite types modules
 * as `any`). */
function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) throw new Error(`no object to read ${key} of`);
  return Reflect.get(value, key);
}

/** A loaded table, checked to be an object. */
function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new Error(`${what} is not an object`);
  return Object.fromEntries(Object.entries(value));
}

/** A loaded module's export, checked to be a function. */
function callable(value: unknown, what: string): (...args: unknown[]) => unknown {
  if (typeof value !== 'function') throw new Error(`${what} is not a function`);
  return (...args) => Reflect.apply(value, undefined, args);
}

let server: ViteDevServer;
let ownViews: Record<string, unknown>;
let viewFiles: unknown;
let detailViewOf: (id: string) => unknown;
let genericView: unknown;
let renderOnServer: (...args: unknown[]) => unknown;

async function load(path: string): Promise<Record<string, unknown>> {
  return record(await server.ssrLoadModule(path), path);
}

async function render(path: string, props: Record<string, unknown>): Promise<string> {
  const component = (await load(path)).default;
  const body = field(renderOnServer(component, { props }), 'body');
  if (typeof body !== 'string') throw new Error('render() gave no body');
  return body;
}

beforeAll(async () => {
  server = await createServer({
    configFile: false,
    root: repoRoot,
    logLevel: 'error',
    plugins: [svelte()],
    optimizeDeps: { noDiscovery: true, include: [] },
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  });
  const views = await load('/src/components/metrics/detail-views.ts');
  ownViews = record(views.OWN_DETAIL_VIEWS, 'OWN_DETAIL_VIEWS');
  viewFiles = views.OWN_DETAIL_VIEW_FILES;
  detailViewOf = callable(views.detailViewOf, 'detailViewOf');
  genericView = (await load('/src/components/metrics/GenericDetail.svelte')).default;
  renderOnServer = callable((await load('svelte/server')).render, 'render');
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('detail views', () => {
  it('every metric id has an info record and a view: its own as its record says, else the generic one', () => {
    expect(genericView).toBeTypeOf('function');
    for (const id of METRIC_IDS) {
      expect(metricInfo(id).label, id).toBeTruthy();
      const kind = metricRecord(id).detailView;
      expect(Object.hasOwn(ownViews, id), id).toBe(kind === 'own');
      const view = detailViewOf(id);
      expect(view, id).toBeTypeOf('function');
      if (kind === 'own') expect(view, id).toBe(ownViews[id]);
      else if (kind === 'generic') expect(view, id).toBe(genericView);
      else {
        expect(metricRecord(kind.sameAs).detailView, `${id} shares ${kind.sameAs}'s view`).toBe(
          'own',
        );
        expect(view, id).toBe(ownViews[kind.sameAs]);
      }
    }
  });

  it('finds each own view as <metric-id>.detail.svelte in the metric folders, one per id', () => {
    expect(Array.isArray(viewFiles)).toBe(true);
    const files = (viewFiles as string[]).map((path) =>
      path.replace(/^.*\/src\/lib\/metrics\//u, ''),
    );
    const ids = files.map((path) => path.replace(/^.*\//u, '').replace(/\.detail\.svelte$/u, ''));
    expect(files).toContain('lexical/fact-check/fact-check.detail.svelte');
    expect(new Set(ids).size, 'two view files for one id').toBe(ids.length);
    const own = METRIC_IDS.filter((id) => metricRecord(id).detailView === 'own');
    // Every file names a metric whose record asks for its own view (the rest of `own` are the
    // judge views that have not moved yet).
    expect(ids.filter((id) => !own.includes(id as never))).toEqual([]);
  });

  it('lists no view for an id the registry does not know', () => {
    const known = new Set<string>(METRIC_IDS);
    expect(Object.keys(ownViews).filter((id) => !known.has(id))).toEqual([]);
  });

  it('falls back to the generic view for any id without an entry, prototype names included', () => {
    expect(detailViewOf('no-such-metric')).toBe(genericView);
    expect(detailViewOf('constructor')).toBe(genericView);
  });

  it('the generic view shows plain fields as text', async () => {
    const html = await render('/src/components/metrics/GenericDetail.svelte', {
      details: { wordCount: 42, note: '<b>not markup</b>', nested: { a: 1 } },
    });
    expect(html).toContain('data-testid="generic-detail"');
    expect(html).toContain('word count');
    expect(html).toContain('42');
    expect(html).toContain('&lt;b>not markup&lt;/b>');
    expect(html).not.toContain('nested');
  });

  it('a judge view shows the context cut, its claims and the calls, in that order', async () => {
    const details: AlignmentDetails = {
      claims: [
        {
          index: 1,
          claim: 'The bridge closed.',
          verdict: 'supported',
          reason: 'The source says so.',
          quote: 'closed',
          sourceSpan: { start: 0, end: 6 },
        },
      ],
      counts: { supported: 1, contradicted: 0, unsupported: 0 },
      unsupportedCountsAgainst: true,
      context: { cut: true, removedChars: 1200, originalChars: 5000, budgetTokens: 900 },
      audit: {
        calls: [
          {
            round: 1,
            purpose: 'alignment: claims',
            messages: [{ role: 'user', content: 'List the claims.' }],
            responses: ['["The bridge closed."]'],
            usage: { input: 10, output: 5 },
            fromCache: false,
            httpCalls: 1,
            elapsedMs: 3,
          },
        ],
      },
    };
    const html = await render('/src/lib/metrics/judge/summarization/alignment.detail.svelte', {
      details,
      summary: 'The bridge closed.',
      source: 'closed on Monday.',
    });
    const cut = html.indexOf('data-testid="context-cut"');
    const claims = html.indexOf('data-testid="claim-list"');
    const calls = html.indexOf('Calls (1): prompts and replies');
    expect(cut).toBeGreaterThan(-1);
    expect(claims).toBeGreaterThan(cut);
    expect(calls).toBeGreaterThan(claims);
    expect(html).toContain('1,200 of');
    expect(html).toContain('data-verdict="supported"');
    expect(html).toContain('List the claims.');
  });
});

describe('the source-based lexical views', () => {
  const source = 'The cat sat on the mat. It was happy all day long. Then it slept.';

  it('extractiveness marks the verbatim sentence and shades fragments by their length', async () => {
    const summary = 'The cat sat on the mat. Later it was happy all day.';
    const html = await render(
      '/src/lib/metrics/lexical/extractiveness/extractiveness.detail.svelte',
      {
        details: scored(scoreExtractiveness(source, summary)).details,
        summary,
      },
    );
    expect(html).toContain('data-label="sentence copied whole"');
    expect(html).toContain('data-label="copied, 5 words"');
    expect(html).toContain('not how good it');
  });

  it('source coverage shows covered and missed salient words as chips', async () => {
    const html = await render(
      '/src/lib/metrics/lexical/source-coverage/source-coverage.detail.svelte',
      {
        details: scored(scoreSourceCoverage(source, 'A cat slept on a mat.')).details,
      },
    );
    expect(html).toMatch(/data-covered="true"[^>]*>✓\s+cat/u);
    expect(html).toMatch(/data-covered="false"[^>]*>✗\s+happy/u);
  });

  it('the quality view shows each estimate, its contributions, the flags and the caveat', async () => {
    const html = await render(
      '/src/lib/metrics/lexical/quality-offline/quality-offline.detail.svelte',
      {
        details: scored(scoreQuality(source, 'The cat sat on the mat')).details,
      },
    );
    expect(html).toContain('data-dimension="faithfulness"');
    expect(html).toContain('data-dimension="coverage"');
    expect(html).toContain('data-dimension="coherence"');
    expect(html).toContain('data-feature="repeat-share"');
    expect(html).toContain('data-flag="lead-copy"');
    expect(html).toContain('data-flag="no-final-punctuation"');
    expect(html).toContain('data-testid="quality-capped"');
    expect(html).toContain('data-testid="quality-held-out"');
    expect(html).toContain('not an absolute grade');
    expect(html).toContain('No ingredient rewards copying as such');
  });
});

describe('the encoder alignment views', () => {
  const source = 'Alpha one. Beta two. Gamma three.';
  const summary = 'Gamma again. Alpha again.';
  const sentences = [
    { index: 0, text: 'Gamma again.', start: 0, end: 12 },
    { index: 1, text: 'Alpha again.', start: 13, end: 25 },
  ];
  const gamma = { index: 2, text: 'Gamma three.', start: 21, end: 33, similarity: 0.9 };
  const alpha = { index: 0, text: 'Alpha one.', start: 0, end: 10, similarity: 0.4 };

  it('source order lists each summary sentence as a button, the reversed ones marked', async () => {
    const details: SourceOrderDetails = {
      sentences: [
        { ...sentences[0], match: gamma },
        { ...sentences[1], match: alpha },
      ],
      tau: -1,
      outOfOrder: [{ a: 0, b: 1 }],
      tiedPairs: 0,
      sourceSentences: 3,
      sourceTruncated: false,
      backend: 'b',
    };
    const html = await render('/src/lib/metrics/semantic/source-order/source-order.detail.svelte', {
      details,
      summary,
      source,
    });
    expect(html.match(/<button type="button" aria-pressed="false"/gu)).toHaveLength(2);
    expect(html).toContain('→ source 3 · cos 0.90');
    expect(html.match(/out of order<\/span>/gu)).toHaveLength(2);
    expect(html).toContain('1 before 2');
  });

  it('support marks the sentence with no close source sentence as a risk, never as false', async () => {
    const details: SupportDetails = {
      sentences: [
        { ...sentences[0], match: gamma, unsupportedRisk: false },
        { ...sentences[1], match: alpha, unsupportedRisk: true },
      ],
      threshold: { threshold: 0.5, percentile: 10 },
      flagged: 1,
      sourceSentences: 3,
      sourceTruncated: false,
      backend: 'b',
    };
    const html = await render('/src/lib/metrics/semantic/support/support.detail.svelte', {
      details,
      summary,
      source,
    });
    expect(html).toContain('data-risk="true"');
    expect(html).toContain('<mark title="no close source sentence"');
    expect(html).toContain('>Alpha again.</mark>');
    expect(html).not.toMatch(/hallucinat/iu);
  });

  it('redundancy highlights the most alike pair in the summary', async () => {
    const details: RedundancyDetails = {
      sentences: sentences.map((s) => ({ ...s, empty: false })),
      pairs: [{ a: 0, b: 1, similarity: 0.95, likelyRepeat: true }],
      pairsCompared: 1,
      likelyRepeats: 1,
      threshold: { threshold: 0.9, percentile: 99 },
      backend: 'b',
    };
    const html = await render('/src/lib/metrics/semantic/redundancy/redundancy.detail.svelte', {
      details,
      summary,
      source,
    });
    expect(html.match(/<mark /gu)).toHaveLength(2);
    expect(html).toContain('data-repeat="true"');
    expect(html).toContain('likely said twice');
  });
});

const COHERENCE_VIEW = '/src/lib/metrics/semantic/coherence/coherence.detail.svelte';

const coherenceSentences = ['Rain fell.', 'Rivers rose.', 'Roads closed.'].map((text, index) => ({
  index,
  text,
  start: 0,
  end: text.length,
  empty: false,
}));

const withModel: CoherenceDetails = {
  sentences: coherenceSentences,
  main: 'order-model',
  range: [0, 1],
  orderModel: 'use-lite · wasm',
  orderPairs: [
    { a: 0, b: 1, probability: 0.71 },
    { a: 1, b: 2, probability: 0.42 },
  ],
  orderMean: 0.565,
  positions: [0.1, 0.4, 0.9],
  positionAgreement: 0.99,
  positionAlpha: 0.1,
  orderScore: 0.635,
  weakestPair: 1,
  pairs: [{ a: 0, b: 2, similarity: 0.3 }],
  n2Mean: 0.3,
  adjacentPairs: [
    { a: 0, b: 1, similarity: 0.5 },
    { a: 1, b: 2, similarity: 0.6 },
  ],
  adjacentMean: 0.55,
  skippedPairs: 0,
  backend: 'use-lite · wasm',
};

const textOf = (html: string): string =>
  html
    .replace(/<!--[^]*?-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('the coherence view', () => {
  it('lists P(follows) per adjacent pair and marks the weakest one', async () => {
    const html = await render(COHERENCE_VIEW, { details: withModel });
    expect(textOf(html)).toContain(
      'Score 0.635: mean P(next sentence follows) 0.565 from the order model trained on use-lite · wasm , mixed with weight 0.1',
    );
    expect(textOf(html)).toContain('r = 0.99');
    expect(textOf(html)).toContain('n/n+1 mean cosine 0.550 · n/n+2 mean cosine 0.300');
    expect(textOf(html)).toMatch(/1→2 Rain fell\. Rivers rose\. 0\.710/);
    const weakest = html.match(/<tr[^>]*data-testid="coherence-weakest"[^]*?<\/tr>/)?.[0] ?? '';
    expect(textOf(weakest)).toMatch(/2→3 Rivers rose\. Roads closed\. least in order 0\.420/);
    expect(html.match(/coherence-weakest/g)).toHaveLength(1);
  });

  it('without an order model shows the adjacent cosines as the score', async () => {
    const html = await render(COHERENCE_VIEW, {
      details: {
        ...withModel,
        main: 'adjacent-cosine',
        range: [-1, 1],
        orderModel: null,
        orderPairs: [],
        orderMean: null,
        positions: [],
        positionAgreement: null,
        positionAlpha: null,
        orderScore: null,
        weakestPair: null,
      },
    });
    expect(textOf(html)).toContain('No sentence-order model for this embedding');
    expect(textOf(html)).toMatch(/cos n vs n\+1 \(the score\)/);
    expect(textOf(html)).toMatch(/2→3 Rivers rose\. Roads closed\. 0\.600/);
    expect(html).not.toContain('P(follows)');
    expect(html).not.toContain('coherence-weakest');
  });
});

describe('genericFields', () => {
  it('turns plain fields into lines and leaves nested objects out', () => {
    expect(
      genericFields({ wordCount: 3, ratio: 0.123456, ok: false, none: null, list: [1, 2], o: {} }),
    ).toEqual([
      { label: 'word count', value: '3' },
      { label: 'ratio', value: '0.123' },
      { label: 'ok', value: 'no', valueRef: { key: 'details.generic.no' } },
      { label: 'none', value: '—' },
      {
        label: 'list',
        value: '2 items',
        valueRef: { key: 'details.generic.items', values: { count: 2 } },
      },
    ]);
    expect(genericFields(null)).toEqual([]);
    expect(genericFields([1, 2])).toEqual([]);
  });
});
