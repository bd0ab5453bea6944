/**
 * Exports of text a user (or a file they were sent) controls: data-set, run and column names, row
 * ids, criterion names, backends. A CSV cell never starts a formula in a spreadsheet, however it
 * hides the = (blanks, a line break, a full-width ＝); a Markdown report never forms a link, an
 * image, HTML or a code span from such text.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runToCsv } from '../../../src/lib/datasets/export/csv.ts';
import { runToMarkdown } from '../../../src/lib/datasets/export/markdown.ts';
import { comparisonToMarkdown } from '../../../src/lib/datasets/export/compare-markdown.ts';
import { csvText, spreadsheetSafe } from '../../../src/lib/datasets/export/spreadsheet.ts';
import {
  comparisonPairsCsv,
  comparisonSummaryCsv,
} from '../../../src/lib/datasets/export/compare-csv.ts';
import type { RunData } from '../../../src/lib/datasets/run-data.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';
import type { StoredDataset, StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { fakeResult } from '../metrics/scored.ts';
import { handReport } from './_comparison.ts';

/** Cells a spreadsheet would run, each hiding its formula another way. */
const FORMULAS = [
  '=1+1',
  ' =1+1',
  '  +1',
  '\n=HYPERLINK("http://evil.example")',
  '\r\n-2+3',
  '\t@SUM(A1)',
  '\u00a0=1',
  '\u3000=1',
  '＝1+1',
  '＋1',
  '－1',
  '＠SUM(A1)',
  '﹦1',
];

function csvRows(text: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(text, { header: true }).data;
}

/** A run over `rows` with `names` in every place a name goes, scored by ROUGE-L and a criterion. */
function namedRun(names: string, rows: DatasetRow[]): RunData {
  const dataset = {
    id: 'ds',
    name: names,
    createdAt: 0,
    kind: 'case',
    format: 'csv',
    mapping: { kind: 'case' },
    problems: { count: 0, examples: [] },
    fileName: `${names}.csv`,
    rowCount: rows.length,
    humanColumns: [...new Set(rows.flatMap((r) => Object.keys(r.human)))],
  } as unknown as StoredDataset;
  const run = {
    id: 'run-1',
    name: names,
    datasetId: 'ds',
    createdAt: Date.UTC(2026, 0, 3),
    status: 'done',
    metrics: ['rouge-l', 'geval-custom'],
    settings: { task: names },
    backends: { perMetric: {}, judge: { provider: 'openai', model: names } },
    counts: { done: rows.length, total: rows.length, failed: 0 },
    message: names,
  } as unknown as StoredRun;
  const results = rows.map((r, i): StoredRunResult => ({
    runId: 'run-1',
    row: r.row,
    status: 'done',
    finishedAt: 0,
    elapsedMs: 0,
    results: [
      fakeResult({ id: 'rouge-l', status: 'ok', score: 0.1 * (i + 1), backend: names }),
      fakeResult({
        id: 'geval-custom',
        status: 'ok',
        score: 1 + i,
        backend: names,
        details: { criterion: names },
      }),
    ],
  }));
  return { dataset, rows, run, results };
}

function caseRow(row: number, text: string, human: Record<string, number>): DatasetRow {
  return {
    row,
    kind: 'case',
    id: text,
    group: `doc${row % 2}`,
    system: text,
    input: { source: 'Source.', summary: text },
    human,
  };
}

describe('CSV exports: no cell a spreadsheet would run', () => {
  it('every way of hiding = + - @ is neutralised; other text is left as it is', () => {
    for (const text of FORMULAS)
      expect(spreadsheetSafe(text), JSON.stringify(text)).toBe(`'${text}`);
    for (const text of ['plain', ' plain', '5 - 3', 'a=b', 'e-mail', '(=)', '']) {
      expect(spreadsheetSafe(text)).toBe(text);
    }
  });

  it('the writer every CSV export uses applies it to headers and cells', () => {
    const text = csvText(['row', ' =head'], [[1, '＝1+1']]);
    const [row] = csvRows(text);
    expect(row).toEqual({ row: '1', "' =head": "'＝1+1" });
  });

  it('the run CSV: ids, systems, summaries and rating columns', () => {
    const rows = FORMULAS.map((f, i) => caseRow(i + 1, f, { [` =${i}`]: 3 }));
    const parsed = csvRows(runToCsv(namedRun('dev', rows)));
    expect(parsed).toHaveLength(FORMULAS.length);
    parsed.forEach((line, i) => {
      const formula = FORMULAS[i]!;
      expect(line.id).toBe(`'${formula}`);
      expect(line.system).toBe(`'${formula}`);
      expect(line.summary).toBe(`'${formula}`);
    });
    const header = Object.keys(parsed[0]!);
    expect(header.filter((h) => h.includes('(human)'))).toHaveLength(FORMULAS.length);
    for (const h of header) expect(h).not.toMatch(/^\s*[=+\-@＝＋－＠﹦﹢﹣﹫]/u);
  });

  it('the comparison CSVs: pair keys and backends', () => {
    const ids = [' =1+1', '\n=HYPERLINK("x")', '＝1+1', '＠SUM(A1)'];
    const report = handReport({}, { a: ids, b: [...ids, 'r5'] });
    expect(csvRows(comparisonPairsCsv(report)).map((r) => r.pair)).toEqual(
      ids.map((id) => `'${id}`),
    );
    const hostile = {
      ...report,
      comparison: {
        ...report.comparison,
        metrics: report.comparison.metrics.map((m) => ({
          ...m,
          backendA: ' =cmd',
          backendB: '＋1',
        })),
      },
    };
    const summary = csvRows(comparisonSummaryCsv(hostile));
    for (const line of summary) {
      expect(line['backend A']).toBe("' =cmd");
      expect(line['backend B']).toBe("'＋1");
    }
  });
});

