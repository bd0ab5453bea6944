import { describe, expect, it } from 'vitest';
import { readJsonl } from '../../../helpers/shared.ts';
import {
  REFERENCE_METRIC_IDS,
  scoreReferenceMetrics,
  type BleuDetails,
  type RougeDetails,
  type TokenF1Details,
  type ReferenceMetricResult,
} from '../../../../src/lib/metrics/lexical/reference/reference-metrics.ts';
import type { MetricId } from '../../../../src/lib/metrics/types.ts';

function byId(results: ReferenceMetricResult[]): Record<MetricId, ReferenceMetricResult> {
  return Object.fromEntries(results.map((r) => [r.id, r])) as Record<
    MetricId,
    ReferenceMetricResult
  >;
}

interface RougeRow {
  summary: string;
  reference: string;
  use_stemmer_true: { rouge1: { fmeasure: number; precision: number; recall: number } };
  use_stemmer_false: { rougeL: { fmeasure: number } };
}
interface BleuRow {
  corpus?: boolean;
  summary: string;
  reference: string;
  sentence_bleu: number;
}

describe('scoreReferenceMetrics', () => {
  it('computes only the metrics asked for, each with its own time', () => {
    const input = {
      source: 'src',
      summary: 'The council closed the old bridge on Monday.',
      reference: 'On Monday the council voted to close the old bridge.',
    };
    const rougeOnly = scoreReferenceMetrics(input, { only: ['rouge-1', 'rouge-l'] });
    expect(rougeOnly.map((r) => r.id)).toEqual(['rouge-1', 'rouge-l']);
    const all = byId(scoreReferenceMetrics(input));
    expect(rougeOnly[0]!.score).toBe(all['rouge-1'].score);
    expect(scoreReferenceMetrics(input, { only: ['bleu'] }).map((r) => r.id)).toEqual(['bleu']);
    expect(
      scoreReferenceMetrics({ ...input, reference: '' }, { only: ['token-f1'] }).map((r) => r.id),
    ).toEqual(['token-f1']);
    for (const r of Object.values(all)) expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('returns n/a for every metric without a reference', () => {
    for (const reference of [undefined, '', '   \n']) {
      const results = scoreReferenceMetrics({ source: 'src', summary: 'a summary', reference });
      expect(results.map((r) => r.id)).toEqual(REFERENCE_METRIC_IDS);
      for (const r of results) {
        expect(r.status).toBe('n/a');
        expect(r.score).toBeNull();
        expect(r.reason).toBe('needs a reference summary');
        expect(r.details).toBeNull();
      }
    }
  });

  it('scores a SummEval pair as rouge_score and sacrebleu do', () => {
    const row = readJsonl<RougeRow>('data/reference/rouge_reference.jsonl')[0];
    const bleuRow = readJsonl<BleuRow>('data/reference/sacrebleu_reference.jsonl')[0];
    expect(bleuRow.summary).toBe(row.summary);
    const input = { source: '', summary: row.summary, reference: row.reference };
    const r = byId(scoreReferenceMetrics(input));

    expect(r['rouge-1'].status).toBe('ok');
    expect(r['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter)');
    expect(r['rouge-1'].score).toBeCloseTo(row.use_stemmer_true.rouge1.fmeasure, 9);
    const d = r['rouge-1'].details as RougeDetails;
    expect(d.kind).toBe('rouge');
    expect(d.precision).toBeCloseTo(row.use_stemmer_true.rouge1.precision, 9);
    expect(d.recall).toBeCloseTo(row.use_stemmer_true.rouge1.recall, 9);
    expect(r['rouge-1'].explanation).toBe(
      "48% of the summary's unigrams appear in the reference; it recalls 59% of the reference's (F 0.53).",
    );
    expect(r['rouge-lsum'].explanation).toMatch(/equals ROUGE-L/);

    const unstemmed = byId(scoreReferenceMetrics(input, { useStemmer: false }));
    expect(unstemmed['rouge-l'].backend).toBe('rouge_score-0.1.2');
    expect(unstemmed['rouge-l'].score).toBeCloseTo(row.use_stemmer_false.rougeL.fmeasure, 9);

    expect(r.bleu.backend).toBe('sacrebleu-13a');
    expect(r.bleu.score).toBeCloseTo(bleuRow.sentence_bleu, 9);
    const b = r.bleu.details as BleuDetails;
    expect(b.counts).toEqual([15, 4, 0, 0]);
    expect(r.bleu.explanation).toMatch(/^BLEU 3\.2: 28% of the summary's words/);

    expect(r['token-f1'].backend).toBe('squad-f1');
    const t = r['token-f1'].details as TokenF1Details;
    expect(t.commonTokens.length).toBeGreaterThan(0);
    expect(r['token-f1'].score).toBeCloseTo(t.f1, 12);
    for (const res of Object.values(r)) {
      expect(res.elapsedMs).toBeGreaterThanOrEqual(0);
      expect(res.explanation.length).toBeGreaterThan(10);
    }
  });

  it('splits Lsum sentences when asked, and says so in the backend', () => {
    const r = byId(
      scoreReferenceMetrics(
        {
          source: '',
          summary: 'It was happy. The cat sat on the mat.',
          reference: 'The cat sat on the mat. It was happy.',
        },
        { lsumSplitSentences: true },
      ),
    );
    expect(r['rouge-lsum'].backend).toBe('rouge_score-0.1.2 (porter, sentences: intl-segmenter)');
    expect(r['rouge-lsum'].score).toBeCloseTo(1, 12);
    expect((r['rouge-lsum'].details as RougeDetails).sentenceSplit).toBe('intl-segmenter');
    expect(r['rouge-l'].score!).toBeLessThan(1);
  });

  it('segments Chinese and says so', () => {
    const r = byId(
      scoreReferenceMetrics({
        source: '',
        summary: '郗鉴拒绝了庾亮的建议。',
        reference: '郗鉴拒绝了外戚庾亮废王导的建议。',
      }),
    );
    expect(r['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter, intl-segmenter)');
    expect(r['rouge-1'].score!).toBeGreaterThan(0.5);
    expect(r.bleu.backend).toBe('sacrebleu-intl-segmenter');
    expect(r.bleu.score!).toBeGreaterThan(0);
    expect(r['token-f1'].backend).toBe('squad-f1 (intl-segmenter)');
    expect(r['token-f1'].score!).toBeGreaterThan(0.5);
  });

  it('marks ROUGE-L/Lsum n/a on huge input and keeps the others', () => {
    const big = Array.from({ length: 6000 }, (_, i) => `w${i % 97}`).join(' ');
    const r = byId(scoreReferenceMetrics({ source: '', summary: big, reference: big }));
    expect(r['rouge-l'].status).toBe('n/a');
    expect(r['rouge-l'].reason).toMatch(/too long/);
    expect(r['rouge-l'].details).toMatchObject({ kind: 'rouge-skipped', summaryTokens: 6000 });
    expect(r['rouge-lsum'].status).toBe('n/a');
    expect(r['rouge-1'].score).toBeCloseTo(1, 12);
    expect(r.bleu.score).toBeCloseTo(100, 9);
    expect(r['token-f1'].score).toBeCloseTo(1, 12);
  });

  it('scores an empty summary 0 with a plain explanation', () => {
    const r = byId(scoreReferenceMetrics({ source: '', summary: '', reference: 'The cat sat.' }));
    for (const id of REFERENCE_METRIC_IDS) {
      expect(r[id].status).toBe('ok');
      expect(r[id].score).toBe(0);
    }
    expect(r['rouge-1'].explanation).toMatch(/no unigrams/);
    expect(r.bleu.explanation).toMatch(/no tokens/);
  });
});
