/**
 * The compromise recogniser keeps the spans of the texts it parsed: scoring with the cache must
 * give exactly what scoring without it gives, and a text seen before must not be parsed again.
 */
import { describe, expect, it } from 'vitest';
import { CompromiseRecognizer } from '../../../../src/lib/metrics/semantic/compromise-ner.ts';
import { scoreEntityDensity } from '../../../../src/lib/metrics/semantic/entity-density/entity-density.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';
import { readDevRows } from '../../../../src/lib/node/validity/summeval.ts';

/** Everything but the time it took. */
function comparable(result: MetricResult): Omit<MetricResult, 'elapsedMs'> {
  const { elapsedMs: _elapsed, ...rest } = result;
  return rest;
}

// 30 summaries, each scored twice (a run scored again), plus a few texts in other scripts.
const summaries = [
  ...readDevRows()
    .slice(0, 30)
    .map((r) => r.decoded),
  'Ada Lovelace met Charles Babbage in London on 5 June 1833 and paid $2.6 million.',
  '2023年5月，北京的销售额增长了20%。',
  '',
];
const cases = [...summaries, ...summaries];

describe('compromise parse cache', () => {
  it('scores every case exactly as an uncached recogniser does', async () => {
    const cached = new CompromiseRecognizer();
    const uncached = new CompromiseRecognizer({ cacheSize: 0 });
    for (const summary of cases) {
      const withCache = await scoreEntityDensity(summary, cached);
      const without = await scoreEntityDensity(summary, uncached);
      expect(comparable(withCache)).toEqual(comparable(without));
    }
    const distinct = new Set(summaries.filter((s) => s.trim() !== '')).size;
    expect(cached.parsed).toBe(distinct);
    expect(uncached.parsed).toBe(distinct * 2);
  }, 60_000);

  it('gives each caller its own spans', async () => {
    const recognizer = new CompromiseRecognizer();
    const text = 'John Smith flew to Paris on Tuesday.';
    const first = await recognizer.recognize(text);
    first[0]!.label = 'CHANGED';
    first.pop();
    const second = await recognizer.recognize(text);
    expect(second).toEqual(await new CompromiseRecognizer({ cacheSize: 0 }).recognize(text));
    expect(recognizer.parsed).toBe(1);
  });

  it('keeps at most cacheSize texts, dropping the least recently used', async () => {
    const recognizer = new CompromiseRecognizer({ cacheSize: 2 });
    for (const text of ['Paris.', 'London.', 'Paris.', 'Rome.', 'Paris.', 'London.']) {
      await recognizer.recognize(text);
    }
    // Paris, London, (Paris hit), Rome drops London, (Paris hit), London again.
    expect(recognizer.parsed).toBe(4);
  });
});
