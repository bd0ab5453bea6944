import { describe, expect, it } from 'vitest';
import { METRICS, metricInfo } from '../../../src/lib/metrics/registry.ts';
import { metricIdSchema } from '../../../src/lib/workers/metric-api.ts';

describe('metric registry', () => {
  it('has one record per protocol metric id, and every id resolves', () => {
    const ids = METRICS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...metricIdSchema.options].sort());
    for (const id of ids) expect(metricInfo(id).label).toBeTruthy();
  });

  it('gives every metric a one-line meaning and a citation', () => {
    for (const m of METRICS) {
      expect(m.meaning.length).toBeGreaterThan(30);
      expect(m.meaning).not.toMatch(/\n/u);
      expect(m.citation).toBeTruthy();
    }
  });

  it('throws on an unknown id', () => {
    expect(() => metricInfo('nope' as never)).toThrow(/Unknown metric/u);
  });
});
