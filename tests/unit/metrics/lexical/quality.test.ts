/**
 * The offline quality estimate: the arithmetic of one estimate, the score transform, and the
 * guards. The guard cases are built from a SummEval dev article; genuine summaries of several
 * systems raise no flag. Over all 600 dev summaries the flags fire on real outputs too, which is
 * data, not a bug: 'lead-copy' on 38 (extractive systems whose summary is the article's opening,
 * mostly M12–M15), 'cut-mid-sentence' on 39 (22 of them M20, whose outputs stop without a full
 * stop), 'one-sentence' on 20 (19 M20), 'reversed-order' on 5, 'repeated-sentence' on 2.
 */
import { describe, expect, it } from 'vitest';
import {
  alignSentences,
  gamingFlags,
  QUALITY_BACKEND,
  scoreQuality,
} from '../../../../src/lib/metrics/lexical/quality.ts';
import { analyseExtractiveness } from '../../../../src/lib/metrics/lexical/extractiveness.ts';
import {
  estimateDimension,
  normalCdf,
  QUALITY_DIMENSIONS,
  scoreOfEstimates,
  type DimensionModel,
} from '../../../../src/lib/metrics/lexical/quality-model.ts';
import {
  qualityFeatures,
  sourceBigramLogProb,
} from '../../../../src/lib/metrics/lexical/quality-features.ts';
import weights from '../../../../src/lib/metrics/lexical/quality-weights.json';
import { splitSentences } from '../../../../src/lib/metrics/text/tokenize.ts';
import { readDevRows } from '../../../../src/lib/node/validity/summeval.ts';
import { scored } from '../scored.ts';

describe('one estimate', () => {
  const model: DimensionModel = {
    features: ['repeat-share', 'sentences'],
    means: [0.1, 3],
    sds: [0.1, 1],
    weights: [-0.5, 0.2],
    intercept: 3,
    lambda: 1,
    spread: 0.5,
    cvSummarySpearman: 0.4,
    inSampleSummarySpearman: 0.5,
  };

  it('adds weight × standardised value to the intercept, feature by feature', () => {
    const features = { ...qualityFeatures('a b c', 'a b'), 'repeat-share': 0.3, sentences: 5 };
    const e = estimateDimension('coherence', model, features);
    // repeat share (0.3 − 0.1) / 0.1 = 2 → −1; sentences (5 − 3) / 1 = 2 → +0.4.
    expect(e.contributions.map((c) => [c.standardized, c.contribution])).toEqual([
      [expect.closeTo(2, 12), expect.closeTo(-1, 12)],
      [2, expect.closeTo(0.4, 12)],
    ]);
    expect(e.estimate).toBeCloseTo(2.4, 12);
    expect(e.standardized).toBeCloseTo(-1.2, 12);
  });

  it('maps the mean standardised estimate through the normal distribution function', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(1 - normalCdf(1), 12);
    expect(scoreOfEstimates([{ standardized: 1 }, { standardized: -1 }])).toBeCloseTo(0.5, 7);
    expect(scoreOfEstimates([{ standardized: 1 }, { standardized: 1 }])).toBeCloseTo(0.841345, 6);
  });

  it('scores the bigram log-probability under the source, unseen pairs smoothed', () => {
    // Source "a b a": unigrams a 2, b 1, vocabulary 2 + 1, so P(b) = 2/6, P(a) = 3/6.
    // "a b": (1 + 2/6) / (2 + 1); "b a": (1 + 3/6) / (1 + 1).
    expect(sourceBigramLogProb(['a', 'b', 'a'], ['a', 'b', 'a'])).toBeCloseTo(
      (Math.log(4 / 9) + Math.log(3 / 4)) / 2,
      12,
    );
  });
});

