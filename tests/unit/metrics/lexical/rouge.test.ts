import { describe, expect, it } from 'vitest';
import { readJsonl } from '../../../helpers/shared.ts';
import {
  LCS_CELL_BUDGET,
  rouge,
  rougeLsumFromSentences,
  type RougeLcsOutcome,
  type RougeScore,
} from '../../../../src/lib/metrics/lexical/reference/rouge.ts';
import {
  chooseRougeTokenizer,
  rougeScoreTokenize,
} from '../../../../src/lib/metrics/lexical/reference/rouge-tokenize.ts';
import { lcsIndices, lcsLength } from '../../../../src/lib/metrics/lexical/lcs.ts';

type Prf = { precision: number; recall: number; fmeasure: number };
type Types = { rouge1: Prf; rouge2: Prf; rougeL: Prf; rougeLsum: Prf };
interface RougeRow {
  model_id: string;
  summary: string;
  reference: string;
  use_stemmer_true: Types;
  use_stemmer_false: Types;
}

function ok(outcome: RougeLcsOutcome): RougeScore {
  if (outcome.status !== 'ok') throw new Error(`expected a score, got n/a: ${outcome.reason}`);
  return outcome.score;
}

describe('ROUGE parity with rouge_score 0.1.2 (rouge_reference.jsonl)', () => {
  const rows = readJsonl<RougeRow>('data/reference/rouge_reference.jsonl');

  it('has the 20 SummEval pairs', () => {
    expect(rows.length).toBe(20);
  });

  for (const useStemmer of [true, false]) {
    it(`matches P/R/F of all four types, use_stemmer=${useStemmer}, to 1e-6`, () => {
      let maxDiff = 0;
      for (const row of rows) {
        const expected = useStemmer ? row.use_stemmer_true : row.use_stemmer_false;
        // target = reference, prediction = summary
        const r = rouge(row.reference, row.summary, { useStemmer });
        expect(r.tokenizer).toBe('rouge_score');
        const got: Types = {
          rouge1: r.rouge1,
          rouge2: r.rouge2,
          rougeL: ok(r.rougeL),
          rougeLsum: ok(r.rougeLsum),
        };
        for (const type of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const) {
          for (const k of ['precision', 'recall', 'fmeasure'] as const) {
            const d = Math.abs(got[type][k] - expected[type][k]);
            maxDiff = Math.max(maxDiff, d);
            expect(d, `${row.model_id} ${type} ${k}`).toBeLessThanOrEqual(1e-6);
          }
        }
      }
      expect(maxDiff).toBeLessThanOrEqual(1e-6);
    });
  }
});

