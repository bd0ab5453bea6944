import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  comparisonFile,
  comparisonFileName,
  COMPARISON_FORMATS,
} from '../../../src/lib/datasets/export/file.ts';
import {
  comparisonExport,
  type ComparisonExport,
} from '../../../src/lib/datasets/export/compare-json.ts';
import {
  comparisonPairsCsv,
  comparisonSummaryCsv,
} from '../../../src/lib/datasets/export/compare-csv.ts';
import { comparisonToMarkdown } from '../../../src/lib/datasets/export/compare-markdown.ts';
import { rounded, roundedP } from '../../../src/lib/datasets/export/format.ts';
import { REDACTED } from '../../../src/lib/llm/redact.ts';
import { handReport, ROUGE_L } from './_comparison.ts';

const report = handReport();
const rougeL = report.comparison.metrics.find((m) => m.column === 'rouge-l')!;

function csvRows(text: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(text, { header: true }).data;
}

describe('comparison JSON', () => {
  const json = JSON.parse(comparisonFile(report, 'json').text) as ComparisonExport;

  it('names both sides, the pairing and the rows without a partner', () => {
    expect(json).toMatchObject({
      format: 'sumlens-comparison',
      version: 1,
      exportedAt: '2026-01-05T08:00:00.000Z',
      pairing: 'id',
      pairs: 4,
      unpaired: { a: 0, b: 1 },
      duplicates: { a: 0, b: 0 },
      statistics: { interval: { level: 0.95, resamples: 2000, seed: 2024 } },
    });
    expect(json.a).toEqual({
      label: 'prompt one',
      runId: 'run-a',
      runName: 'dev · run 1',
      datasetId: 'd1',
      datasetName: 'dev',
      runCreatedAt: '2026-01-02T09:30:00.000Z',
      system: null,
    });
    expect(json.b.datasetName).toBe('dev (2)');
  });

  it('gives per metric the statistics, checked by hand', () => {
    // ROUGE-L: Δ = 0.1, 0.2, −0.05, 0.3 → mean 0.55 / 4; signed ranks 2, 3, −1, 4 → T− = 1, and
    // exactly 2 of the 16 sign patterns have T ≤ 1: p = 2 · 2/16.
    const m = json.metrics.find((x) => x.column === 'rouge-l')!;
    expect(m).toMatchObject({
      label: 'ROUGE-L',
      backendA: 'rouge_score',
      backendB: 'rouge_score',
      comparable: true,
      n: 4,
      meanA: 0.3,
      meanB: 0.4375,
      meanDiff: 0.1375,
      pValue: 0.25,
      pMethod: 'exact',
      wins: 3,
      ties: 0,
      losses: 1,
    });
    expect(m.low).toBe(rounded(rougeL.low));
    expect(m.high).toBe(rounded(rougeL.high));
    expect(m.low!).toBeLessThan(m.meanDiff!);
    // ROUGE-1: B's r2 is n/a, so 3 pairs: Δ = 0, 0.05, 0.
    expect(json.metrics.find((x) => x.column === 'rouge-1')).toMatchObject({
      n: 3,
      wins: 1,
      ties: 2,
      losses: 0,
    });
  });

  it('gives a metric of two backends its means, never a difference', () => {
    expect(json.metrics.find((x) => x.column === 'token-f1')).toMatchObject({
      comparable: false,
      backendA: 'js-tok',
      backendB: 'wasm-tok',
      meanDiff: null,
      low: null,
      pValue: null,
      wins: null,
      losses: null,
    });
    expect(json.rows.every((r) => r.scores['token-f1']!.delta === null)).toBe(true);
  });

  it('lists every pair with A, B and B − A per metric, without float noise', () => {
    // 0.4 − 0.1 is 0.30000000000000004 in floating point; the file says 0.3.
    expect(ROUGE_L.b[3]! - ROUGE_L.a[3]!).not.toBe(0.3);
    expect(json.rows.map((r) => r.scores['rouge-l']!.delta)).toEqual([0.1, 0.2, -0.05, 0.3]);
    expect(json.rows[0]).toEqual({
      key: 'r1',
      rowA: 1,
      rowB: 1,
      scores: {
        'rouge-l': { a: 0.2, b: 0.3, delta: 0.1 },
        'rouge-1': { a: 0.1, b: 0.1, delta: 0 },
        'token-f1': { a: 0.5, b: 0.5, delta: null },
      },
    });
    expect(json.rows[1]!.scores['rouge-1']).toEqual({ a: 0.2, b: null, delta: null });
  });

  it('rounds for files: six decimals, p-values to six significant digits', () => {
    expect(rounded(1 / 3)).toBe(0.333333);
    expect(rounded(-0.0000001)).toBe(0);
    expect(Object.is(rounded(-0.0000001), -0)).toBe(false);
    expect(rounded(Number.NaN)).toBeNull();
    expect(roundedP(1.234567891e-9)).toBe(1.23457e-9);
    expect(comparisonExport(report).rows).toHaveLength(4);
  });
});

