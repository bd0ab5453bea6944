/** The metric workers' request schemas (src/lib/workers/metric-api.ts). */
import { describe, expect, it } from 'vitest';
import { metricApi } from '../../../src/lib/workers/metric-api.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';

const score = metricApi.methods.score.request;

describe('metric worker methods', () => {
  it('accepts score and load requests', () => {
    const request = {
      metricIds: ['rouge-1', 'coherence'],
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
      models: DEFAULT_MODEL_SOURCE,
    };
    expect(score.parse(request)).toEqual(request);
    expect(metricApi.methods.load.request.parse({})).toEqual({});
  });

  it('rejects unknown metrics, no metric and bad settings', () => {
    const base = {
      input: { source: 's', summary: 't' },
      settings: DEFAULT_SETTINGS,
      models: DEFAULT_MODEL_SOURCE,
    };
    expect(score.safeParse({ ...base, metricIds: ['bogus'] }).success).toBe(false);
    expect(score.safeParse({ ...base, metricIds: [] }).success).toBe(false);
    const badSettings = { ...DEFAULT_SETTINGS, density: { target: 0.15, width: 0 } };
    expect(score.safeParse({ ...base, metricIds: ['bleu'], settings: badSettings }).success).toBe(
      false,
    );
  });

  it('rejects a model id or hub URL that could reach outside the model folder or the web', () => {
    const base = {
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
    expect(score.safeParse({ ...base, settings: badModel }).success).toBe(false);
    const badHub = { ...DEFAULT_MODEL_SOURCE, kind: 'hub', hubUrl: 'file:///etc' };
    expect(score.safeParse({ ...base, models: badHub }).success).toBe(false);
  });
});
