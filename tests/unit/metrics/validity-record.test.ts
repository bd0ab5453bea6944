import { describe, expect, it } from 'vitest';
import { OFFLINE_METRIC_IDS, metricRecord } from '../../../src/lib/metrics/registry.ts';
import { rowLabelRef, VALIDITY, type ValidityRow } from '../../../src/lib/metrics/validity.ts';

describe('validity on the record', () => {
  it('a measured metric’s record gives the family of its built-in row’s key', () => {
    for (const id of OFFLINE_METRIC_IDS) {
      const family = metricRecord(id).validity?.family;
      const keys = VALIDITY.rows.filter((r) => r.metrics.includes(id)).map((r) => r.key);
      expect(keys, id).toContain(family ? `${id}-${family}` : id);
    }
  });

  it('every stored row is named by a message, a metric’s rows by its record’s', () => {
    for (const row of VALIDITY.rows) {
      const [id] = row.metrics;
      const label = rowLabelRef(row);
      const own = row.metrics.length === 1 && id ? metricRecord(id).validity?.label : undefined;
      if (own && row.key.startsWith(`${id}-`) && !row.key.endsWith('-cv')) {
        expect(label, row.key).toEqual({ key: own });
      }
      // Only the names of the reference metrics (ROUGE-1, BLEU…) are shown as stored.
      if (label.key === 'common.literal') expect(row.kind, row.key).toBe('reference');
    }
  });

  it('a row measured under a label the metric no longer has is shown as stored', () => {
    const row: ValidityRow = { ...VALIDITY.rows[0]!, label: 'An old name' };
    expect(rowLabelRef(row)).toEqual({ key: 'common.literal', values: { text: 'An old name' } });
  });
});
