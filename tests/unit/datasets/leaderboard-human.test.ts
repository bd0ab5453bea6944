/**
 * The leaderboard beside people: each system's human means, and the system-level Kendall τ-b
 * between a metric's system means and the human system means, against hand-computed values.
 */
import { describe, expect, it } from 'vitest';
import { leaderboard } from '../../../src/lib/datasets/leaderboard.ts';
import type { StoredRunResult } from '../../../src/lib/storage/schema.ts';
import type { MetricId } from '../../../src/lib/metrics/types.ts';
import { fakeResult } from '../metrics/scored.ts';

const SYSTEMS = ['S1', 'S2', 'S3', 'S4'];
/** Per system: its two rows' metric scores (means 0.2, 0.4, 0.6, 0.8). */
const METRIC = { S1: [0.1, 0.3], S2: [0.3, 0.5], S3: [0.5, 0.7], S4: [0.7, 0.9] };

function board(humanMean: Record<string, number>) {
  const rows = SYSTEMS.flatMap((system, s) =>
    [0, 1].map((doc) => ({
      row: s * 2 + doc + 1,
      group: `doc${doc}`,
      system,
      // Coherence half a point under the system's mean, fluency half a point over.
      human: {
        expert_coherence: humanMean[system]! - 0.5,
        expert_fluency: humanMean[system]! + 0.5,
      },
    })),
  );
  const results = rows.map((r): StoredRunResult => ({
    runId: 'r',
    row: r.row,
    status: 'done',
    finishedAt: 0,
    elapsedMs: 0,
    results: [
      fakeResult({
        id: 'rouge-l' as MetricId,
        status: 'ok',
        score: METRIC[r.system as keyof typeof METRIC][(r.row - 1) % 2]!,
      }),
    ],
  }));
  return leaderboard(rows, results, ['rouge-l'], ['expert_coherence', 'expert_fluency'])!;
}

describe('leaderboard with human ratings', () => {
  it("gives each system's human means per column and for the dimensions' mean", () => {
    const b = board({ S1: 2, S2: 4, S3: 3, S4: 5 });
    const human = b.human!;
    expect(human.best).toBe('mean:expert_');
    expect(human.refs.map((r) => r.key)).toEqual([
      'human:expert_coherence',
      'human:expert_fluency',
      'mean:expert_',
    ]);
    const s2 = human.means.find((m) => m.system === 'S2')!;
    expect(s2.values[0]).toBeCloseTo(3.5, 12);
    expect(s2.values[1]).toBeCloseTo(4.5, 12);
    expect(s2.values[2]).toBeCloseTo(4, 12);
  });

  it('computes τ-b over the systems: 5 concordant, 1 discordant pair → 2/3', () => {
    // Metric order S1 < S2 < S3 < S4; people: 2, 4, 3, 5 (S2 and S3 swapped).
    const b = board({ S1: 2, S2: 4, S3: 3, S4: 5 });
    const tau = b.human!.agreement.find(
      (a) => a.column === 'rouge-l' && a.human === 'mean:expert_',
    )!;
    expect(tau.n).toBe(4);
    expect(tau.tau).toBeCloseTo(2 / 3, 12);
  });

  it('counts ties as τ-b does: 5 concordant, one pair tied in people → 5/√30', () => {
    const b = board({ S1: 2, S2: 4, S3: 4, S4: 5 });
    const tau = b.human!.agreement.find((a) => a.human === 'human:expert_coherence')!;
    expect(tau.tau).toBeCloseTo(5 / Math.sqrt(30), 12);
    expect(tau.n).toBe(4);
  });

  it('has no human part without ratings', () => {
    const b = board({ S1: 2, S2: 4, S3: 3, S4: 5 });
    const rows = b.systems.map((system, i) => ({ row: i + 1, group: 'd', system }));
    const results = rows.map((r): StoredRunResult => ({
      runId: 'r',
      row: r.row,
      status: 'done',
      finishedAt: 0,
      elapsedMs: 0,
      results: [fakeResult({ id: 'rouge-l' as MetricId, status: 'ok', score: 0.5 })],
    }));
    const plain = leaderboard(rows, results, ['rouge-l'])!;
    expect(plain.columns[0]!.entries).toHaveLength(4);
    expect(plain.human).toBeUndefined();
  });
});
