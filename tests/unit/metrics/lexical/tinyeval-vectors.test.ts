/**
 * Parity with TinyEval/LongBench metric outputs: all 156 rows of tinyeval_metric_vectors.jsonl,
 * and the published TinyEval scores of tinyeval_repro.json recomputed from the prediction files.
 * Chinese rows: exact with the jieba segmenter (jieba-wasm, jieba.ts); close on average with the
 * Intl.Segmenter fallback (cjk-words.ts).
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
  normalizeZhAnswer,
  qaF1Score,
  qaF1ZhScore,
} from '../../../../src/lib/metrics/lexical/reference/token-f1.ts';
import {
  intlWordSegmenter,
  type WordSegmenter,
} from '../../../../src/lib/metrics/lexical/cjk-words.ts';
import { loadJiebaNode } from '../../../../src/lib/metrics/lexical/jieba.ts';

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
const jieba = loadJiebaNode();

/** The metric each data set uses; Chinese words from `segmenter` (default Intl.Segmenter). */
function scorer(
  row: VectorRow,
  segmenter: WordSegmenter = intlWordSegmenter,
): (prediction: string, answer: string) => number {
  switch (row.dataset) {
    case 'multi_news':
      return longbenchRougeScore;
    case 'multifieldqa_zh':
      return (p, a) => qaF1ZhScore(p, a, segmenter);
    case 'trec':
      return (p, a) => classificationScore(p, a, row.all_classes ?? []);
    case 'synthetic_en':
      return qaF1Score;
    case 'custom_zh':
      return (p, a) => longbenchRougeZhScore(p, a, { segmenter });
  }
}

/** The same metric fed the recorded jieba tokens: only the segmentation differs from LongBench. */
function jiebaScore(row: VectorRow, answerIndex: number): number {
  const pred = row.jieba_pred_tokens!;
  const answer = row.jieba_answer_tokens![answerIndex];
  if (row.dataset === 'multifieldqa_zh') {
    return f1FromTokens(cjkTokensFromSegments(pred), cjkTokensFromSegments(answer)).f1;
  }
  return longbenchRougeZhScore('', '', { tokens: { prediction: pred, groundTruth: answer } });
}

