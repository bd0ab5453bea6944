import { describe, expect, it } from 'vitest';
import { workerRequestSchema } from '../../../workers/protocol.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';

describe('worker protocol', () => {
  it('accepts score, load and cancel requests', () => {
    const score = {
      type: 'score',
      id: 'a',
      metricIds: ['rouge-1', 'coherence'],
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
      models: DEFAULT_MODEL_SOURCE,
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
      models: DEFAULT_MODEL_SOURCE,
    };
    expect(workerRequestSchema.safeParse({ ...base, metricIds: ['bogus'] }).success).toBe(false);
    expect(workerRequestSchema.safeParse({ ...base, metricIds: [] }).success).toBe(false);
    const badSettings = { ...DEFAULT_SETTINGS, density: { target: 0.15, width: 0 } };
    expect(
      workerRequestSchema.safeParse({ ...base, metricIds: ['bleu'], settings: badSettings })
        .success,
    ).toBe(false);
  });

  it('rejects a model id or hub URL that could reach outside the model folder or the web', () => {
    const base = {
      type: 'score',
      id: 'a',
      metricIds: ['coherence'],
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
      models: DEFAULT_MODEL_SOURCE,
    };
    const badModel = {
      ...DEFAULT_SETTINGS,
      backends: {
        ...DEFAULT_SETTINGS.backends,
        embedding: { kind: 'transformer', model: '../secret', device: 'auto', dtype: 'auto' },
      },
    };
    expect(workerRequestSchema.safeParse({ ...base, settings: badModel }).success).toBe(false);
    const badHub = { ...DEFAULT_MODEL_SOURCE, kind: 'hub', hubUrl: 'file:///etc' };
    expect(workerRequestSchema.safeParse({ ...base, models: badHub }).success).toBe(false);
  });
});