describe('comparison CSV', () => {
  it('writes one line per pair: labels with ids, A, B and B − A per metric', () => {
    const text = comparisonPairsCsv(report);
    const [header, first] = text.split('\r\n');
    expect(header).toBe(
      'pair,row A,row B,' +
        'ROUGE-L: A [a:rouge-l],ROUGE-L: B [b:rouge-l],ROUGE-L: B - A [delta:rouge-l],' +
        'ROUGE-1: A [a:rouge-1],ROUGE-1: B [b:rouge-1],ROUGE-1: B - A [delta:rouge-1],' +
        'Token F1: A [a:token-f1],Token F1: B [b:token-f1],Token F1: B - A [delta:token-f1]',
    );
    expect(first).toBe('r1,1,1,0.2,0.3,0.1,0.1,0.1,0,0.5,0.5,');
    const rows = csvRows(text);
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r['ROUGE-L: B - A [delta:rouge-l]'])).toEqual([
      '0.1',
      '0.2',
      '-0.05',
      '0.3',
    ]);
    // n/a is an empty cell, as is the difference of a metric whose backends differ.
    expect(rows[1]!['ROUGE-1: B [b:rouge-1]']).toBe('');
    expect(rows[1]!['ROUGE-1: B - A [delta:rouge-1]']).toBe('');
  });

  it('keeps a pair key a spreadsheet would run as a formula as text', () => {
    const ids = ['=HYPERLINK("x")', 'r2', 'r3', 'r4'];
    const text = comparisonPairsCsv(handReport({}, { a: ids, b: [...ids, 'r5'] }));
    expect(csvRows(text)[0]!.pair).toBe(`'=HYPERLINK("x")`);
  });

  it('writes the summary as one line per metric', () => {
    const rows = csvRows(comparisonSummaryCsv(report));
    expect(rows.map((r) => r.metric)).toEqual(['ROUGE-L', 'ROUGE-1', 'Token F1']);
    expect(rows[0]).toMatchObject({
      'metric id': 'rouge-l',
      A: 'prompt one',
      B: 'prompt two',
      'backend A': 'rouge_score',
      comparable: 'yes',
      pairing: 'id',
      n: '4',
      'mean A': '0.3',
      'mean B': '0.4375',
      'mean diff (B - A)': '0.1375',
      '95% low': String(rounded(rougeL.low)),
      'Wilcoxon p': '0.25',
      'p method': 'exact',
      wins: '3',
      ties: '0',
      losses: '1',
    });
    expect(rows[2]).toMatchObject({
      comparable: 'no',
      'backend B': 'wasm-tok',
      'mean diff (B - A)': '',
      'Wilcoxon p': '',
      wins: '',
    });
  });
});

