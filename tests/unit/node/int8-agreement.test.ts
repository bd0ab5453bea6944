/**
 * The pure parts of `npm run int8:agreement` (src/lib/node/int8-agreement.ts): the percentiles of
 * the per-sentence cosines, the differences and the verdicts against the goals. The measurement
 * itself (minutes of encoder time) is the script's; here hand-made figures decide each verdict.
 */
import { describe, expect, it } from 'vitest';
import {
  agreementSentences,
  cosineCheck,
  cosineSummary,
  deltaCheck,
  deltaHolds,
  figureDelta,
  formatAgreement,
  GOALS,
  validityDeltas,
  verdictLine,
  withChecks,
} from '../../../src/lib/node/int8-agreement.ts';
import { VALIDITY, type ValidityRow } from '../../../src/lib/metrics/validity.ts';

describe('cosineSummary', () => {
  it('gives numpy’s linear percentiles of the cosines', () => {
    // 0.900, 0.901, …, 1.000: numpy.percentile(x, [1, 5, 50]) = 0.901, 0.905, 0.950.
    const cosines = Array.from({ length: 101 }, (_, i) => 0.9 + i / 1000).reverse();
    const s = cosineSummary(cosines);
    expect(s.count).toBe(101);
    expect(s.min).toBeCloseTo(0.9, 12);
    expect(s.p1).toBeCloseTo(0.901, 12);
    expect(s.p5).toBeCloseTo(0.905, 12);
    expect(s.median).toBeCloseTo(0.95, 12);
  });

  it('interpolates between neighbours and refuses an empty list', () => {
    // Four values: the median is halfway between the middle two, the 1st percentile 3% of the way.
    const s = cosineSummary([0.999, 0.99, 0.995, 0.998]);
    expect(s.median).toBeCloseTo(0.9965, 12);
    expect(s.p1).toBeCloseTo(0.99 + 0.03 * 0.005, 12);
    expect(() => cosineSummary([])).toThrow();
  });
});

describe('the verdicts', () => {
  it('the cosine check holds only when every sentence reaches the goal', () => {
    expect(cosineCheck(cosineSummary([0.9996, GOALS.minCosine])).holds).toBe(true);
    const below = cosineCheck(cosineSummary([0.9996, 0.9999, 0.9899]));
    expect(below.holds).toBe(false);
    expect(below.worst).toContain('min 0.9899');
  });

  it('a difference holds within ±0.01 and fails past it, either way', () => {
    expect(figureDelta('support', 'threshold', 0.585, 0.5912).delta).toBe(0.0062);
    expect(deltaHolds(figureDelta('a', 'ρ', 0.2, 0.21))).toBe(true);
    expect(deltaHolds(figureDelta('a', 'ρ', 0.2, 0.19))).toBe(true);
    expect(deltaHolds(figureDelta('a', 'ρ', 0.2, 0.2101))).toBe(false);
    expect(deltaHolds(figureDelta('a', 'ρ', 0.2, 0.1899))).toBe(false);
  });

  it('an n/a on both models holds; on one model only it does not', () => {
    expect(deltaHolds(figureDelta('a', 'ρ', null, null))).toBe(true);
    expect(deltaHolds(figureDelta('a', 'ρ', 0.1, null))).toBe(false);
    expect(deltaHolds(figureDelta('a', 'ρ', null, 0.1))).toBe(false);
  });

  it('a check fails on one figure out of the goal and names the largest move', () => {
    const figures = [
      figureDelta('order', 'share', 0.8, 0.804),
      figureDelta('n2', 'share', null, null),
      figureDelta('adjacent', 'share', 0.7, 0.685),
    ];
    const check = deltaCheck('shuffle', figures);
    expect(check.holds).toBe(false);
    expect(check.worst).toBe('1 outside; largest |Δ| adjacent share: −0.0150');
    expect(verdictLine(check)).toMatch(/^✗ does not hold · Shuffle test: \|Δ\| ≤ 0.01/u);
    const fine = deltaCheck('shuffle', figures.slice(0, 2));
    expect(fine.holds).toBe(true);
    expect(fine.worst).toBe('largest |Δ| order share: +0.0040');
    expect(verdictLine(fine)).toMatch(/^✓ holds · /u);
    expect(() => deltaCheck('validity', [])).toThrow();
  });
});

