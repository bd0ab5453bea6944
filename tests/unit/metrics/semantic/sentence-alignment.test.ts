import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import { scoreSourceOrder } from '../../../../src/lib/metrics/semantic/source-order/source-order.ts';
import { scoreSupport } from '../../../../src/lib/metrics/semantic/support/support.ts';
import {
  caseSentences,
  ENCODER_THRESHOLDS,
  SOURCE_SENTENCE_CAP,
  thresholdsFor,
} from '../../../../src/lib/metrics/semantic/sentence-alignment.ts';
import { firstSentences, SOURCE_WINDOW } from '../../../../src/lib/metrics/text/source-prefix.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';
import { ensureEmbeddingAsset } from '../../../../src/lib/node/embedding-asset.ts';
import { loadGloveEmbedder } from '../../../../src/lib/node/load-glove.ts';
import { readDevRows } from '../../../../src/lib/node/validity/summeval.ts';
import { splitSentences } from '../../../../src/lib/metrics/text/tokenize.ts';
import { scored, scoredAs } from '../scored.ts';
import {
  DESIGNED_THRESHOLDS,
  DesignedEmbedder,
  SOURCE,
  SOURCE_VECTORS,
} from './alignment-fakes.ts';

describe('one embedding of the case for every alignment metric', () => {
  it('embeds the summary once and the source once for coherence, order, support, redundancy', async () => {
    const embedder = new DesignedEmbedder({
      ...SOURCE_VECTORS,
      'Sa.': [1, 0, 0, 0],
      'Sb.': [0, 3, 4, 0],
      'Sc.': [0, 0, 0, 2],
    });
    const results: MetricResult[] = [];
    await computeMetrics(
      ['coherence', 'source-order', 'support', 'redundancy', 'repetition-offline'],
      { source: SOURCE, summary: 'Sa. Sb. Sc.' },
      DEFAULT_SETTINGS,
      { embedder: async () => embedder },
      (r) => results.push(r),
    );
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['coherence', 'ok'],
      ['source-order', 'ok'],
      ['support', 'ok'],
      ['redundancy', 'ok'],
      ['repetition-offline', 'ok'],
    ]);
    expect(embedder.calls).toEqual([
      ['Sa.', 'Sb.', 'Sc.'],
      ['Alpha one.', 'Beta two.', 'Gamma three.', 'Delta four.'],
    ]);
  });
});

describe('caseSentences', () => {
  it(`embeds the first ${SOURCE_SENTENCE_CAP} source sentences and says so`, async () => {
    const sentences = Array.from({ length: SOURCE_SENTENCE_CAP + 2 }, (_, i) => `Line ${i}.`);
    const source = sentences.join(' ');
    const split = caseSentences({ source, summary: 'Line 0. Line 5.' });
    expect(split.source.truncated).toBe(true);
    expect(split.source.sentences).toHaveLength(SOURCE_SENTENCE_CAP);
    expect(split.source.sentences.at(-1)?.text).toBe(`Line ${SOURCE_SENTENCE_CAP - 1}.`);
    // Each line on its own axis, so summary "Line k." aligns to source line k exactly.
    const vectors = Object.fromEntries(
      sentences.map((s, i) => [s, Array.from({ length: sentences.length }, (_, j) => +(i === j))]),
    );
    const r = scored(
      await scoreSourceOrder({ source, summary: 'Line 0. Line 5.' }, new DesignedEmbedder(vectors)),
    );
    expect(r.details).toMatchObject({ sourceSentences: 400, sourceTruncated: true });
    expect(r.notes).toEqual([
      'Only the first 400 sentences of the source were embedded and compared.',
    ]);
    const support = scored(
      await scoreSupport({ source, summary: 'Line 0. Line 5.' }, new DesignedEmbedder(vectors)),
    );
    expect(support.details).toMatchObject({ sourceSentences: 400, sourceTruncated: true });
    expect(support.notes).toEqual([
      'No support threshold is calibrated for designed-test: no sentence is flagged.',
      'Only the first 400 sentences of the source were embedded and compared.',
    ]);
  });
});