describe('comparison Markdown', () => {
  const md = comparisonToMarkdown(report);

  it('says what was compared and how the rows were paired', () => {
    expect(md).toContain('# SumLens comparison: prompt two against prompt one');
    expect(md).toContain('- A (baseline): prompt one (run dev · run 1, data set dev)');
    expect(md).toContain('- Pairs: 4 by record id; without a partner: 0 in A, 1 in B');
    expect(md).toContain('- Report written 2026-01-05 08:00 UTC');
  });

  it('has the per-metric table, with a metric of two backends marked', () => {
    // Both ends of this interval are above 0, so both are written with a plus.
    expect(rougeL.low!).toBeGreaterThan(0);
    const low = `+${rougeL.low!.toFixed(3)}`;
    const high = `+${rougeL.high!.toFixed(3)}`;
    expect(md).toContain(
      `| ROUGE-L | rouge_score | 0.300 | 0.438 | +0.138 | [${low}, ${high}] | 0.250 (exact) | 3 / 0 / 1 | 4 |`,
    );
    expect(md).toContain(
      '| Token F1 | not comparable: backend js-tok vs wasm-tok | — | — | — | — | — | — | 4 |',
    );
  });

  it('lists the largest regressions, worst first', () => {
    expect(md).toContain('### ROUGE-L: 1 of 4 pairs lower in B');
    expect(md).toContain('| r3 | 3 | 3 | 0.500 | 0.450 | −0.050 |');
    expect(md).toContain('No pair scores lower in B on ROUGE-1.');
    expect(md).not.toContain('### Token F1');
    const many = comparisonToMarkdown(report, { regressions: 0 });
    expect(many).toContain('### ROUGE-L: 1 of 4 pairs lower in B, the 0 largest');
  });

  it('writes text from the data as text', () => {
    const named = handReport({ a: { ...report.a, label: 'a | <b>bold</b>' } });
    expect(comparisonToMarkdown(named)).toContain('- A (baseline): a \\| &lt;b>bold&lt;/b>');
  });
});

describe('comparison files', () => {
  it('are named after both sides and typed', () => {
    expect(comparisonFileName(report, 'json')).toBe(
      'sumlens-comparison-dev-run-1-vs-dev-2-run-1-2026-01-05.json',
    );
    expect(comparisonFile(report, 'summary-csv')).toMatchObject({
      fileName: 'sumlens-comparison-dev-run-1-vs-dev-2-run-1-2026-01-05.summary.csv',
      type: 'text/csv;charset=utf-8',
    });
    const systems = handReport({
      a: { ...report.a, system: 'M1' },
      b: { ...report.a, system: 'M 2' },
    });
    expect(comparisonFileName(systems, 'md')).toBe(
      'sumlens-comparison-dev-run-1-M1-vs-M-2-2026-01-05.md',
    );
    expect(comparisonFile(report, 'html').type).toBe('text/html;charset=utf-8');
  });

  it('never carry an API key, in any format', () => {
    const held = 'my-local-server-key-1234';
    const shaped = `sk-proj-${'Ab3'.repeat(20)}`;
    const ids = [shaped, 'r2', 'r3', 'r4'];
    const leaky = handReport(
      {
        title: `compare ${held}`,
        a: { ...report.a, label: `prompt ${held}`, datasetName: `dev ${held}` },
      },
      { a: ids, b: [...ids, 'r5'] },
    );
    for (const format of COMPARISON_FORMATS) {
      const file = comparisonFile(leaky, format, { secrets: [held] });
      expect(file.text, format).not.toContain(held);
      expect(file.text, format).not.toContain(shaped);
      expect(file.fileName, format).not.toContain(held);
    }
    const json = JSON.parse(comparisonFile(leaky, 'json', { secrets: [held] }).text);
    expect(json.a.label).toBe(`prompt ${REDACTED}`);
    expect(json.rows[0].key).toBe(REDACTED);
  });
});
