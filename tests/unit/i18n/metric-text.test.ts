import { describe, expect, it } from 'vitest';
import { METRICS } from '../../../src/lib/metrics/registry.ts';
import { english } from '../../../src/lib/i18n/message.ts';
import type { MessageKey } from '../../../src/lib/i18n/catalog-en.ts';

describe('metric names as messages', () => {
  it('every metric has its label, meaning and citation in English, equal to the registry', () => {
    for (const m of METRICS) {
      expect(english(`card.metric.${m.id}.label` as MessageKey), m.id).toBe(m.label);
      expect(english(`card.metric.${m.id}.meaning` as MessageKey), m.id).toBe(m.meaning);
      if (m.citation) {
        expect(english(`card.metric.${m.id}.citation` as MessageKey), m.id).toBe(m.citation);
      }
    }
  });
});
