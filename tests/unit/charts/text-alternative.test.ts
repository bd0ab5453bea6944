/**
 * The charts' text alternatives: the histogram and the scatter plot, rendered on the server through
 * Vite with the Svelte plugin, each say in words what they draw (count, range, mean or correlation)
 * and carry the numbers as a table with a caption; the scatter table stops at 50 points and says
 * so. In Russian the words and the number format follow the page's language.
 */
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/shared.ts';

let server: ViteDevServer;
let renderOnServer: (component: unknown, options: { props: Record<string, unknown> }) => unknown;
let setLocale: (locale: string, remember?: boolean) => Promise<void>;

async function load(path: string): Promise<Record<string, unknown>> {
  return (await server.ssrLoadModule(path)) as Record<string, unknown>;
}

async function render(path: string, props: Record<string, unknown>): Promise<string> {
  const component = (await load(path)).default;
  const rendered = renderOnServer(component, { props }) as { body: string };
  return rendered.body.replace(/<!--[^]*?-->/gu, '');
}

const ariaLabel = (html: string) => /role="img" aria-label="([^"]*)"/u.exec(html)?.[1] ?? '';
const caption = (html: string) => /<caption[^>]*>([^]*?)<\/caption>/u.exec(html)?.[1]?.trim() ?? '';
const bodyRows = (html: string) =>
  (/<tbody[^>]*>([^]*?)<\/tbody>/u.exec(html)?.[1] ?? '').match(/<tr[ >]/gu)?.length ?? 0;

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
  renderOnServer = (await load('svelte/server')).render as typeof renderOnServer;
  setLocale = (await load('/src/lib/i18n/i18n.svelte.ts')).setLocale as typeof setLocale;
}, 120_000);

afterAll(async () => {
  await setLocale?.('en', false);
  await server?.close();
});

const HISTOGRAM = '/src/components/charts/Histogram.svelte';
const SCATTER = '/src/components/charts/Scatter.svelte';

describe('chart text alternatives', () => {
  it('the histogram says how many values, their range and mean, and tables the bins', async () => {
    const values = [0.1, 0.2, 0.2, 0.4, Number.NaN];
    const html = await render(HISTOGRAM, { values, label: 'ROUGE-L', testid: 'h' });
    expect(ariaLabel(html)).toBe(
      'Distribution of ROUGE-L: 4 values from 0.100 to 0.400, mean 0.225, in 15 bins.',
    );
    expect(caption(html)).toBe('Distribution of ROUGE-L: rows per bin');
    // One row per bin, the counts adding up to the finite values.
    expect(bodyRows(html)).toBe(15);
    const counts = [...html.matchAll(/<td class="num[^"]*">([\d,]+)<\/td>/gu)].map((m) =>
      Number(m[1]!.replace(',', '')),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4);
    // Bins are half-open but for the last, which holds the greatest value.
    expect(html).toContain('0.10 to under 0.12');
    expect(html).toContain('0.38 to 0.40');
  });

  it('the scatter plot gives its points, ranges and Pearson r, and lists only the first 50', async () => {
    const points = Array.from({ length: 120 }, (_, i) => ({ x: i / 100, y: 1 - i / 100 }));
    const html = await render(SCATTER, { points, xLabel: 'BLEU', yLabel: 'Coherence' });
    expect(ariaLabel(html)).toBe(
      'Coherence against BLEU: 120 points; BLEU from 0.000 to 1.190, Coherence from -0.190 to 1.000; Pearson r = -1.00.',
    );
    expect(caption(html)).toBe(
      'Coherence against BLEU: the first 50 of 120 points, in order of BLEU',
    );
    expect(bodyRows(html)).toBe(50);
  });

  it('a scatter plot of a constant says no correlation can be computed', async () => {
    const points = [
      { x: 1, y: 2 },
      { x: 2, y: 2 },
    ];
    const html = await render(SCATTER, { points, xLabel: 'a', yLabel: 'b' });
    expect(ariaLabel(html)).toContain('no correlation can be computed');
    expect(caption(html)).toBe('b against a: all 2 points, in order of a');
  });

  it('speaks the page’s language, numbers included', async () => {
    await setLocale('ru', false);
    try {
      const html = await render(HISTOGRAM, { values: [0.1, 0.4], label: 'BLEU' });
      expect(ariaLabel(html)).toMatch(/^Распределение: BLEU\. 2 значения от 0,100 до 0,400/u);
    } finally {
      await setLocale('en', false);
    }
  });
});
