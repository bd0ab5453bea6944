/** One key per scored case: equal input gives equal keys whatever the key order; a change (texts, settings, judge, model source) does not. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';
import { scoredCaseKey } from '../../../src/lib/state/scored-case.ts';

const INPUT = { source: 'The bridge closed.', summary: 'A bridge closed.' };

describe('scored case key', () => {
  it('is the same for equal input, settings in another key order, and a blank reference', () => {
    const reordered = {
      rouge: { ...DEFAULT_SETTINGS.rouge },
      backends: DEFAULT_SETTINGS.backends,
      density: { width: DEFAULT_SETTINGS.density.width, target: DEFAULT_SETTINGS.density.target },
    };
    expect(scoredCaseKey({ ...INPUT, reference: '  ' }, reordered, undefined)).toBe(
      scoredCaseKey(INPUT, DEFAULT_SETTINGS, undefined),
    );
  });

  it('changes with the summary, a setting, or what the judge is asked', () => {
    const key = scoredCaseKey(INPUT, DEFAULT_SETTINGS, undefined);
    expect(
      scoredCaseKey({ ...INPUT, summary: 'A bridge shut.' }, DEFAULT_SETTINGS, undefined),
    ).not.toBe(key);
    const settings = structuredClone(DEFAULT_SETTINGS);
    settings.density.target = 0.2;
    expect(scoredCaseKey(INPUT, settings, undefined)).not.toBe(key);
    expect(scoredCaseKey(INPUT, DEFAULT_SETTINGS, { metrics: ['alignment'] })).not.toBe(key);
  });

  it('changes when a model download is approved (the same texts then score on another backend)', () => {
    const before = { ...DEFAULT_MODEL_SOURCE, kind: 'hub' as const, approvedDownloads: [] };
    const approved = { ...before, approvedDownloads: ['org/tiny-embedding'] };
    expect(scoredCaseKey(INPUT, DEFAULT_SETTINGS, undefined, approved)).not.toBe(
      scoredCaseKey(INPUT, DEFAULT_SETTINGS, undefined, before),
    );
  });
});