describe('the stored weights', () => {
  it('carry the cross-validated figures, at least 0.45 for coherence and consistency', () => {
    for (const d of QUALITY_DIMENSIONS) {
      expect(weights.dimensions[d].cvSummarySpearman, d).toBeGreaterThanOrEqual(0.45);
      expect(weights.dimensions[d].features.length).toBe(weights.dimensions[d].weights.length);
    }
  });
});

const dev = readDevRows(3);
const article = dev[0];
const system = (id: string) => dev.find((r) => r.id === article.id && r.model_id === id)!;
const sourceSentences = splitSentences(article.text).map((s) => s.text);
const flagsOf = (summary: string) =>
  gamingFlags(article.text, analyseExtractiveness(article.text, summary)).map((f) => f.id);

describe('scoreQuality', () => {
  it('gives each dimension its estimate and the score from their standardised mean', () => {
    const result = scored(scoreQuality(article.text, system('M10').decoded));
    expect(result.backend).toBe(QUALITY_BACKEND);
    expect(result.details.estimates.map((e) => e.dimension)).toEqual(['coherence', 'consistency']);
    for (const e of result.details.estimates) {
      const shift = e.contributions.reduce((s, c) => s + c.contribution, 0);
      expect(e.estimate).toBeCloseTo(weights.dimensions[e.dimension].intercept + shift, 12);
      expect(e.cvSummarySpearman).toBe(weights.dimensions[e.dimension].cvSummarySpearman);
    }
    expect(result.score).toBeCloseTo(scoreOfEstimates(result.details.estimates), 12);
    expect(result.details.flags).toEqual([]);
  });

  it('is not applicable without a source', () => {
    expect(scoreQuality(' ', 'A summary.')).toMatchObject({
      status: 'n/a',
      reason: 'needs the source text',
    });
  });
});

describe('gaming flags', () => {
  it('aligns a summary sentence to the source sentence sharing half its words or more', () => {
    const source = splitSentences('The cat sat. A dog ran far away. Birds sang.');
    const summary = splitSentences('A dog ran off. The cat sat down quietly today. Nothing.');
    // 3 of 4 words in sentence 2; 3 of 6 in sentence 1 (half); none for "Nothing".
    expect(alignSentences(summary, source)).toEqual([1, 0, -1]);
  });

  it('flags a copy of the source opening', () => {
    expect(flagsOf(sourceSentences.slice(0, 3).join(' '))).toEqual(['lead-copy']);
  });

  it('flags a one-sentence summary', () => {
    const first = splitSentences(system('M10').decoded)[0].text;
    expect(flagsOf(first)).toEqual(['one-sentence']);
  });

  it('flags source sentences given in reverse order', () => {
    expect(flagsOf([6, 4, 2].map((i) => sourceSentences[i]).join(' '))).toEqual(['reversed-order']);
    // The same sentences in source order are not flagged.
    expect(flagsOf([2, 4, 6].map((i) => sourceSentences[i]).join(' '))).toEqual([]);
  });

  it('flags a text cut mid-word', () => {
    // M10 ends "… aware of it ."; cut inside "aware".
    const text = system('M10').decoded;
    const cut = text.slice(0, text.lastIndexOf('aware') + 2);
    const flags = gamingFlags(article.text, analyseExtractiveness(article.text, cut));
    expect(flags.map((f) => f.id)).toEqual(['cut-mid-sentence']);
    expect(flags[0].message).toMatch(/mid-word \(“aw” begins a source word\)/u);
  });

  it('flags a sentence said twice', () => {
    const text = system('M10').decoded;
    expect(flagsOf(`${text} ${splitSentences(text)[0].text}`)).toEqual(['repeated-sentence']);
  });

  it('raises none on genuine summaries of several systems', () => {
    for (const row of dev.filter((r) =>
      ['M8', 'M9', 'M10', 'M11', 'M17', 'M22'].includes(r.model_id),
    )) {
      const flags = gamingFlags(row.text, analyseExtractiveness(row.text, row.decoded));
      expect(flags, `${row.id} ${row.model_id}`).toEqual([]);
    }
  });
});
