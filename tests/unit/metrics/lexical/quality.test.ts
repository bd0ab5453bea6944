/**
 * The offline quality estimate: the arithmetic of one estimate, the stored fit, and what the issue
 * that rebuilt it asked of it — copying does not win, an invented fact costs, and the degenerate
 * summaries (a word, the source's opening, a cut-off text, a repeated sentence) score low with
 * their flag. The guard cases are built from SummEval dev articles; genuine summaries of several
 * systems raise no flag.
 */
import { describe, expect, it } from 'vitest';
import {
  alignSentences,
  DEGENERATE_CAP,
  gamingFlags,
  QUALITY_BACKEND,
  scoreQuality,
} from '../../../../src/lib/metrics/lexical/quality-offline/quality.ts';
import { analyseExtractiveness } from '../../../../src/lib/metrics/lexical/extractiveness/extractiveness.ts';
import {
  estimateDimension,
  normalCdf,
  QUALITY_DIMENSIONS,
  scoreOfEstimates,
  type DimensionModel,
  type QualityWeights,
} from '../../../../src/lib/metrics/lexical/quality-offline/quality-model.ts';
import { qualityFeatures } from '../../../../src/lib/metrics/lexical/quality-offline/quality-features.ts';
import weightsJson from '../../../../src/lib/metrics/lexical/quality-offline/quality-weights.json';
import { CANDIDATES } from '../../../../src/lib/node/quality-fit.ts';
import { splitSentences } from '../../../../src/lib/metrics/text/tokenize.ts';
import { readDevRows } from '../../../../src/lib/node/validity/summeval.ts';
import { scored } from '../scored.ts';

const weights = weightsJson as QualityWeights;

describe('one estimate', () => {
  const model: DimensionModel = {
    features: ['repeat-share', 'sentences'],
    means: [0.1, 3],
    sds: [0.1, 1],
    weights: [-0.5, 0.2],
    lambda: 1,
    spread: 0.5,
    fitOn: 'test',
    heldOut: [],
  };

  it('adds weight × standardised value over the spread, feature by feature', () => {
    const features = { ...qualityFeatures('a b c', 'a b'), 'repeat-share': 0.3, sentences: 5 };
    const e = estimateDimension('coherence', model, features);
    // repeat share (0.3 − 0.1) / 0.1 = 2 → −1 / 0.5; sentences (5 − 3) / 1 = 2 → +0.4 / 0.5.
    expect(e.contributions.map((c) => [c.standardized, c.contribution])).toEqual([
      [expect.closeTo(2, 12), expect.closeTo(-2, 12)],
      [2, expect.closeTo(0.8, 12)],
    ]);
    expect(e.standardized).toBeCloseTo(-1.2, 12);
    expect(e.estimate).toBeCloseTo(normalCdf(-1.2), 12);
  });

  it('maps the mean standardised estimate through the normal distribution function', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(1 - normalCdf(1), 12);
    expect(scoreOfEstimates([{ standardized: 1 }, { standardized: -1 }])).toBeCloseTo(0.5, 7);
    expect(scoreOfEstimates([{ standardized: 1 }, { standardized: 1 }])).toBeCloseTo(0.841345, 6);
  });
});

describe('the stored fit', () => {
  it('uses only candidates of each dimension, each weight in its stated direction', () => {
    for (const d of QUALITY_DIMENSIONS) {
      const model = weights.dimensions[d];
      expect(model.features.length, d).toBeGreaterThan(0);
      expect(model.features.length).toBe(model.weights.length);
      for (const [j, id] of model.features.entries()) {
        const direction = CANDIDATES[d][id];
        expect(direction, `${d}: ${id}`).toBeDefined();
        if (direction) expect(Math.sign(model.weights[j]), `${d}: ${id}`).toBe(direction);
      }
    }
  });

  it('carries figures from data it was not fit on, which the card quotes', () => {
    for (const d of QUALITY_DIMENSIONS) {
      expect(weights.dimensions[d].heldOut.length, d).toBeGreaterThan(0);
    }
    // Faithfulness is reported with each data-set family left out.
    const datasets = weights.dimensions.faithfulness.heldOut.map((h) => h.dataset);
    expect(datasets).toEqual(expect.arrayContaining(['summedits', 'qags']));
  });

  it('has no ingredient that rises with copying as such', () => {
    const copying = ['longest-copy-share', 'fragment-density', 'rouge2-lead3', 'novel-4gram-rate'];
    for (const d of QUALITY_DIMENSIONS) {
      for (const id of weights.dimensions[d].features) expect(copying).not.toContain(id);
    }
  });
});