describe('ROUGE by hand', () => {
  it('computes clipped n-gram and LCS fractions', () => {
    const r = rouge('the cat sat on the mat', 'the cat on the mat');
    expect(r.rouge1.precision).toBeCloseTo(5 / 5, 12);
    expect(r.rouge1.recall).toBeCloseTo(5 / 6, 12);
    expect(r.rouge1.fmeasure).toBeCloseTo((2 * 1 * (5 / 6)) / (1 + 5 / 6), 12);
    // target bigrams: the cat, cat sat, sat on, on the, the mat; prediction: the cat, cat on, on the, the mat
    expect(r.rouge2.precision).toBeCloseTo(3 / 4, 12);
    expect(r.rouge2.recall).toBeCloseTo(3 / 5, 12);
    expect(ok(r.rougeL).precision).toBeCloseTo(1, 12);
    expect(ok(r.rougeL).recall).toBeCloseTo(5 / 6, 12);
  });

  it('clips repeated unigrams', () => {
    const r = rouge('the cat', 'the the the');
    expect(r.rouge1.precision).toBeCloseTo(1 / 3, 12);
    expect(r.rouge1.recall).toBeCloseTo(1 / 2, 12);
  });

  it('computes the union LCS of Lin (2004) for ROUGE-Lsum', () => {
    // r = w1 w2 w3 w4 w5; c1 = w1 w2 w6 w7 w8; c2 = w1 w3 w8 w9 w5 → union {w1, w2, w3, w5}.
    const r = rouge('w1 w2 w3 w4 w5', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5');
    const lsum = ok(r.rougeLsum);
    expect(r.rougeLsum.status === 'ok' && r.rougeLsum.hits).toBe(4);
    expect(lsum.recall).toBeCloseTo(4 / 5, 12);
    expect(lsum.precision).toBeCloseTo(4 / 10, 12);
    expect(lsum.fmeasure).toBeCloseTo((2 * 0.4 * 0.8) / 1.2, 12);
    expect(r.predictionSentences).toBe(2);
  });

  it('Lsum equals L without newlines, and can split sentences with the segmenter instead', () => {
    const target = 'The cat sat on the mat. It was happy.';
    const prediction = 'It was happy. The cat sat on the mat.';
    const plain = rouge(target, prediction);
    expect(ok(plain.rougeLsum)).toEqual(ok(plain.rougeL));
    expect(plain.lsumSentenceSplit).toBe('newline');
    const split = rouge(target, prediction, { lsumSplitSentences: true });
    expect(split.targetSentences).toBe(2);
    expect(split.predictionSentences).toBe(2);
    // Sentence-level matching recovers the swapped order that a single LCS cannot.
    expect(ok(split.rougeLsum).fmeasure).toBeCloseTo(1, 12);
    expect(ok(split.rougeL).fmeasure).toBeLessThan(1);
  });

  it('tokenises like rouge_score and stems tokens longer than 3 characters', () => {
    expect(rougeScoreTokenize("Sterling's ex-Clippers, $2.6M!")).toEqual([
      'sterling',
      's',
      'ex',
      'clippers',
      '2',
      '6m',
    ]);
    expect(rougeScoreTokenize('Running dogs ran', (w) => (w === 'running' ? 'run' : w))).toEqual([
      'run',
      'dogs',
      'ran',
    ]);
  });

  it('scores empty and punctuation-only inputs 0 without failing', () => {
    for (const [t, p] of [
      ['', ''],
      ['', 'some words'],
      ['some words', ''],
      ['...', '!!!'],
    ]) {
      const r = rouge(t, p, { useStemmer: true });
      expect(r.rouge1).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
      expect(r.rouge2.fmeasure).toBe(0);
      expect(ok(r.rougeL).fmeasure).toBe(0);
      expect(ok(r.rougeLsum).fmeasure).toBe(0);
    }
  });
});

describe('ROUGE on non-Latin scripts (deliberate divergence from rouge_score)', () => {
  it('rouge_score itself would score Chinese and Russian 0', () => {
    expect(rougeScoreTokenize('猫坐在垫子上')).toEqual([]);
    expect(rougeScoreTokenize('Кошка сидела на коврике')).toEqual([]);
  });

  it('scores Chinese above 0 with Intl.Segmenter words', () => {
    const r = rouge('猫坐在垫子上。', '猫在垫子上。');
    expect(r.tokenizer).toBe('intl-segmenter');
    expect(r.rouge1.fmeasure).toBeGreaterThan(0.5);
    expect(ok(r.rougeL).fmeasure).toBeGreaterThan(0.5);
    expect(rouge('今天天气很好', '今天天气很好').rouge1.fmeasure).toBeCloseTo(1, 12);
  });

  it('scores Japanese and Cyrillic above 0', () => {
    expect(rouge('猫がマットの上に座った', '猫がマットに座った').rouge1.fmeasure).toBeGreaterThan(
      0,
    );
    const ru = rouge('Кошка сидела на коврике', 'Кошка на коврике');
    expect(ru.tokenizer).toBe('intl-segmenter');
    expect(ru.rouge1.precision).toBeCloseTo(1, 12);
    expect(ru.rouge1.recall).toBeCloseTo(3 / 4, 12);
    // Lower-cased like rouge_score.
    expect(rouge('КОШКА', 'кошка').rouge1.fmeasure).toBeCloseTo(1, 12);
  });

  it('keeps rouge_score tokenisation for English with a stray foreign word', () => {
    const text =
      'The president of China, Xi Jinping (习近平), met the prime minister in Beijing on Tuesday to discuss trade.';
    expect(chooseRougeTokenizer(text, 'The president met the prime minister.')).toBe('rouge_score');
    expect(chooseRougeTokenizer('Привет, мир', 'hello world')).toBe('intl-segmenter');
  });

  it('can be forced either way', () => {
    expect(rouge('猫', '猫', { tokenizer: 'rouge_score' }).rouge1.fmeasure).toBe(0);
    expect(rouge('the cat', 'the cat', { tokenizer: 'intl-segmenter' }).tokenizer).toBe(
      'intl-segmenter',
    );
  });
});

describe('LCS cost guard', () => {
  it('skips ROUGE-L/Lsum on a 1 MB text but still computes ROUGE-1/2, quickly', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const make = (seed: number, bytes: number) => {
      const out: string[] = [];
      let len = 0;
      let x = seed;
      while (len < bytes) {
        x = (x * 1103515245 + 12345) % 2147483648;
        const w = words[x % words.length];
        out.push(w);
        len += w.length + 1;
      }
      return out.join(' ');
    };
    const target = make(1, 1_000_000);
    const prediction = make(2, 1_000_000);
    // The guard is what keeps a 1 MB pair fast (the 10^11-cell table is never filled): asserted
    // through the cells it refused, not through a time a shared machine cannot promise.
    const r = rouge(target, prediction, { useStemmer: true });
    expect(r.rougeL.status).toBe('n/a');
    expect(r.rougeLsum.status).toBe('n/a');
    if (r.rougeL.status === 'n/a') {
      expect(r.rougeL.reason).toMatch(/too long/);
      expect(r.rougeL.cells).toBeGreaterThan(LCS_CELL_BUDGET);
    }
    expect(r.rouge1.fmeasure).toBeGreaterThan(0.9);
    expect(r.rouge2.fmeasure).toBeGreaterThan(0.5);
  });

  it('applies the same budget to Lsum sentence pairs and accepts a custom budget', () => {
    const r = rouge('a b c d', 'a b c d', { lcsCellBudget: 15 });
    expect(r.rougeL.status).toBe('n/a');
    expect(rouge('a b c', 'a b c d e', { lcsCellBudget: 15 }).rougeL.status).toBe('ok');
    expect(rougeLsumFromSentences([['a', 'b']], [['a'], ['b', 'c']], 5).status).toBe('n/a');
  });
});

