/** A bad setting is said as the panel names it, and blocks only the metrics that read it. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, metricSettingsSchema } from '../../../src/lib/metrics/settings.ts';
import type { MetricSettings } from '../../../src/lib/metrics/settings.ts';
import {
  blockedMetrics,
  runnableSettings,
  settingsProblems,
} from '../../../src/lib/state/settings-problems.ts';

function withDensity(density: Partial<MetricSettings['density']>): MetricSettings {
  const settings = structuredClone(DEFAULT_SETTINGS);
  settings.density = { ...settings.density, ...density };
  return settings;
}

describe('settings problems', () => {
  it('has none for the defaults', () => {
    expect(settingsProblems(DEFAULT_SETTINGS)).toEqual([]);
  });

  it('says a negative density target in words, and blocks entity density only', () => {
    const problems = settingsProblems(withDensity({ target: -0.5 }));
    expect(problems).toEqual([
      {
        path: 'density.target',
        field: 'Entity density target',
        message: 'Entity density target must be at least 0.',
        // The page words the ref in the reader's language; `message` is its English.
        messageRef: {
          key: 'settings.problem.atLeast',
          values: { field: { key: 'settings.field.densityTarget' }, limit: 0 },
        },
        metrics: ['entity-density'],
      },
    ]);
    const blocked = blockedMetrics(problems);
    expect([...blocked.keys()]).toEqual(['entity-density']);
    expect(blocked.get('entity-density')).toBe(
      'Not scored: Entity density target must be at least 0. Fix it in Metric settings.',
    );
  });

  it('says an empty field and a zero width (which must be more than 0)', () => {
    const problems = settingsProblems(withDensity({ width: 0, target: null as unknown as number }));
    expect(problems.map((p) => p.message)).toEqual([
      'Entity density target must be filled in.',
      'Entity density width must be more than 0.',
    ]);
  });

  it('blocks every metric of the shared reference pass for a bad ROUGE tokenizer', () => {
    const settings = structuredClone(DEFAULT_SETTINGS);
    (settings.rouge as { tokenizer: string }).tokenizer = 'whitespace';
    const [problem] = settingsProblems(settings);
    expect(problem?.metrics).toEqual([
      'rouge-1',
      'rouge-2',
      'rouge-l',
      'rouge-lsum',
      'bleu',
      'token-f1',
    ]);
    expect(problem?.message).toBe('ROUGE/BLEU tokens is not a choice.');
  });

  it('blocks the encoder metrics for a bad encoder choice, and not the lexical ones', () => {
    const settings = structuredClone(DEFAULT_SETTINGS);
    settings.backends.embedding = {
      kind: 'transformer',
      model: 'no slash',
      device: 'auto',
      dtype: 'auto',
    };
    const blocked = blockedMetrics(settingsProblems(settings));
    expect(blocked.has('coherence')).toBe(true);
    expect(blocked.has('rouge-1')).toBe(false);
    expect(blocked.has('entity-density')).toBe(false);
  });

  it('gives the workers valid settings: each wrong value at its default', () => {
    const settings = structuredClone(withDensity({ target: -1, width: 0.3 }));
    settings.backends.embedding = {
      kind: 'transformer',
      model: 'no slash',
      device: 'auto',
      dtype: 'auto',
    };
    const runnable = runnableSettings(settings, settingsProblems(settings));
    expect(metricSettingsSchema.safeParse(runnable).success).toBe(true);
    expect(runnable.density).toEqual({ target: DEFAULT_SETTINGS.density.target, width: 0.3 });
    expect(runnable.backends.embedding).toEqual(DEFAULT_SETTINGS.backends.embedding);
    expect(settings.density.target).toBe(-1);
  });
});