function shifted(row: ValidityRow, by: number, backend: string): ValidityRow {
  const cells = Object.fromEntries(
    Object.entries(row.cells).map(([d, c]) => [
      d,
      { ...c, summarySpearman: c.summarySpearman === null ? null : c.summarySpearman + by },
    ]),
  ) as ValidityRow['cells'];
  return { ...row, backend, cells };
}

describe('the report', () => {
  const support = VALIDITY.rows.find((r) => r.key === 'support-use-lite')!;

  it('compares every correlation cell of a metric’s two rows', () => {
    const figures = validityDeltas([support], [shifted(support, 0.003, 'use-lite int8 · WASM')]);
    // 4 human ratings × (ρ, τ-b, pooled ρ)
    expect(figures).toHaveLength(12);
    const rho = figures.filter((f) => f.measure === 'ρ');
    expect(rho.every((f) => f.delta === 0.003)).toBe(true);
    expect(figures.filter((f) => f.measure !== 'ρ').every((f) => f.delta === 0)).toBe(true);
    expect(() => validityDeltas([support], [])).toThrow(/no int8 validity row for support/u);
  });

  it('holds only when every check holds, and prints one verdict line per check', () => {
    const parts = (validityShift: number) => ({
      backends: { fp32: 'use-lite · WASM', int8: 'use-lite int8 · WASM' },
      sentences: { from: 'test', cosine: cosineSummary([0.999, 0.9995]), lowest: [] },
      shuffle: { pairs: 250, articles: 50, figures: [figureDelta('order', 'share', 0.9, 0.9)] },
      validity: {
        dataset: 'SummEval dev',
        figures: validityDeltas(
          [support],
          [shifted(support, validityShift, 'use-lite int8 · WASM')],
        ),
      },
      thresholds: {
        figures: [figureDelta('support', 'threshold', 0.585, 0.586)],
        shipped: { key: 'use-lite', support: 0.585, redundancy: 0.8277 },
      },
    });
    const good = withChecks(parts(0.002));
    expect(good.holds).toBe(true);
    expect(good.checks.map((c) => c.holds)).toEqual([true, true, true, true]);
    const bad = withChecks(parts(-0.02));
    expect(bad.holds).toBe(false);
    expect(bad.checks.map((c) => c.id).filter((_, i) => !bad.checks[i].holds)).toEqual([
      'validity',
    ]);
    const printed = formatAgreement(bad).split('\n');
    expect(printed.filter((l) => /^(✓ holds|✗ does not hold) · /u.test(l))).toHaveLength(4);
    expect(printed).toContain(
      '✗ does not hold · Validity rows: |Δ| ≤ 0.01 for each of 12 figures (4 outside; largest |Δ| support · coherence ρ: −0.0200)',
    );
    // The failing cells are marked in the table.
    expect(printed.filter((l) => l.includes(' ✗'))).toHaveLength(4);
  });
});

describe('agreementSentences', () => {
  it('takes each source once, every summary sentence, and drops repeats', () => {
    const sentences = agreementSentences(
      [
        { text: 'The cat sat. The dog ran.', decoded: 'A cat sat. A dog ran.' },
        { text: 'The cat sat. The dog ran.', decoded: 'A cat sat.' },
      ],
      ['Birds flew. A dog ran.'],
    );
    expect(sentences).toEqual([
      'The cat sat.',
      'The dog ran.',
      'A cat sat.',
      'A dog ran.',
      'Birds flew.',
    ]);
  });
});
