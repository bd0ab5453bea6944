/**
 * Parity with TinyEval/LongBench metric outputs: all 156 rows of tinyeval_metric_vectors.jsonl,
 * and the published TinyEval scores of tinyeval_repro.json recomputed from the prediction files.
 */
import { describe, expect, it } from 'vitest';
import { readJson, readJsonl } from '../../../helpers/shared.ts';
import { maxOverAnswers, parseAnswers } from '../../../../src/lib/metrics/lexical/answers.ts';
import {
  classificationScore,
  extractFirstLine,
} from '../../../../src/lib/metrics/lexical/classification.ts';
import {
  longbenchRougeScore,
  longbenchRougeZhScore,
} from '../../../../src/lib/metrics/lexical/pltrdy-rouge.ts';
import {
  cjkTokensFromSegments,
  f1FromTokens,
  qaF1Score,
  qaF1ZhScore,
} from '../../../../src/lib/metrics/lexical/token-f1.ts';

interface VectorRow {
  dataset: 'multi_news' | 'multifieldqa_zh' | 'trec' | 'synthetic_en' | 'custom_zh';
  metric: string;
  prediction_after_extraction: string;
  answers: unknown;
  per_answer_score: number[];
  score_max: number;
  all_classes?: string[];
  jieba_pred_tokens?: string[];
  jieba_answer_tokens?: string[][];
}

const rows = readJsonl<VectorRow>('data/reference/tinyeval_metric_vectors.jsonl');

/** The metric each data set uses, with our Intl.Segmenter stand-in for jieba. */
function scorer(row: VectorRow): (prediction: string, answer: string) => number {
  switch (row.dataset) {
    case 'multi_news':
      return longbenchRougeScore;
    case 'multifieldqa_zh':
      return qaF1ZhScore;
    case 'trec':
      return (p, a) => classificationScore(p, a, row.all_classes ?? []);
    case 'synthetic_en':
      return qaF1Score;
    case 'custom_zh':
      return (p, a) => longbenchRougeZhScore(p, a);
  }
}

/** The same metric fed the recorded jieba tokens: only the segmentation differs from LongBench. */
function jiebaScore(row: VectorRow, answerIndex: number): number {
  const pred = row.jieba_pred_tokens!;
  const answer = row.jieba_answer_tokens![answerIndex];
  if (row.dataset === 'multifieldqa_zh') {
    return f1FromTokens(cjkTokensFromSegments(pred), cjkTokensFromSegments(answer)).f1;
  }
  return longbenchRougeZhScore('', '', { prediction: pred, groundTruth: answer });
}

const EXACT = new Set(['multi_news', 'trec', 'synthetic_en']);
const JIEBA = new Set(['multifieldqa_zh', 'custom_zh']);

describe('tinyeval_metric_vectors.jsonl', () => {
  it('has 156 rows: 30 multi_news, 60 multifieldqa_zh, 60 trec, 4 synthetic_en, 2 custom_zh', () => {
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.dataset] = (counts[r.dataset] ?? 0) + 1;
    expect(rows.length).toBe(156);
    expect(counts).toEqual({
      multi_news: 30,
      multifieldqa_zh: 60,
      trec: 60,
      synthetic_en: 4,
      custom_zh: 2,
    });
  });

  it('answers are lists of strings (a stringified list would be unpacked by parseAnswers)', () => {
    for (const r of rows) {
      const answers = parseAnswers(r.answers);
      expect(answers.length).toBe(r.per_answer_score.length);
    }
  });

  it('multi_news (pltrdy ROUGE-L F), trec (classification) and synthetic_en (qa_f1) match to 1e-6', () => {
    let maxDiff = 0;
    for (const row of rows.filter((r) => EXACT.has(r.dataset))) {
      const { score, perAnswer } = maxOverAnswers(
        row.prediction_after_extraction,
        parseAnswers(row.answers),
        scorer(row),
      );
      perAnswer.forEach((s, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(s - row.per_answer_score[i]));
      });
      maxDiff = Math.max(maxDiff, Math.abs(score - row.score_max));
    }
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
  });

  it('Chinese rows fed the recorded jieba tokens match to 1e-6 (the formulas are exact)', () => {
    let maxDiff = 0;
    for (const row of rows.filter((r) => JIEBA.has(r.dataset))) {
      const perAnswer = parseAnswers(row.answers).map((_, i) => jiebaScore(row, i));
      perAnswer.forEach((s, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(s - row.per_answer_score[i]));
      });
      maxDiff = Math.max(maxDiff, Math.abs(Math.max(...perAnswer) - row.score_max));
    }
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
  });

  it('Chinese rows with Intl.Segmenter stay close to jieba on average', () => {
    // Cannot match exactly: LongBench segments with jieba (its own dictionary + HMM), we with
    // ICU's dictionary via Intl.Segmenter (cjk-words.ts). Different word boundaries (浙江大学 vs
    // 浙江|大学) move the score of 27 of the 62 answers; the arithmetic itself is proven exact by
    // the previous test. Measured: multifieldqa_zh mean |Δ| 0.0294 over 60 items, 34 exact;
    // custom_zh 0.0256 over 2, 1 exact; both groups together 0.0293 over 62, 35 exact. (Plain ICU
    // without joining single-character runs: 0.0435, 28 exact.) The 0.035 bound sits just above
    // the measured value so that a segmentation regression fails.
    const diffs: number[] = [];
    for (const row of rows.filter((r) => JIEBA.has(r.dataset))) {
      const { score, perAnswer } = maxOverAnswers(
        row.prediction_after_extraction,
        parseAnswers(row.answers),
        scorer(row),
      );
      perAnswer.forEach((s, i) => diffs.push(Math.abs(s - row.per_answer_score[i])));
      expect(Math.abs(score - row.score_max)).toBeLessThanOrEqual(0.5);
    }
    const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    const exact = diffs.filter((d) => d <= 1e-6).length;
    expect(diffs.length).toBe(62);
    expect(mean).toBeLessThanOrEqual(0.035);
    expect(exact).toBeGreaterThanOrEqual(33);
  });
});

