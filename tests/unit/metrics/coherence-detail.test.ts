/**
 * The coherence detail view, rendered on the server through Vite's Svelte plugin: with an order
 * model it lists the per-pair probabilities with the weakest link marked, and without one it says
 * the score is the adjacent cosine.
 */
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoherenceDetails } from '../../../src/lib/metrics/semantic/coherence.ts';
import { repoRoot } from '../../helpers/shared.ts';

let server: ViteDevServer;
let render: (props: { details: CoherenceDetails }) => string;

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
  const view = (await server.ssrLoadModule('/src/components/metrics/CoherenceDetail.svelte'))
    .default;
  const { render: renderOnServer } = await server.ssrLoadModule('svelte/server');
  render = (props) => renderOnServer(view, { props }).body as string;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const sentences = ['Rain fell.', 'Rivers rose.', 'Roads closed.'].map((text, index) => ({
  index,
  text,
  start: 0,
  end: text.length,
  empty: false,
}));

const withModel: CoherenceDetails = {
  sentences,
  main: 'order-model',
  range: [0, 1],
  orderModel: 'use-lite · wasm',
  orderPairs: [
    { a: 0, b: 1, probability: 0.71 },
    { a: 1, b: 2, probability: 0.42 },
  ],
  orderMean: 0.565,
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

const text = (html: string): string =>
  html
    .replace(/<!--[^]*?-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('CoherenceDetail', () => {
  it('lists P(follows) per adjacent pair and marks the weakest one', () => {
    const html = render({ details: withModel });
    expect(text(html)).toContain(
      'mean P(next sentence follows) from the order model trained on use-lite · wasm',
    );
    expect(text(html)).toContain('n/n+1 mean cosine 0.550 · n/n+2 mean cosine 0.300');
    expect(text(html)).toMatch(/1→2 Rain fell\. Rivers rose\. 0\.710/);
    const weakest = html.match(/<tr[^>]*data-testid="coherence-weakest"[^]*?<\/tr>/)?.[0] ?? '';
    expect(text(weakest)).toMatch(/2→3 Rivers rose\. Roads closed\. least in order 0\.420/);
    expect(html.match(/coherence-weakest/g)).toHaveLength(1);
  });

  it('without an order model shows the adjacent cosines as the score', () => {
    const html = render({
      details: {
        ...withModel,
        main: 'adjacent-cosine',
        range: [-1, 1],
        orderModel: null,
        orderPairs: [],
        orderMean: null,
        weakestPair: null,
      },
    });
    expect(text(html)).toContain('No sentence-order model for this embedding');
    expect(text(html)).toMatch(/cos n vs n\+1 \(the score\)/);
    expect(text(html)).toMatch(/2→3 Rivers rose\. Roads closed\. 0\.600/);
    expect(html).not.toContain('P(follows)');
    expect(html).not.toContain('coherence-weakest');
  });
});
