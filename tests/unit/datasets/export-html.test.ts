import { describe, expect, it } from 'vitest';
import { compareSides, type SideData } from '../../../src/lib/datasets/compare.ts';
import { comparisonToHtml, escapeHtml } from '../../../src/lib/datasets/export/html.ts';
import { formatP } from '../../../src/lib/datasets/export/format.ts';
import { handReport } from './_comparison.ts';
import type { StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { fakeResult } from '../metrics/scored.ts';

function side(runId: string, values: number[]): SideData {
  return {
    datasetId: 'd',
    run: { id: runId, metrics: ['rouge-l'], settings: {} } as unknown as StoredRun,
    rows: values.map((_, i) => ({
      row: i + 1,
      id: i === 0 ? '<img src=x onerror=alert(1)>' : `r${i}`,
    })),
    results: values.map((score, i): StoredRunResult => ({
      runId,
      row: i + 1,
      status: 'done',
      finishedAt: 0,
      elapsedMs: 0,
      results: [fakeResult({ id: 'rouge-l', status: 'ok', score })],
    })),
  };
}

describe('comparisonToHtml', () => {
  const base = handReport();
  const html = comparisonToHtml({
    ...base,
    title: 'A <b>vs</b> B',
    a: { ...base.a, label: 'prompt "one"' },
    b: { ...base.b, label: 'prompt <two>' },
    comparison: compareSides(side('a', [0.1, 0.2, 0.3]), side('b', [0.2, 0.2, 0.5])),
  });

  it('is self-contained: no script, no external URL, a CSP that forbids loads', () => {
    expect(html).not.toMatch(/<script|<link|@import|url\(/iu);
    expect(html.match(/https?:\/\/[^"\s]*/gu) ?? []).toEqual(['http://www.w3.org/2000/svg']);
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
    );
    expect(html).toMatch(/<svg[^>]+data-chart="intervals"/u);
  });

  it('shows labels, not ids, and escapes every text from the data', () => {
    expect(html).toContain('ROUGE-L');
    expect(html).toContain('A &lt;b&gt;vs&lt;/b&gt; B');
    expect(html).toContain('prompt &lt;two&gt;');
    expect(html).not.toContain('<img');
  });

  it('formats', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
    expect(formatP(0.0004)).toBe('< 0.001');
    expect(formatP(0.04567)).toBe('0.046');
  });
});