const EXACT = new Set(['multi_news', 'trec', 'synthetic_en']);
const JIEBA = new Set(['multifieldqa_zh', 'custom_zh']);
const chineseRows = rows.filter((r) => JIEBA.has(r.dataset));

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

  it('the jieba segmenter reproduces every recorded jieba token list (124 texts)', () => {
    let texts = 0;
    for (const row of chineseRows) {
      expect(jieba.cut(row.prediction_after_extraction)).toEqual(row.jieba_pred_tokens);
      parseAnswers(row.answers).forEach((a, i) => {
        expect(jieba.cut(a)).toEqual(row.jieba_answer_tokens![i]);
        texts++;
      });
      texts++;
    }
    expect(texts).toBe(124);
  });

  it('Chinese rows scored with the jieba segmenter match to 1e-6 (62 answers)', () => {
    let maxDiff = 0;
    let answers = 0;
    for (const row of chineseRows) {
      const { score, perAnswer } = maxOverAnswers(
        row.prediction_after_extraction,
        parseAnswers(row.answers),
        scorer(row, jieba),
      );
      perAnswer.forEach((s, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(s - row.per_answer_score[i]));
        answers++;
      });
      maxDiff = Math.max(maxDiff, Math.abs(score - row.score_max));
    }
    expect(answers).toBe(62);
    expect(maxDiff).toBeLessThanOrEqual(1e-6);
  });

  it('Chinese rows with the Intl.Segmenter fallback stay within 0.02 of jieba on average', () => {
    // The fallback cannot match exactly: jieba segments with its own dictionary and HMM, we with
    // ICU's dictionary plus the general rules of cjk-words.ts. To guard against fitting these 62
    // answers, the rules were chosen on the even-indexed Chinese rows only (and checked against
    // jieba on made-up phrases, not on shared data); the odd-indexed rows are the held-out check.
    // Measured mean |Δ| (exact answers):
    //                                  even (31)       odd (31)        all (62)
    //   plain ICU words                0.0566 (14)     0.0290 (15)     0.0428 (29)
    //   + single-Han runs joined       0.0407 (18)     0.0178 (17)     0.0292 (35)
    //   + the cjk-words.ts rules now   0.0187 (24)     0.0177 (18)     0.0182 (42)
    // Honest reading: the rules fix the even rows they were found on and do not hurt the held-out
    // rows, but barely move them (0.0178 → 0.0177): they rarely fire there. Two rules that looked
    // good were dropped: splitting 的 after pronouns (closer to jieba's words, yet worse on the
    // even rows) and splitting 4-character runs in two (rejected because names and idioms of four
    // characters stay whole in jieba; it also made the odd rows worse, 0.0206). The rest of the
    // gap is dictionary compounds only jieba knows (浙江大学 vs 浙江|大学 alone costs 0.5 on one
    // answer). The bounds sit just above the measured values so that a regression fails.
    const diffs = chineseRows.map((row, index) => {
      const { score, perAnswer } = maxOverAnswers(
        row.prediction_after_extraction,
        parseAnswers(row.answers),
        scorer(row),
      );
      expect(perAnswer.length).toBe(1);
      expect(Math.abs(score - row.score_max)).toBeLessThanOrEqual(0.5);
      return { index, diff: Math.abs(perAnswer[0] - row.per_answer_score[0]) };
    });
    const summary = (pick: (index: number) => boolean) => {
      const d = diffs.filter((x) => pick(x.index)).map((x) => x.diff);
      return {
        n: d.length,
        mean: d.reduce((a, b) => a + b, 0) / d.length,
        exact: d.filter((x) => x <= 1e-6).length,
      };
    };
    const even = summary((i) => i % 2 === 0);
    const odd = summary((i) => i % 2 === 1);
    const all = summary(() => true);
    expect([even.n, odd.n, all.n]).toEqual([31, 31, 62]);
    expect(all.mean).toBeLessThanOrEqual(0.02);
    expect(even.mean).toBeLessThanOrEqual(0.02);
    expect(odd.mean).toBeLessThanOrEqual(0.02);
    expect(all.exact).toBeGreaterThanOrEqual(41);
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

  it('multifieldqa_zh: 34.97 (internlm) and 48.97 (internlm2) exactly with jieba', () => {
    // LongBench qa_f1_zh_score: jieba.cut(prediction) and jieba.cut(answer) first, then
    // normalize_zh_answer on every word, drop empty words, F1; max over answers; mean × 100.
    for (const model of ['internlm', 'internlm2']) {
      const e = repro[`${model}/multifieldqa_zh`];
      const r = recompute(
        model,
        'multifieldqa_zh',
        (row) =>
          maxOverAnswers(row.pred, parseAnswers(row.answers), (p, a) => qaF1ZhScore(p, a, jieba))
            .score,
      );
      expect(r.n).toBe(e.n);
      expect(r.total).toBe(e.modeB_max_over_gts);
      if (e.expected_result_json !== null) expect(r.total).toBe(e.expected_result_json);
      e.per_item_modeB_first10.forEach((v, i) =>
        expect(Math.abs(r.perItem[i] - v)).toBeLessThan(1e-6),
      );
    }
  });

  it('multifieldqa_zh: the order of operations matters (normalising before cutting is off)', () => {
    // Measured: 34.78 for internlm, so the 34.97 above pins LongBench's order.
    const normalizeFirst = (p: string, a: string) =>
      f1FromTokens(
        jieba.cut(normalizeZhAnswer(p)).filter((t) => t.length > 0),
        jieba.cut(normalizeZhAnswer(a)).filter((t) => t.length > 0),
      ).f1;
    const r = recompute(
      'internlm',
      'multifieldqa_zh',
      (row) => maxOverAnswers(row.pred, parseAnswers(row.answers), normalizeFirst).score,
    );
    expect(r.total).not.toBe(34.97);
  });

  it('multifieldqa_zh: within a point of 34.97 / 48.97 with the Intl.Segmenter fallback', () => {
    // Measured: internlm 35.34, internlm2 49.30 (before the cjk-words.ts rules 35.75 and 49.42;
    // plain ICU 37.12 and 50.71).
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
