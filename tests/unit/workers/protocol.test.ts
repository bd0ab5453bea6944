import { describe, expect, it } from 'vitest';
import { workerRequestSchema } from '../../../workers/protocol.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';

describe('worker protocol', () => {
  it('accepts score, load and cancel requests', () => {
    const score = {
      type: 'score',
      id: 'a',
      metricIds: ['rouge-1', 'coherence'],
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
    };
    expect(workerRequestSchema.parse(score)).toEqual(score);
    expect(workerRequestSchema.parse({ type: 'cancel', id: 'a' })).toEqual({
      type: 'cancel',
      id: 'a',
    });
    expect(workerRequestSchema.parse({ type: 'load', id: 'b' }).type).toBe('load');
  });

  it('rejects unknown types, unknown metrics, missing ids and bad settings', () => {
    expect(workerRequestSchema.safeParse({ type: 'explode', id: 'a' }).success).toBe(false);
    expect(workerRequestSchema.safeParse({ type: 'cancel' }).success).toBe(false);
    const base = {
      type: 'score',
      id: 'a',
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
    };
    expect(workerRequestSchema.safeParse({ ...base, metricIds: ['bogus'] }).success).toBe(false);
    expect(workerRequestSchema.safeParse({ ...base, metricIds: [] }).success).toBe(false);
    const badSettings = { ...DEFAULT_SETTINGS, density: { target: 0.15, width: 0 } };
    expect(
      workerRequestSchema.safeParse({ ...base, metricIds: ['bleu'], settings: badSettings })
        .success,
    ).toBe(false);
  });
});
