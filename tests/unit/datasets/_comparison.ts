/**
 * A comparison small enough to check by hand: run A over data set d1 (records r1–r4), run B over
 * d2 (r1–r5, r5 without a partner), paired by record id. ROUGE-L has differences 0.1, 0.2, −0.05,
 * 0.3; ROUGE-1 has an n/a on B's r2 and no loss; Token F1 has another backend on each side.
 */
import { compareSides, type SideData } from '../../../src/lib/datasets/compare.ts';
import type { ComparisonReport } from '../../../src/lib/datasets/export/comparison-report.ts';
import type { MetricId } from '../../../src/lib/metrics/types.ts';
import type { StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { fakeResult } from '../metrics/scored.ts';

const METRICS: MetricId[] = ['rouge-l', 'rouge-1', 'token-f1'];

export const ROUGE_L = { a: [0.2, 0.4, 0.5, 0.1], b: [0.3, 0.6, 0.45, 0.4, 0.9] };
export const ROUGE_1 = { a: [0.1, 0.2, 0.3, 0.4], b: [0.1, null, 0.35, 0.4, 0.5] };

function side(
  runId: string,
  datasetId: string,
  rougeL: number[],
  rouge1: (number | null)[],
  tokenBackend: string,
  ids: string[] = rougeL.map((_, i) => `r${i + 1}`),
): SideData {
  return {
    datasetId,
    run: { id: runId, datasetId, metrics: METRICS, settings: {} } as unknown as StoredRun,
    rows: ids.map((id, i) => ({ row: i + 1, id })),
    results: rougeL.map((score, i): StoredRunResult => ({
      runId,
      row: i + 1,
      status: 'done',
      finishedAt: 0,
      elapsedMs: 0,
      results: [
        fakeResult({ id: 'rouge-l', status: 'ok', score, backend: 'rouge_score' }),
        fakeResult({
          id: 'rouge-1',
          status: rouge1[i] === null ? 'n/a' : 'ok',
          score: rouge1[i] ?? null,
          backend: 'rouge_score',
        }),
        fakeResult({ id: 'token-f1', status: 'ok', score: 0.5, backend: tokenBackend }),
      ],
    })),
  };
}

export function handReport(
  overrides: Partial<ComparisonReport> = {},
  ids?: { a?: string[]; b?: string[] },
): ComparisonReport {
  const comparison = compareSides(
    side('run-a', 'd1', ROUGE_L.a, ROUGE_1.a, 'js-tok', ids?.a),
    side('run-b', 'd2', ROUGE_L.b, ROUGE_1.b, 'wasm-tok', ids?.b),
  );
  return {
    title: 'SumLens comparison: prompt two against prompt one',
    a: {
      label: 'prompt one',
      runId: 'run-a',
      runName: 'dev · run 1',
      datasetId: 'd1',
      datasetName: 'dev',
      runCreatedAt: Date.UTC(2026, 0, 2, 9, 30),
    },
    b: {
      label: 'prompt two',
      runId: 'run-b',
      runName: 'dev (2) · run 1',
      datasetId: 'd2',
      datasetName: 'dev (2)',
      runCreatedAt: Date.UTC(2026, 0, 3, 10, 0),
    },
    comparison,
    leaderboard: null,
    createdAt: Date.UTC(2026, 0, 5, 8, 0),
    ...overrides,
  };
}