describe('LCS kernels', () => {
  it('length matches the textbook value', () => {
    expect(lcsLength([1, 2, 3, 4, 1], [3, 4, 1, 2, 1, 3])).toBe(3);
    expect(lcsLength([], [1, 2])).toBe(0);
  });

  it('reconstructs with each library’s tie-break', () => {
    // x = a b, y = b a: both single-element LCSs are valid; the libraries pick differently.
    const x = [0, 1];
    const y = [1, 0];
    // rouge_score: left only when strictly greater, so it moves up and ends on x[0] = a.
    expect(lcsIndices(x, y, 'rouge_score')).toEqual([0]);
    // pltrdy: up only when strictly greater, so it moves left and ends on x[1] = b.
    expect(lcsIndices(x, y, 'pltrdy')).toEqual([1]);
  });
});

describe('ROUGE-Lsum of one line each (the shortcut to L)', () => {
  const target =
    'The council voted on Monday to close the old bridge, and the ferry runs until 2027.';
  const prediction =
    'On Monday the council closed the bridge; a ferry runs until the new bridge opens.';

  it('equals the summary-level LCS computed sentence by sentence', () => {
    const r = rouge(target, prediction);
    const full = rougeLsumFromSentences(
      [rougeScoreTokenize(target)],
      [rougeScoreTokenize(prediction)],
    );
    expect(ok(r.rougeLsum)).toEqual(ok(full));
    expect(ok(r.rougeLsum)).toEqual(ok(r.rougeL));
    expect(r.targetSentences).toBe(1);
    expect(r.predictionSentences).toBe(1);
  });

  it('takes the sentence path as soon as one text has a newline, and differs from L there', () => {
    const lines = 'the ferry runs until 2027\nthe council voted to close the old bridge';
    const r = rouge(
      lines,
      'the council voted to close the old bridge and the ferry runs until 2027',
    );
    expect(r.targetSentences).toBe(2);
    expect(ok(r.rougeLsum).fmeasure).toBeGreaterThan(ok(r.rougeL).fmeasure);
    const full = rougeLsumFromSentences(
      lines.split('\n').map((l) => rougeScoreTokenize(l)),
      [
        rougeScoreTokenize(
          'the council voted to close the old bridge and the ferry runs until 2027',
        ),
      ],
    );
    expect(ok(r.rougeLsum)).toEqual(ok(full));
  });

  it('keeps Lsum n/a (with its own name) when the pair is over the cell budget', () => {
    const r = rouge('a b c d e f', 'a b c d', { lcsCellBudget: 10 });
    expect(r.rougeL.status).toBe('n/a');
    expect(r.rougeLsum.status).toBe('n/a');
    if (r.rougeLsum.status === 'n/a') expect(r.rougeLsum.reason).toContain('ROUGE-Lsum');
  });

  it('reports each part’s time', () => {
    const t = rouge(target, prediction, { useStemmer: true }).timings;
    for (const ms of Object.values(t)) expect(ms).toBeGreaterThanOrEqual(0);
  });
});
