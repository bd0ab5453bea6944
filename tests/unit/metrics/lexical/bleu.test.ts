import { describe, expect, it } from 'vitest';
import { readJsonl } from '../../../helpers/shared.ts';
import {
  bleuFromStats,
  corpusBleu,
  sentenceBleu,
  tokenize13a,
} from '../../../../src/lib/metrics/lexical/reference/bleu.ts';
import { corpusChrf, sentenceChrf } from '../../../../src/lib/metrics/lexical/chrf.ts';

interface PairRow {
  corpus?: undefined;
  model_id: string;
  summary: string;
  reference: string;
  sentence_bleu: number;
  bleu_counts: number[];
  bleu_totals: number[];
  bleu_precisions: number[];
  bleu_bp: number;
  sys_len: number;
  ref_len: number;
  sentence_chrf: number;
}
interface CorpusRow {
  corpus: true;
  corpus_bleu: number;
  corpus_chrf: number;
  counts: number[];
  totals: number[];
  bp: number;
  sys_len: number;
  ref_len: number;
}

const rows = readJsonl<PairRow | CorpusRow>('data/reference/sacrebleu_reference.jsonl');
const pairs = rows.filter((r): r is PairRow => !r.corpus);
const corpus = rows.find((r): r is CorpusRow => r.corpus === true);

describe('BLEU parity with sacrebleu (sacrebleu_reference.jsonl)', () => {
  it('has 20 pairs and the corpus row', () => {
    expect(pairs.length).toBe(20);
    expect(corpus).toBeDefined();
  });

  it('sentence BLEU, counts, totals, precisions, bp and lengths match', () => {
    let maxDiff = 0;
    for (const row of pairs) {
      const b = sentenceBleu(row.summary, [row.reference]);
      expect(b.counts, row.model_id).toEqual(row.bleu_counts);
      expect(b.totals, row.model_id).toEqual(row.bleu_totals);
      expect(b.sysLen).toBe(row.sys_len);
      expect(b.refLen).toBe(row.ref_len);
      const diffs = [
        Math.abs(b.score - row.sentence_bleu),
        Math.abs(b.bp - row.bleu_bp),
        ...b.precisions.map((p, i) => Math.abs(p - row.bleu_precisions[i])),
      ];
      maxDiff = Math.max(maxDiff, ...diffs);
    }
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
  });

  it('corpus BLEU over the 20 pairs is 6.85 with the recorded statistics', () => {
    const c = corpusBleu(
      pairs.map((r) => r.summary),
      pairs.map((r) => [r.reference]),
    );
    expect(Math.abs(c.score - corpus!.corpus_bleu)).toBeLessThanOrEqual(1e-6);
    expect(c.score.toFixed(2)).toBe('6.85');
    expect(c.counts).toEqual(corpus!.counts);
    expect(c.totals).toEqual(corpus!.totals);
    expect(c.bp).toBe(corpus!.bp);
    expect(c.sysLen).toBe(corpus!.sys_len);
    expect(c.refLen).toBe(corpus!.ref_len);
  });

  it('sentence and corpus chrF match', () => {
    let maxDiff = 0;
    for (const row of pairs) {
      maxDiff = Math.max(
        maxDiff,
        Math.abs(sentenceChrf(row.summary, [row.reference]).score - row.sentence_chrf),
      );
    }
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
    const c = corpusChrf(
      pairs.map((r) => r.summary),
      pairs.map((r) => [r.reference]),
    );
    expect(Math.abs(c.score - corpus!.corpus_chrf)).toBeLessThanOrEqual(1e-6);
  });
});

describe('BLEU by hand', () => {
  it('tokenises like 13a', () => {
    expect(tokenize13a('Hello, world! It costs $2.60 (approx.) in 2010-2011.')).toBe(
      'Hello , world ! It costs $ 2.60 ( approx . ) in 2010 - 2011 .',
    );
    expect(tokenize13a("don't &amp; &quot;x&quot;")).toBe('don\'t & " x "');
  });

  it('identical texts score 100', () => {
    const b = sentenceBleu('the cat sat on the mat', ['the cat sat on the mat']);
    expect(b.score).toBeCloseTo(100, 10);
    expect(b.bp).toBe(1);
  });

  it('applies exp smoothing and the brevity penalty', () => {
    // hyp: 4 tokens, ref: 6 → bp = exp(1 - 6/4); matches 3/4, 2/3, 1/2, 0/1.
    const b = sentenceBleu('the cat sat down', ['the cat sat on the mat']);
    expect(b.counts).toEqual([3, 2, 1, 0]);
    expect(b.totals).toEqual([4, 3, 2, 1]);
    expect(b.bp).toBeCloseTo(Math.exp(1 - 6 / 4), 12);
    // The first order without matches gets 100 / (2 · total).
    expect(b.precisions[3]).toBeCloseTo(100 / (2 * 1), 12);
    const expected =
      Math.exp(1 - 6 / 4) *
      Math.exp((Math.log(75) + Math.log(200 / 3) + Math.log(50) + Math.log(50)) / 4);
    expect(b.score).toBeCloseTo(expected, 10);
  });

  it('uses effective order for short sentences and none for the corpus', () => {
    const short = sentenceBleu('hello world', ['hello world']);
    expect(short.score).toBeCloseTo(100, 10);
    // Without effective order the missing 3- and 4-grams make the geometric mean 0.
    expect(corpusBleu(['hello world'], [['hello world']]).score).toBe(0);
  });

  it('handles several references: max n-gram counts and the closest (shorter on ties) length', () => {
    const b = sentenceBleu('the the the', ['the cat', 'the the']);
    expect(b.counts[0]).toBe(2);
    expect(b.totals[0]).toBe(3);
    // hyp length 3: refs of 2 and 4 are equally close → the shorter one.
    expect(sentenceBleu('a b c', ['a b', 'a b c d']).refLen).toBe(2);
  });

  it('scores empty input 0', () => {
    expect(sentenceBleu('', ['the cat']).score).toBe(0);
    expect(sentenceBleu('the cat', ['']).score).toBe(0);
    expect(bleuFromStats([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).score).toBe(0);
  });

  it('segments CJK on request', () => {
    expect(sentenceBleu('今天天气很好', ['今天天气很好']).score).toBeCloseTo(100, 10);
    const b = sentenceBleu('今天天气很好', ['今天天气不好'], { tokenize: 'intl-segmenter' });
    expect(b.score).toBeGreaterThan(0);
    expect(sentenceBleu('今天天气很好', ['今天天气不好']).score).toBe(0);
  });
});