describe('firstSentences (the source split window by window)', () => {
  // Real news text, long enough for several windows: cut at line breaks, or (joined by spaces)
  // at sentence ends, where "Mr." and lower-case continuations must not become boundaries.
  const articles = readDevRows(20)
    .filter((r, i, all) => all.findIndex((o) => o.id === r.id) === i)
    .map((r) => r.text);

  it('splits as splitSentences does on the whole text', () => {
    for (const joiner of ['\n', ' ', '\n\n']) {
      const source = articles.join(joiner);
      expect(source.length).toBeGreaterThan(3 * SOURCE_WINDOW);
      const whole = splitSentences(source);
      expect(firstSentences(source, 10_000), JSON.stringify(joiner)).toEqual({
        sentences: whole,
        truncated: false,
      });
      expect(firstSentences(source, 50)).toEqual({
        sentences: whole.slice(0, 50),
        truncated: true,
      });
    }
  });

  it('splits again a sentence a window cut after a false break ("Dr. jones")', () => {
    const unit = 'It rained. The talk by Dr. jones went on for hours and hours. ';
    // Every alignment of the units to the window's end, so one cut lands after "Dr. ".
    for (let shift = 0; shift < unit.length; shift++) {
      const source = `${'Wait. '.repeat(shift)}${unit.repeat(Math.ceil((2.5 * SOURCE_WINDOW) / unit.length))}`;
      expect(firstSentences(source, 10_000).sentences, `shift ${shift}`).toEqual(
        splitSentences(source),
      );
    }
  });

  it('keeps a window of one endless sentence whole instead of looping', () => {
    const endless = 'word '.repeat(3 * SOURCE_WINDOW);
    const split = firstSentences(endless, SOURCE_SENTENCE_CAP);
    expect(split.sentences.map((s) => s.text).join(' ')).toBe(endless.trim());
    expect(split.sentences.length).toBeGreaterThan(1);
  });
});

describe('thresholdsFor', () => {
  it('takes the longest matching name prefix and knows no other backend', () => {
    const table = {
      use: DESIGNED_THRESHOLDS['designed-test'],
      'use-lite': {
        ...DESIGNED_THRESHOLDS['designed-test'],
        support: { threshold: 0.5, percentile: 10 },
      },
    };
    expect(thresholdsFor('use-lite · webgpu', table)?.support.threshold).toBe(0.5);
    expect(thresholdsFor('transformers.js x', table)).toBeUndefined();
  });

  it('has thresholds for the built-in encoders as they are named today', () => {
    ensureEmbeddingAsset();
    expect(thresholdsFor(loadGloveEmbedder().backend)).toBeDefined();
    expect(thresholdsFor('use-lite · wasm')).toBeDefined();
    // Cosines of USE-lite run lower than GloVe SIF's: one threshold could not serve both.
    const glove = thresholdsFor(loadGloveEmbedder().backend)!;
    expect(ENCODER_THRESHOLDS['use-lite'].support.threshold).toBeLessThan(glove.support.threshold);
  });
});

describe('the alignment metrics with the real GloVe embedder', () => {
  const source =
    'The city council voted on Tuesday to build a new bridge over the river. ' +
    'Construction will cost forty million pounds and take three years. ' +
    'Local shop owners worry that the works will drive customers away. ' +
    'The mayor promised compensation for businesses that lose trade.';
  const summary =
    'Councillors approved a new river bridge. It will cost forty million pounds over three years. ' +
    'Shop owners fear losing customers during the works.';

  async function scoreAll(caseSummary: string) {
    ensureEmbeddingAsset();
    const results: MetricResult[] = [];
    await computeMetrics(
      ['source-order', 'support', 'redundancy'],
      { source, summary: caseSummary },
      DEFAULT_SETTINGS,
      { embedder: async () => loadGloveEmbedder() },
      (r) => results.push(r),
    );
    return results;
  }

  it('aligns a paraphrase in order to its source sentences, and its reverse scores lower', async () => {
    const results = await scoreAll(summary);
    const order = scoredAs(results[0], 'source-order');
    expect(order.backend).toMatch(/^glove-100d-sif/u);
    expect(order.details.sentences.map((s) => s.match?.index)).toEqual([0, 1, 2]);
    expect(order.score).toBe(1);
    const support = scoredAs(results[1], 'support');
    expect(support.details.threshold).not.toBeNull();
    expect(support.score).toBeGreaterThan(0.5);
    expect(support.score).toBeLessThanOrEqual(1);
    const redundancy = scoredAs(results[2], 'redundancy');
    expect(redundancy.details.pairsCompared).toBe(3);

    const reversed = summary
      .split(/(?<=\.) /u)
      .reverse()
      .join(' ');
    const back = scoredAs((await scoreAll(reversed))[0], 'source-order');
    expect(back.score).toBe(0);
  });

  it('finds a paraphrased repeat more alike than the distinct sentences', async () => {
    const repeated = `${summary} Owners of shops are afraid of losing customers while the works go on.`;
    const r = scoredAs((await scoreAll(repeated))[2], 'redundancy');
    expect([r.details.pairs[0].a, r.details.pairs[0].b]).toEqual([2, 3]);
    const plain = scoredAs((await scoreAll(summary))[2], 'redundancy');
    expect(r.score).toBeLessThan(plain.score ?? Number.NaN);
  });
});
