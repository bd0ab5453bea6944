/**
 * Coherence and the repetition card's sentence pair on the provider's embeddings: one HTTP call
 * for both, the backend named on each, and a missing key costing the pair, not the repetition
 * score.
 */
import { describe, expect, it } from 'vitest';
import { scoreOnProviderEmbeddings } from '../../../../src/lib/metrics/semantic/provider-embedding-metrics.ts';
import type { RepetitionDetails } from '../../../../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';

const SUMMARY =
  'The council approved the budget on Monday. The budget funds two new schools. ' +
  'The council approved the budget after a long debate. Work starts in May.';

/** OpenAI's embeddings reply: sentence i gets a vector that makes sentences 0 and 2 alike. */
function openAiEmbeddings(calls: string[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push(String(url));
    const { input } = JSON.parse(String(init?.body)) as { input: string[] };
    const vectors = input.map((_, i) => (i % 2 === 0 ? [1, 0.1 * i, 0] : [0, 1, 0.2 * i]));
    return new Response(
      JSON.stringify({ data: vectors.map((embedding, index) => ({ index, embedding })) }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  }) as typeof fetch;
}

async function score(apiKey: string, calls: string[]): Promise<Record<string, MetricResult>> {
  const results = await scoreOnProviderEmbeddings(
    ['coherence', 'repetition-offline'],
    { source: 'x', summary: SUMMARY },
    DEFAULT_SETTINGS,
    { kind: 'openai', model: 'gpt-4o-mini', apiKey },
    'text-embedding-3-small',
    new AbortController().signal,
    openAiEmbeddings(calls),
  );
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

describe('scoreOnProviderEmbeddings', () => {
  it('embeds the sentences once for coherence and the repetition pair', async () => {
    const calls: string[] = [];
    const results = await score('sk-test-1', calls);
    expect(calls).toEqual(['https://api.openai.com/v1/embeddings']);
    expect(results.coherence.status).toBe('ok');
    expect(results.coherence.backend).toBe('provider:openai/text-embedding-3-small');
    const repetition = results['repetition-offline'];
    expect(repetition.status).toBe('ok');
    const details = repetition.details as RepetitionDetails;
    expect(details.embeddingPair).toMatchObject({
      a: 0,
      b: 2,
      backend: 'provider:openai/text-embedding-3-small',
    });
    // "the council approved the budget" (5 words) is said again in sentence 3.
    expect(details.phrases[0].text).toBe('The council approved the budget');
  });

  it('without a key: coherence fails naming the provider, repetition still scores', async () => {
    const calls: string[] = [];
    const results = await score('', calls);
    expect(calls).toEqual([]);
    expect(results.coherence.status).toBe('error');
    expect(results.coherence.backend).toBe('provider:openai/text-embedding-3-small');
    expect(results.coherence.reason).toMatch(/there is none for openai/u);
    const repetition = results['repetition-offline'];
    expect(repetition.status).toBe('ok');
    expect((repetition.details as RepetitionDetails).embeddingPair).toBeNull();
    expect(repetition.notes?.join(' ')).toMatch(
      /No embedding pair: the embedding backend did not load/u,
    );
  });
});
