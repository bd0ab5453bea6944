import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS, type MetricSettings } from '../../../src/lib/metrics/settings.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import type { EntityRecognizer } from '../../../src/lib/metrics/semantic/backends.ts';
import { english } from '../../../src/lib/i18n/message.ts';

const recognizer: EntityRecognizer = {
  backend: 'fake-ner',
  recognize: async (text) => {
    const at = text.indexOf('浙江大学');
    return at < 0 ? [] : [{ start: at, end: at + 4, text: '浙江大学', label: 'ORG' }];
  },
};

const zh: CaseInput = {
  source: '研究人员周二表示，这种新型电池可以在十分钟内充满电。',
  summary: '浙江大学的团队开发了一种新型电池，可以在十分钟内充满电。',
};

async function density(input: CaseInput, settings: MetricSettings): Promise<MetricResult> {
  const out: MetricResult[] = [];
  await computeMetrics(
    ['entity-density'],
    input,
    settings,
    { recognizer: async () => recognizer },
    (r) => out.push(r),
  );
  return out[0];
}

describe('entity density on a language the recogniser cannot read', () => {
  it.each(['zh', 'ja', 'ru', 'id'])(
    'is n/a for %s with compromise, naming the language',
    async (code) => {
      const r = await density({ ...zh, language: code }, DEFAULT_SETTINGS);
      expect(r.status).toBe('n/a');
      expect(r.reasonRef).toEqual({ key: 'language.entityDensity.unsupported', values: { code } });
      expect(r.reason).toContain(`(${code})`);
      expect(r.reason).toContain('bert-base-multilingual-cased-ner-hrl');
    },
  );

  it('names Chinese in the English reason', () => {
    expect(english('language.entityDensity.unsupported', { code: 'zh' })).toContain(
      'Chinese text (zh)',
    );
  });

  it('is n/a with the English-only transformer model too', async () => {
    const settings: MetricSettings = {
      ...DEFAULT_SETTINGS,
      backends: {
        ...DEFAULT_SETTINGS.backends,
        ner: { kind: 'transformer', model: 'Xenova/bert-base-NER', device: 'wasm', dtype: 'q8' },
      },
    };
    expect((await density({ ...zh, language: 'zh' }, settings)).status).toBe('n/a');
  });

  it('runs with the multilingual model, on the case tokenizer', async () => {
    const settings: MetricSettings = {
      ...DEFAULT_SETTINGS,
      backends: {
        ...DEFAULT_SETTINGS.backends,
        ner: {
          kind: 'transformer',
          model: 'Xenova/bert-base-multilingual-cased-ner-hrl',
          device: 'wasm',
          dtype: 'q8',
        },
      },
    };
    const r = await density({ ...zh, language: 'zh' }, settings);
    expect(r.status).toBe('ok');
    const details = r.details as { entityCount: number; caseTokenizer: string };
    expect(details.entityCount).toBe(1);
    expect(details.caseTokenizer).toBe('intl-segmenter');
  });

  it('decides from the script when no language is sent', async () => {
    expect((await density(zh, DEFAULT_SETTINGS)).status).toBe('n/a');
  });

  it('scores English as before', async () => {
    const r = await density(
      { source: 'x', summary: 'Zhejiang University built a battery in 2024.', language: 'en' },
      DEFAULT_SETTINGS,
    );
    expect(r.status).toBe('ok');
  });
});
