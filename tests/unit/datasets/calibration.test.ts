import { describe, expect, it } from 'vitest';
import {
  calibrate,
  calibratePair,
  calibrationRows,
  scatterPoints,
  scoreKey,
  scoresOf,
  type CalibrationRow,
} from '../../../src/lib/datasets/calibration.ts';
import { computeMetrics } from '../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { mean } from '../../../src/lib/stats/correlation.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { fakeResult } from '../metrics/scored.ts';
import { readJson, readJsonl } from '../../helpers/shared.ts';

function ok(id: MetricResult['id'], score: number, details: unknown = {}): MetricResult {
  return fakeResult({ id, status: 'ok', score, backend: 'test', details });
}

describe('calibrate on hand-made rows', () => {
  // Two documents of three summaries. Document a: metric [1,2,3] vs human [1,3,2] → ρ = ½,
  // τ-b = ⅓, r = ½ (see tests/unit/stats/correlation.test.ts). Document b: the human side is
  // constant, so it has no correlation and is skipped.
  const rows: CalibrationRow[] = [
    { row: 1, group: 'a', scores: { m: 1 }, human: { h: 1 } },
    { row: 2, group: 'a', scores: { m: 2 }, human: { h: 3 } },
    { row: 3, group: 'a', scores: { m: 3 }, human: { h: 2 } },
    { row: 4, group: 'b', scores: { m: 5 }, human: { h: 4 } },
    { row: 5, group: 'b', scores: { m: 6 }, human: { h: 4 } },
    { row: 6, group: 'b', scores: { m: null }, human: { h: 4 } },
    { row: 7, scores: { m: 7 }, human: {} },
  ];

  it('gives pooled and summary-level figures with their counts', () => {
    const c = calibrate(rows);
    expect(c.metrics).toEqual(['m']);
    expect(c.humanColumns).toEqual(['h']);
    expect(c.pairs).toHaveLength(1);
    const [pair] = c.pairs;
    expect(pair.pooled.n).toBe(5);
    expect(pair.missingScores).toBe(1);
    expect(pair.summaryLevel).not.toBeNull();
    const s = pair.summaryLevel!;
    expect(s.groupsUsed).toBe(1);
    expect(s.groupsSkipped).toBe(1);
    expect(s.n).toBe(3);
    expect(s.ungroupedRows).toBe(0);
    expect(s.values.spearman).toBeCloseTo(0.5, 12);
    expect(s.values.kendall).toBeCloseTo(1 / 3, 12);
    expect(s.values.pearson).toBeCloseTo(0.5, 12);
  });

  it('has no summary level when no row has a group, and null where undefined', () => {
    const pair = calibratePair(
      [
        { row: 1, scores: { m: 1 }, human: { h: 2 } },
        { row: 2, scores: { m: 1 }, human: { h: 3 } },
      ],
      'm',
      'h',
    );
    expect(pair.summaryLevel).toBeNull();
    expect(pair.pooled).toEqual({ n: 2, values: { pearson: null, spearman: null, kendall: null } });
  });

  it('gives scatter points for rows with both values', () => {
    expect(scatterPoints(rows, 'm', 'h')).toEqual([
      { x: 1, y: 1, row: 1, group: 'a' },
      { x: 2, y: 3, row: 2, group: 'a' },
      { x: 3, y: 2, row: 3, group: 'a' },
      { x: 5, y: 4, row: 4, group: 'b' },
      { x: 6, y: 4, row: 5, group: 'b' },
    ]);
  });

  it('keys custom G-Eval criteria by name and joins rows with results', () => {
    expect(scoreKey(ok('geval-custom', 3, { criterion: 'Tone' }))).toBe('geval-custom:Tone');
    expect(scoreKey(ok('rouge-l', 0.3))).toBe('rouge-l');
    const failed: MetricResult = { ...ok('bleu', 0), status: 'error', score: null };
    expect(scoresOf([ok('rouge-l', 0.3), failed])).toEqual({ 'rouge-l': 0.3, bleu: null });
    const joined = calibrationRows(
      [
        { row: 1, group: 'g', human: { h: 1 } },
        { row: 2, human: { h: 2 } },
      ],
      [{ row: 2, results: [ok('rouge-l', 0.4)] }],
    );
    expect(joined).toEqual([{ row: 2, scores: { 'rouge-l': 0.4 }, human: { h: 2 } }]);
  });
});

interface SummEvalRecord {
  id: string;
  decoded: string;
  text: string;
  references: string[];
  expert_annotations: Array<Record<'coherence' | 'consistency' | 'fluency' | 'relevance', number>>;
}

/**
 * SummEval dev (600 summaries of 50 CNN/DM articles): ROUGE-L F against references[0], Porter
 * stemming on, computed by the app's own offline path (computeMetrics with the default settings),
 * against the mean of the three experts' relevance and consistency ratings.
 *
 * Expected values: computed ONCE with scipy 1.17.1 from the very same numbers (the ROUGE-L and
 * mean ratings this test builds, dumped with full precision by a throwaway script) and hard-coded:
 *
 *   from scipy import stats; import numpy as np
 *   # v = [{'g': article id, 'x': ROUGE-L F, 'y': expert-mean relevance}, ...] (600 rows)
 *   x, y = np.array([r['x'] for r in v]), np.array([r['y'] for r in v])
 *   stats.spearmanr(x, y)[0], stats.kendalltau(x, y)[0], stats.pearsonr(x, y)[0]   # pooled
 *   groups = {}                                     # article id -> row indices, first-seen order
 *   for i, r in enumerate(v): groups.setdefault(r['g'], []).append(i)
 *   # summary level: per article, then np.nanmean; a constant side gives NaN (skipped);
 *   # pearsonr is only called when np.ptp(a) > 0 and np.ptp(b) > 0 (else NaN)
 *   np.nanmean([stats.spearmanr(x[i], y[i])[0] for i in groups.values()])   # and kendalltau, pearsonr
 *
 * Ties are handled as scipy does: average ranks for Spearman, τ-b for Kendall.
 */