const dev = readDevRows(3);
const article = dev[0];
const system = (id: string) => dev.find((r) => r.id === article.id && r.model_id === id)!;
const sourceSentences = splitSentences(article.text).map((s) => s.text);
const flagsOf = (summary: string) =>
  gamingFlags(article.text, analyseExtractiveness(article.text, summary)).map((f) => f.id);
const genuine = dev.filter((r) => r.id === article.id);

describe('scoreQuality', () => {
  it('gives each dimension its estimate and the score from their standardised mean', () => {
    const result = scored(scoreQuality(article.text, system('M10').decoded));
    expect(result.backend).toBe(QUALITY_BACKEND);
    expect(result.details.estimates.map((e) => e.dimension)).toEqual([
      'faithfulness',
      'coverage',
      'coherence',
    ]);
    for (const e of result.details.estimates) {
      const sum = e.contributions.reduce((s, c) => s + c.contribution, 0);
      expect(e.standardized).toBeCloseTo(sum, 12);
      expect(e.heldOut).toEqual(weights.dimensions[e.dimension].heldOut);
    }
    expect(result.score).toBeCloseTo(scoreOfEstimates(result.details.estimates), 12);
    expect(result.details.flags).toEqual([]);
    expect(result.details.capped).toBe(false);
  });

  it('is not applicable without a source', () => {
    expect(scoreQuality(' ', 'A summary.')).toMatchObject({
      status: 'n/a',
      reason: 'needs the source text',
    });
  });

  it('scores a copy of the source opening low, below every genuine summary, with its flag', () => {
    const lead = scored(scoreQuality(article.text, sourceSentences.slice(0, 3).join(' ')));
    expect(lead.details.flags.map((f) => f.id)).toContain('lead-copy');
    expect(lead.details.capped).toBe(true);
    expect(lead.score).toBeLessThanOrEqual(DEGENERATE_CAP);
    const copyingSystems = genuine.filter((r) => !flagsOf(r.decoded).includes('lead-copy'));
    for (const row of copyingSystems) {
      expect(scored(scoreQuality(article.text, row.decoded)).score, row.model_id).toBeGreaterThan(
        lead.score!,
      );
    }
  });

  it('scores a one-word summary low with its flag', () => {
    const word = scored(
      scoreQuality(article.text, splitSentences(article.text)[0].text.split(' ')[1]),
    );
    expect(word.details.flags.map((f) => f.id)).toEqual(['too-short', 'no-final-punctuation']);
    expect(word.score).toBeLessThanOrEqual(DEGENERATE_CAP);
  });

  it('lowers faithfulness when a number is changed and an organisation renamed', () => {
    const source =
      'Save the Children said on Tuesday that 8,480 migrants had reached Italy by sea this year. ' +
      'The charity fears 400 more could be missing after a boat capsized off Libya. ' +
      'The International Organization for Migration (IOM) said rescue ships were still searching.';
    const faithful =
      'Save the Children says 8,480 migrants reached Italy by sea this year. It fears 400 more are missing after a boat capsized off Libya.';
    const edited = faithful
      .replace('8,480', '18,480')
      .replace('Save the Children', 'Doctors Without Borders');
    const before = scored(scoreQuality(source, faithful));
    const after = scored(scoreQuality(source, edited));
    const faithfulness = (r: typeof before) =>
      r.details.estimates.find((e) => e.dimension === 'faithfulness')!.standardized;
    expect(faithfulness(after)).toBeLessThan(faithfulness(before));
    expect(after.score).toBeLessThan(before.score!);
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

  it('does not flag a one-sentence summary: LLM summaries of one sentence are common', () => {
    const first = splitSentences(system('M10').decoded)[0].text;
    expect(flagsOf(first)).toEqual([]);
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