interface ReproEntry {
  n: number;
  expected_result_json: number | null;
  modeB_max_over_gts: number;
  per_item_modeB_first10: number[];
}

interface PredRow {
  pred: string;
  answers: unknown;
  all_classes: string[] | null;
}

describe('tinyeval_repro.json: published TinyEval scores from the prediction files', () => {
  const repro = readJson<Record<string, ReproEntry>>('data/reference/tinyeval_repro.json');

  function recompute(model: string, dataset: string, score: (row: PredRow) => number) {
    const preds = readJsonl<PredRow>(`data/tinyeval/pred/${model}/${dataset}.jsonl`);
    const perItem = preds.map(score);
    const total = (100 * perItem.reduce((a, b) => a + b, 0)) / perItem.length;
    return { n: preds.length, total: Math.round(total * 100) / 100, perItem };
  }

  it('multi_news: 23.66 (pltrdy ROUGE-L F, max over answers)', () => {
    const e = repro['internlm/multi_news'];
    const r = recompute(
      'internlm',
      'multi_news',
      (row) => maxOverAnswers(row.pred, parseAnswers(row.answers), longbenchRougeScore).score,
    );
    expect(r.n).toBe(e.n);
    expect(r.total).toBe(e.modeB_max_over_gts);
    expect(r.total).toBe(e.expected_result_json);
    e.per_item_modeB_first10.forEach((v, i) =>
      expect(Math.abs(r.perItem[i] - v)).toBeLessThan(1e-6),
    );
  });

  it('trec: 52.0 (first line of the prediction, classification score)', () => {
    const e = repro['internlm/trec'];
    const r = recompute(
      'internlm',
      'trec',
      (row) =>
        maxOverAnswers(extractFirstLine(row.pred), parseAnswers(row.answers), (p, a) =>
          classificationScore(p, a, row.all_classes ?? []),
        ).score,
    );
    expect(r.n).toBe(e.n);
    expect(r.total).toBe(e.expected_result_json);
    e.per_item_modeB_first10.forEach((v, i) => expect(r.perItem[i]).toBeCloseTo(v, 6));
  });

  it('multifieldqa_zh: within a point of 34.97 / 48.97 (Intl.Segmenter instead of jieba)', () => {
    // Measured: internlm 35.75 (published 34.97), internlm2 49.42 (reproduced 48.97); plain ICU
    // segmentation gives 37.12 and 50.71. Exact parity needs jieba, see the test above.
    for (const model of ['internlm', 'internlm2']) {
      const e = repro[`${model}/multifieldqa_zh`];
      const r = recompute(
        model,
        'multifieldqa_zh',
        (row) => maxOverAnswers(row.pred, parseAnswers(row.answers), qaF1ZhScore).score,
      );
      expect(r.n).toBe(e.n);
      expect(Math.abs(r.total - e.modeB_max_over_gts)).toBeLessThanOrEqual(1);
    }
  });

  // Qwen2/GAOKAO_math is scored by TinyEval's math-answer matcher, not a lexical metric: it is
  // the later TinyEval task's to reproduce.
});
