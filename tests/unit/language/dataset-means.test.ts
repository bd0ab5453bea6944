/**
 * A data set of mixed languages: entity density is n/a on the Chinese rows (English-only
 * recogniser), so the column's mean is the mean of the English rows only and the summary counts
 * the n/a rows instead of averaging them in as zeros.
 */
import { describe, expect, it } from 'vitest';
import { summarizeScores } from '../../../src/lib/datasets/run-view.ts';
import { notApplicable } from '../../../src/lib/metrics/results.ts';
import { ref } from '../../../src/lib/i18n/message.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import type { StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';

function density(score: number): MetricResult {
  return {
    id: 'entity-density',
    status: 'ok',
    score,
    explanation: 'x',
    backend: 'compromise',
    details: {} as never,
  } as MetricResult;
}

const chinese = notApplicable(
  'entity-density',
  'compromise',
  ref('language.entityDensity.unsupported', { code: 'zh' }),
  { language: 'zh' },
);

function row(n: number, result: MetricResult): StoredRunResult {
  return { runId: 'r', row: n, status: 'done', results: [result], finishedAt: 0, elapsedMs: 0 };
}

describe('data-set means with n/a rows', () => {
  it('averages the ok rows only and counts the n/a ones', () => {
    const run = { metrics: ['entity-density'], settings: {} } as unknown as StoredRun;
    const results = [row(1, density(0.2)), row(2, chinese), row(3, density(0.6)), row(4, chinese)];
    const [summary] = summarizeScores(run, results);
    expect(summary.column).toBe('entity-density');
    expect(summary.n).toBe(2);
    expect(summary.mean).toBeCloseTo(0.4, 12);
    expect(summary.notApplicable).toBe(2);
    expect(summary.errors).toBe(0);
  });
});
