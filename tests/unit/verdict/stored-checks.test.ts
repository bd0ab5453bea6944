/** The page's checks survive a reload per scope, and a stored entry this version cannot read is dropped alone. */
import { describe, expect, it } from 'vitest';
import { CHECKS_KEY, loadChecks, saveChecks } from '../../../src/lib/assertions/stored.ts';
import { METRIC_IDS } from '../../../src/lib/metrics/registry.ts';

function memory() {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    map,
  };
}

describe('stored checks', () => {
  it('keeps the case preset and each data set apart', () => {
    const storage = memory();
    saveChecks('case', [{ kind: 'score', metric: 'support', op: '>=', threshold: 0.7 }], storage);
    saveChecks({ datasetId: 'd1' }, [{ kind: 'no-flag', flag: 'lead-copy' }], storage);
    expect(loadChecks('case', METRIC_IDS, storage)).toEqual([
      { kind: 'score', metric: 'support', op: '>=', threshold: 0.7 },
    ]);
    expect(loadChecks({ datasetId: 'd1' }, METRIC_IDS, storage)).toEqual([
      { kind: 'no-flag', flag: 'lead-copy' },
    ]);
    expect(loadChecks({ datasetId: 'd2' }, METRIC_IDS, storage)).toEqual([]);
  });

  it('drops an unknown metric and a malformed entry, keeping the rest', () => {
    const storage = memory();
    storage.setItem(
      CHECKS_KEY,
      JSON.stringify({
        case: [
          { type: 'no-such-metric', threshold: 1 },
          { type: 'bleu' },
          'junk',
          { type: 'not-bleu', threshold: 30 },
        ],
      }),
    );
    expect(loadChecks('case', METRIC_IDS, storage)).toEqual([
      { kind: 'score', metric: 'bleu', op: '<=', threshold: 30 },
    ]);
  });

  it('reads corrupt storage as no checks, and says when the browser refuses to keep them', () => {
    const storage = memory();
    storage.setItem(CHECKS_KEY, '{not json');
    expect(loadChecks('case', METRIC_IDS, storage)).toEqual([]);
    const full = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    };
    expect(saveChecks('case', [{ kind: 'no-flag', flag: 'x' }], full)).toBe(false);
  });
});
