import { describe, expect, it } from 'vitest';
import {
  fitLabel,
  forestPlot,
  forestScale,
  sharedForestScale,
} from '../../../src/lib/datasets/export/forest-plot.ts';

describe('forest plot scales', () => {
  it('gives each metric its own round axis spanning 0 and the whole interval', () => {
    // BLEU on 0–100 and ROUGE on 0–1 no longer share an axis.
    const bleu = forestScale({ mean: -3.2, low: -7.9, high: 1.4 });
    expect(bleu.min).toBeLessThanOrEqual(-7.9);
    expect(bleu.max).toBeGreaterThanOrEqual(1.4);
    expect(bleu.ticks[0]).toBe(bleu.min);
    expect(bleu.ticks.at(-1)).toBe(bleu.max);
    expect(bleu.ticks).toContain(0);
    const rouge = forestScale({ mean: 0.012, low: 0.004, high: 0.031 });
    expect(rouge.min).toBe(0);
    expect(rouge.max).toBeGreaterThanOrEqual(0.031);
    expect(rouge.max).toBeLessThan(0.1);
    expect(rouge.ticks.length).toBeGreaterThanOrEqual(3);
    const step = rouge.ticks[1]! - rouge.ticks[0]!;
    for (let i = 1; i < rouge.ticks.length; i++) {
      expect(rouge.ticks[i]! - rouge.ticks[i - 1]!).toBeCloseTo(step, 12);
    }
    expect(rouge.decimals).toBe(2);
  });

  it('spans a point interval at 0 with a visible axis', () => {
    const s = forestScale({ mean: 0, low: 0, high: 0 });
    expect(s.max).toBeGreaterThan(s.min);
    expect(s.min).toBeLessThanOrEqual(0);
  });

  it("spans every system's interval on a shared axis, 0 only for differences", () => {
    const items = [
      { mean: 0.4, low: 0.35, high: 0.45 },
      { mean: 0.6, low: 0.55, high: 0.68 },
    ];
    const means = sharedForestScale(items, false);
    expect(means.min).toBeGreaterThan(0);
    expect(means.min).toBeLessThanOrEqual(0.35);
    expect(means.max).toBeGreaterThanOrEqual(0.68);
    expect(sharedForestScale(items, true).min).toBe(0);
  });
});

describe('forest plot markup', () => {
  it('cuts long labels with an ellipsis and keeps the whole label in the title', () => {
    const long = 'G-Eval custom criterion: does the summary keep every number of the source';
    expect(fitLabel('BLEU', 100)).toBe('BLEU');
    const cut = fitLabel(long, 150);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBeLessThan(long.length);
    const svg = forestPlot([{ label: long, mean: -0.02, low: -0.05, high: 0.01 }], 'Δ');
    expect(svg).toContain(`<title>${long}: −0.020 [−0.050, +0.010]</title>`);
    expect(svg).toContain('>−0.020 [−0.050, +0.010]</text>');
  });

  it('draws one chart per metric with its own axis, escaped', () => {
    const svg = forestPlot(
      [
        { label: 'BLEU <b>', mean: -3, low: -6, high: -1 },
        { label: 'ROUGE-L', mean: 0.01, low: -0.01, high: 0.03 },
      ],
      'B − A',
    );
    expect(svg.match(/<svg /gu)).toHaveLength(2);
    expect(svg).toContain('BLEU &lt;b&gt;');
    expect(svg).not.toContain('<b>');
    const ranges = [...svg.matchAll(/data-min="([^"]+)" data-max="([^"]+)"/gu)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(ranges[0]![0]).toBeLessThanOrEqual(-6);
    expect(ranges[0]![1]).toBeGreaterThanOrEqual(0);
    expect(ranges[1]![1]).toBeLessThan(1);
  });
});