/** Names that would be a link, an image, HTML, a code span or a broken table cell if written raw. */
const HOSTILE = [
  '[x](javascript:alert(1))',
  '![a](https://evil.example/p.png)',
  '<img src=x onerror=alert(1)>',
  'a | b `code` c',
  '*bold* _em_ ~~gone~~',
  'www.evil.example',
  'mail me@evil.example',
];

/** What each looks like escaped. */
const ESCAPED = [
  '\\[x\\](javascript:alert(1))',
  '!\\[a\\](https\\://evil.example/p.png)',
  '&lt;img src=x onerror=alert(1)>',
  'a \\| b \\`code\\` c',
  '\\*bold\\* \\_em\\_ \\~\\~gone\\~\\~',
  'www\\.evil.example',
  'mail me\\@evil.example',
];

/**
 * Markdown with its backslash escapes taken out: what is left forms no link or image (`](`), no
 * HTML (`<` before a letter), no code span, and nothing GitHub links by itself.
 */
function expectInert(md: string): void {
  const bare = md.replace(/\\./gsu, '');
  expect(bare).not.toMatch(/\]\(/u);
  expect(bare).not.toMatch(/<[a-z/!?]/iu);
  expect(bare).not.toContain('`');
  expect(bare).not.toMatch(/:\/\/|www\.|@/iu);
}

describe('Markdown exports: names are text', () => {
  it('the run report: data set, criterion, rating column, backend, judge model, task and note', () => {
    for (const [i, name] of HOSTILE.entries()) {
      const rows = [1, 2, 3].map((row) => caseRow(row, name, { [name]: row }));
      const md = runToMarkdown(namedRun(name, rows), { now: new Date(Date.UTC(2026, 0, 5)) });
      expectInert(md);
      const escaped = ESCAPED[i]!;
      expect(md).toContain(`# SumLens run report: ${escaped}`);
      expect(md).toContain(`| G-Eval: ${escaped} | ${escaped} |`);
      expect(md).toContain(`| ROUGE-L | ${escaped} (human) |`);
      expect(md).toContain(`- Judge: openai/${escaped}`);
      expect(md).toContain(`- Task: ${escaped}`);
      expect(md).toContain(`- Note: ${escaped}`);
    }
  });

  it('the comparison report: title, sides, systems, pair keys and backends', () => {
    for (const [i, name] of HOSTILE.entries()) {
      // r3 is the pair that loses on ROUGE-L: its key is listed under the regressions.
      const ids = ['r1', 'r2', name, 'r4'];
      const report = handReport({}, { a: ids, b: [...ids, 'r5'] });
      const side = { label: name, runName: name, datasetName: name, system: name };
      const hostile = {
        ...report,
        title: name,
        a: { ...report.a, ...side },
        b: { ...report.b, ...side },
        comparison: {
          ...report.comparison,
          metrics: report.comparison.metrics.map((m) => ({ ...m, backendA: name, backendB: name })),
        },
      };
      const md = comparisonToMarkdown(hostile, { regressions: 10 });
      expectInert(md);
      const escaped = ESCAPED[i]!;
      expect(md.startsWith(`# ${escaped}\n`)).toBe(true);
      expect(md).toContain(
        `- A (baseline): ${escaped} (run ${escaped}, data set ${escaped}, system ${escaped})`,
      );
      expect(md).toContain(`| ROUGE-L | ${escaped} |`);
      expect(md).toContain(`| ${escaped} | 3 | 3 |`);
    }
  });

  it('leaves plain names, underscores inside words and numbers as they were', () => {
    const rows = [1, 2, 3].map((row) => caseRow(row, 'plain', { expert_relevance: row }));
    const md = runToMarkdown(namedRun('dev (2)', rows));
    expect(md).toContain('# SumLens run report: dev (2)');
    expect(md).toContain('| ROUGE-L | expert_relevance (human) |');
  });
});