describe('SummEval dev: ROUGE-L vs expert ratings equals scipy', async () => {
  const records = readJsonl<SummEvalRecord>('data', 'summeval', 'dev.jsonl');
  const rows: CalibrationRow[] = [];
  for (const [i, r] of records.entries()) {
    const results: MetricResult[] = [];
    await computeMetrics(
      ['rouge-l'],
      { source: r.text, summary: r.decoded, reference: r.references[0] },
      DEFAULT_SETTINGS,
      {},
      (result) => results.push(result),
    );
    rows.push({
      row: i + 1,
      group: r.id,
      scores: scoresOf(results),
      human: {
        expert_relevance: mean(r.expert_annotations.map((a) => a.relevance)),
        expert_consistency: mean(r.expert_annotations.map((a) => a.consistency)),
      },
    });
  }
  const c = calibrate(rows);
  const find = (human: string) => c.pairs.find((p) => p.metric === 'rouge-l' && p.human === human)!;
  const TOL = 1e-9;

  it('uses 600 summaries of 50 articles, stemmed ROUGE-L', () => {
    expect(rows).toHaveLength(600);
    expect(DEFAULT_SETTINGS.rouge.useStemmer).toBe(true);
    expect(c.metrics).toEqual(['rouge-l']);
    // Spot check of the first summary's ROUGE-L F (the value the scipy run was given).
    expect(rows[0].scores['rouge-l']).toBeCloseTo(0.21428571428571427, 15);
  });

  it('relevance: pooled and summary-level Spearman, Kendall τ-b and Pearson', () => {
    const p = find('expert_relevance');
    expect(p.pooled.n).toBe(600);
    expect(Math.abs(p.pooled.values.spearman! - 0.27528607919315234)).toBeLessThan(TOL);
    expect(Math.abs(p.pooled.values.kendall! - 0.19573382180382987)).toBeLessThan(TOL);
    expect(Math.abs(p.pooled.values.pearson! - 0.2892194898937849)).toBeLessThan(TOL);
    const s = p.summaryLevel!;
    expect(s.groupsUsed).toBe(50);
    expect(s.groupsSkipped).toBe(0);
    expect(s.n).toBe(600);
    expect(Math.abs(s.values.spearman! - 0.20654477697160156)).toBeLessThan(TOL);
    expect(Math.abs(s.values.kendall! - 0.16039569943229037)).toBeLessThan(TOL);
    expect(Math.abs(s.values.pearson! - 0.22651498663456965)).toBeLessThan(TOL);
  });

  it('consistency: articles whose experts agree on every summary are skipped and counted', () => {
    const p = find('expert_consistency');
    expect(Math.abs(p.pooled.values.spearman! - 0.1682843642808489)).toBeLessThan(TOL);
    expect(Math.abs(p.pooled.values.kendall! - 0.13150877120341165)).toBeLessThan(TOL);
    expect(Math.abs(p.pooled.values.pearson! - 0.19561094773448834)).toBeLessThan(TOL);
    const s = p.summaryLevel!;
    expect(s.groupsUsed).toBe(46);
    expect(s.groupsSkipped).toBe(4);
    expect(s.n).toBe(552);
    expect(Math.abs(s.values.spearman! - 0.1765740926821939)).toBeLessThan(TOL);
    expect(Math.abs(s.values.kendall! - 0.1492201391362748)).toBeLessThan(TOL);
    expect(Math.abs(s.values.pearson! - 0.2475948462325952)).toBeLessThan(TOL);
  });

  /**
   * shared/data/reference/summeval_rouge_correlations.json holds the same statistics computed by
   * the data's curators with rouge_score on ALL 1200 SummEval summaries (100 articles; the other
   * 50 are held back), so it cannot match our 600-summary dev half exactly. It is the published
   * baseline: our dev-half figures must land near it (same sign, within 0.05).
   */
  it('lands near the 1200-summary baseline of shared/data/reference', () => {
    const reference = readJson<{
      rouge_vs_ref0_use_stemmer: { rougeL: Record<string, Record<string, number>> };
    }>('data', 'reference', 'summeval_rouge_correlations.json');
    const ref = reference.rouge_vs_ref0_use_stemmer.rougeL.relevance;
    const p = find('expert_relevance');
    expect(ref.summary_level_spearman).toBeCloseTo(0.2207, 4);
    expect(Math.abs(p.summaryLevel!.values.spearman! - ref.summary_level_spearman)).toBeLessThan(
      0.05,
    );
    expect(
      Math.abs(p.summaryLevel!.values.kendall! - ref.summary_level_kendall_tau_b),
    ).toBeLessThan(0.05);
    expect(Math.abs(p.pooled.values.spearman! - ref.pooled_spearman_1200)).toBeLessThan(0.05);
    expect(Math.abs(p.pooled.values.kendall! - ref.pooled_kendall_tau_b_1200)).toBeLessThan(0.05);
    expect(Math.abs(p.pooled.values.pearson! - ref.pooled_pearson_1200)).toBeLessThan(0.05);
  });
});
