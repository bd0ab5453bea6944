import 'fake-indexeddb/auto';
import Papa from 'papaparse';
import { describe, expect, it, vi } from 'vitest';
import { runToCsv } from '../../../src/lib/datasets/export/csv.ts';
import { exportFile, exportFileName } from '../../../src/lib/datasets/export/file.ts';
import {
  importRunExport,
  parseRunExport,
  runToJson,
} from '../../../src/lib/datasets/export/json.ts';
import { runToMarkdown } from '../../../src/lib/datasets/export/markdown.ts';
import { spreadsheetSafe } from '../../../src/lib/datasets/export/spreadsheet.ts';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { loadRunData, RUN_READ_BATCH, type RunData } from '../../../src/lib/datasets/run-data.ts';
import {
  calibrationInput,
  finiteValues,
  ratingPairs,
  runCalibration,
  runView,
  scoreColumns,
  scoreTable,
  sortedIndexes,
  summarizeScores,
  valuePairs,
} from '../../../src/lib/datasets/run-view.ts';
import {
  calibrate,
  scatterPoints,
  scoreKey,
  scoresOf,
} from '../../../src/lib/datasets/calibration.ts';
import { createBatchRun } from '../../../src/lib/datasets/batch.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { getRun, putRowResult, updateRun } from '../../../src/lib/storage/runs.ts';
import { REDACTED } from '../../../src/lib/llm/redact.ts';
import { ALNUM, keyChars, URLSAFE } from '../../helpers/fake-keys.ts';
import { fakeResult } from '../metrics/scored.ts';

const TRICKY = 'He said "stop, now",\nthen left; a | pipe and a trailing space ';

const ROWS: DatasetRow[] = [
  {
    row: 1,
    kind: 'case',
    id: 'a1',
    group: 'doc1',
    system: 'M1',
    input: { source: 'Source one.', summary: TRICKY, reference: 'Ref one.' },
    human: { relevance: 4, coherence: 3 },
  },
  {
    row: 2,
    kind: 'case',
    id: '=HYPERLINK("http://evil")',
    group: 'doc1',
    input: { source: 'Source two.', summary: '=SUM(A1:A9)', reference: 'Ref two.' },
    human: { relevance: 2, coherence: -1 },
  },
  {
    row: 3,
    kind: 'case',
    id: 'a3',
    group: 'doc1',
    input: { source: 'Source three.', summary: '@cmd and +more', reference: 'Ref three.' },
    human: { relevance: 3, coherence: 3 },
  },
  {
    row: 4,
    kind: 'case',
    id: 'a4',
    group: 'doc2',
    input: { source: 'Source four.', summary: 'Plain.', reference: 'Ref four.' },
    human: { relevance: 5, coherence: 4 },
  },
  {
    row: 5,
    kind: 'case',
    id: 'a5',
    group: 'doc2',
    input: { source: 'Source five.', summary: 'Not scored yet.', reference: 'Ref five.' },
    human: { relevance: 1, coherence: 2 },
  },
];

function metric(
  id: MetricResult['id'],
  score: number | null,
  extra: Partial<MetricResult> = {},
): MetricResult {
  return fakeResult({
    id,
    status: score === null ? 'n/a' : 'ok',
    score,
    explanation: `score ${score}`,
    backend: id.startsWith('geval') ? 'judge:openai/gpt-4o-mini' : 'rouge_score-0.1.2 (porter)',
    ...extra,
  });
}

const SCORES: Record<number, [number | null, number]> = {
  1: [0.5, 3.5],
  2: [0.25, 2],
  3: [null, 4],
  4: [0.75, 4.5],
};

async function makeRun(suffix: string): Promise<RunData> {
  const dataset = await saveDataset(
    {
      id: `ds-${suffix}`,
      name: `SummEval sample ${suffix}`,
      createdAt: Date.UTC(2026, 0, 2),
      kind: 'case',
      format: 'jsonl',
      mapping: { kind: 'case', source: 'source', summary: 'summary', human: [] },
      problems: { count: 1, examples: [{ row: 6, reason: 'row 6: not valid JSON' }] },
      fileName: 'sample.jsonl',
    },
    ROWS,
  );
  const run = await createBatchRun({
    dataset,
    metrics: ['rouge-l', 'geval-custom'],
    settings: {
      metrics: DEFAULT_SETTINGS,
      // A key must never travel with an export, even if some code put one here.
      judge: { ...DEFAULT_JUDGE_SETTINGS, apiKey: 'sk-live-should-not-leak-123' } as never,
    },
    judge: { provider: 'openai', model: 'gpt-4o-mini' },
    appVersion: 'test',
    id: `run-${suffix}`,
    now: Date.UTC(2026, 0, 3, 10, 30),
  });
  for (const [row, [rouge, custom]] of Object.entries(SCORES)) {
    await putRowResult({
      runId: run.id,
      row: Number(row),
      status: 'done',
      results: [
        metric('rouge-l', rouge),
        metric('geval-custom', custom, {
          details: { criterion: 'Tone' },
          explanation: 'Echoed key sk-proj-abcdefghijklmnop in an error body',
        }),
      ],
      judge: { input: 100, output: 20, calls: 2, httpCalls: 2, cachedCalls: 0, cost: 0.001 },
      finishedAt: 10,
      elapsedMs: 5,
    });
  }
  await updateRun(run.id, { status: 'paused' });
  return loadRunData(run.id);
}

describe('JSON export', () => {
  it('round-trips: export → import gives the same rows and results', async () => {
    const data = await makeRun('json');
    const text = runToJson(data, { now: new Date(Date.UTC(2026, 0, 4)) });
    const parsed = parseRunExport(text);
    let n = 0;
    const imported = await importRunExport(parsed, { newId: () => `copy-${++n}` });
    expect(imported.dataset.id).toBe('copy-1');
    expect(imported.run.id).toBe('copy-2');
    expect(imported.run.datasetId).toBe('copy-1');

    const back = await loadRunData(imported.run.id);
    expect(back.rows).toEqual(data.rows);
    const strip = (r: (typeof data.results)[number]) => ({ ...r, runId: undefined });
    expect(back.results.map(strip)).toEqual(parseRunExport(text).results.map(strip));
    expect(back.results.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    expect(back.results[0].results[0]).toEqual(data.results[0].results[0]);
    expect(back.run.metrics).toEqual(data.run.metrics);
    expect(back.run.counts).toEqual(data.run.counts);
    expect(back.run.judgeUsage).toEqual(data.run.judgeUsage);
    expect(back.run.backends).toEqual(data.run.backends);
    expect(back.run.status).toBe('paused');
    // Its original is still stored: the copy and its run are named apart.
    expect(back.run.name).toBe(`${data.dataset.name} (2) · run 1`);
    expect(back.run.datasetName).toBe(`${data.dataset.name} (2)`);
    expect(back.dataset).toMatchObject({
      name: `${data.dataset.name} (2)`,
      rowCount: 5,
      humanColumns: ['relevance', 'coherence'],
      problems: data.dataset.problems,
      mapping: data.dataset.mapping,
    });
    // The CSV of the copy equals the CSV of the original.
    expect(runToCsv(back)).toBe(runToCsv(data));
  });

  it('an exported run that was running comes in paused, saying why: no spend without Resume', async () => {
    const data = await makeRun('was-running');
    const text = runToJson({ ...data, run: { ...data.run, status: 'running' } });
    const imported = await importRunExport(parseRunExport(text));
    const back = await getRun(imported.run.id);
    expect(back?.status).toBe('paused');
    expect(back?.messageRef?.key).toBe('runs.import.paused');
    expect(back?.message).toMatch(/Press Resume/u);
    const finished = runToJson({ ...data, run: { ...data.run, status: 'done' } });
    const done = await importRunExport(parseRunExport(finished));
    expect((await getRun(done.run.id))?.status).toBe('done');
    expect((await getRun(done.run.id))?.messageRef).toBeUndefined();
  });

  it('never carries an API key', async () => {
    const data = await makeRun('keys');
    const text = runToJson(data, { secrets: ['my-local-secret-key'] });
    expect(text).not.toMatch(/sk-live|sk-proj-abc|apiKey/u);
    expect(text).toContain('<redacted>');
    expect(JSON.parse(text).run.settings.judge.beta).toBe(DEFAULT_JUDGE_SETTINGS.beta);
  });

  it('refuses files that are not run exports, with the reason', async () => {
    expect(() => parseRunExport('not json')).toThrow(/not JSON/u);
    expect(() => parseRunExport('{"format":"other"}')).toThrow(/not a SumLens run export/u);
    const data = JSON.parse(runToJson(await makeRun('bad')));
    data.results[0].results[0].id = 'no-such-metric';
    expect(() => parseRunExport(JSON.stringify(data))).toThrow(/results\.0\.results\.0\.id/u);
    data.results[0].results[0].id = 'rouge-l';
    data.rows = data.rows.slice(1);
    expect(() => parseRunExport(JSON.stringify(data))).toThrow(/results for row 1/u);
  });
});

describe('JSON export redacts keys, not words', () => {
  const pick = keyChars(7);
  /** A key in use: passed to the export, and shaped like an OpenAI project key too. */
  const CANARY = `sk-proj-${pick(URLSAFE, 48)}`;
  /** Not passed as a key in use: gone only because it has a Groq key's shape. */
  const SHAPED = `gsk_${pick(ALNUM, 52)}`;
  /** A key in use with no known shape (a self-hosted gateway's token). */
  const PLAIN = 'gateway-token-for-the-lab';

  function claim(index: number, text: string, reason: string, quote: string) {
    return { index, claim: text, verdict: 'supported', reason, quote, sourceSpan: null };
  }

  const CLAIMS = [
    claim(
      0,
      'The classifier was trained with sk-learn.',
      'The source says it was "trained with sk-learn" on 2,000 articles.',
      'trained with sk-learn',
    ),
    claim(
      1,
      'Bearer bonds rose 3% in March.',
      'Quoted: "Bearer bonds rose 3%"; the bearer of bad news was the treasurer.',
      'Bearer bonds rose 3%',
    ),
    claim(
      2,
      "sk-learn's defaults and the task-sk-1 baseline are risk-free to reuse.",
      `The judge echoed ${CANARY} here, and ${SHAPED}, and ${PLAIN}.`,
      `key ${CANARY}`,
    ),
  ];

  async function claimsRun(suffix: string): Promise<RunData> {
    const dataset = await saveDataset(
      {
        id: `ds-claims-${suffix}`,
        name: 'Claims with key-like words',
        createdAt: Date.UTC(2026, 0, 2),
        kind: 'case',
        format: 'jsonl',
        mapping: { kind: 'case', source: 'source', summary: 'summary', human: [] },
        problems: { count: 0, examples: [] },
        fileName: 'claims.jsonl',
      },
      [
        {
          row: 1,
          kind: 'case',
          input: {
            source: 'The classifier was trained with sk-learn. Bearer bonds rose 3% in March.',
            summary: 'Trained with sk-learn; Bearer bonds rose 3%.',
          },
          human: {},
        },
      ],
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['alignment'],
      settings: { metrics: DEFAULT_SETTINGS, judge: DEFAULT_JUDGE_SETTINGS },
      judge: { provider: 'openai', model: 'gpt-4o-mini' },
      appVersion: 'test',
      id: `run-claims-${suffix}`,
      now: Date.UTC(2026, 0, 3),
    });
    await putRowResult({
      runId: run.id,
      row: 1,
      status: 'done',
      results: [
        fakeResult({
          id: 'alignment',
          status: 'ok',
          score: 1,
          explanation: `3 of 3 claims supported (trained with sk-learn; Bearer bonds rose 3%; ${CANARY})`,
          backend: 'judge:openai/gpt-4o-mini',
          details: { claims: CLAIMS, audit: { calls: [{ error: `Bearer ${SHAPED} refused` }] } },
        }),
      ],
      finishedAt: 10,
      elapsedMs: 5,
    });
    await updateRun(run.id, { status: 'paused', message: `Stopped: key ${CANARY} rejected.` });
    return loadRunData(run.id);
  }

  it('keeps claims, reasons and quotes byte for byte, and removes the canaries everywhere', async () => {
    const data = await claimsRun('round-trip');
    const text = runToJson(data, { secrets: [CANARY, PLAIN, 'ollama'] });
    for (const secret of [CANARY, SHAPED, PLAIN]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(-12));
    }

    const parsed = parseRunExport(text);
    const imported = await importRunExport(parsed, { newId: () => crypto.randomUUID() });
    const back = await loadRunData(imported.run.id);
    const clean = (s: string) =>
      s.replaceAll(CANARY, REDACTED).replaceAll(SHAPED, REDACTED).replaceAll(PLAIN, REDACTED);
    const expected = CLAIMS.map((c) => ({
      ...c,
      claim: clean(c.claim),
      reason: clean(c.reason),
      quote: clean(c.quote),
    }));
    for (const result of [parsed.results[0], back.results[0]]) {
      const details = result.results[0].details as { claims: typeof CLAIMS };
      expect(JSON.stringify(details.claims)).toBe(JSON.stringify(expected));
      expect(result.results[0].explanation).toBe(
        `3 of 3 claims supported (trained with sk-learn; Bearer bonds rose 3%; ${REDACTED})`,
      );
      expect(JSON.stringify(result)).not.toMatch(/sk-proj-|gsk_|gateway-token/u);
    }
    // The first two claims come back exactly as the judge wrote them.
    expect(expected.slice(0, 2)).toEqual(CLAIMS.slice(0, 2));
    expect(back.run.message).toBe(`Stopped: key ${REDACTED} rejected.`);
    expect(back.rows).toEqual(data.rows);
    // The copy holds no secret any more: exporting it again, with or without them, is the same.
    const now = new Date(Date.UTC(2026, 0, 5));
    expect(runToJson(back, { secrets: [CANARY, PLAIN], now })).toBe(runToJson(back, { now }));
  });

  it('without the key in use, a pattern-shaped canary still goes and a shapeless one stays', async () => {
    const text = runToJson(await claimsRun('patterns'));
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(SHAPED);
    // Only a key the page holds can be removed when it has no key's shape.
    expect(text).toContain(PLAIN);
    expect(text).toContain('trained with sk-learn');
    expect(text).toContain('Bearer bonds rose 3%');
  });
});

describe('CSV export', () => {
  it('heads the score and rating columns in the page’s language, the ids kept in brackets', async () => {
    const data = await makeRun('csv-ru');
    const ru = await loadWords('ru');
    const en = Papa.parse<string[]>(runToCsv(data)).data;
    const ruCsv = Papa.parse<string[]>(runToCsv(data, { words: ru })).data;
    expect(ruCsv[0]).toContain('relevance (люди) [human:relevance]');
    expect(ruCsv[0]).toContain('G-Eval: Tone [geval-custom:Tone]');
    const id = (header: string) => /\[([^\]]+)\]$/u.exec(header)?.[1] ?? header;
    expect(ruCsv[0]!.map(id)).toEqual(en[0]!.map(id));
    expect(ruCsv.slice(1)).toEqual(en.slice(1));
    // The same words reach the file the calibration worker builds for a Russian page.
    expect(exportFile(data, 'csv', { words: ru }).text).toBe(runToCsv(data, { words: ru }));
  });

  it('has one line per row, one column per metric, and reads back with papaparse', async () => {
    const data = await makeRun('csv');
    const csv = runToCsv(data);
    const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([
      'row',
      'id',
      'group',
      'system',
      'status',
      'summary',
      'relevance (human) [human:relevance]',
      'coherence (human) [human:coherence]',
      'ROUGE-L [rouge-l]',
      'G-Eval: Tone [geval-custom:Tone]',
      'error',
    ]);
    expect(parsed.data).toHaveLength(5);
    const [first, second, third, fourth, fifth] = parsed.data;
    // Quotes, commas, newlines and trailing spaces survive.
    expect(first.summary).toBe(TRICKY);
    expect(first).toMatchObject({
      row: '1',
      id: 'a1',
      group: 'doc1',
      system: 'M1',
      status: 'done',
      'relevance (human) [human:relevance]': '4',
      'ROUGE-L [rouge-l]': '0.5',
      'G-Eval: Tone [geval-custom:Tone]': '3.5',
    });
    // Formula injection: text cells starting with = + - @ are neutralised; numbers are not.
    expect(second.id).toBe(`'=HYPERLINK("http://evil")`);
    expect(second.summary).toBe("'=SUM(A1:A9)");
    expect(second['coherence (human) [human:coherence]']).toBe('-1');
    expect(third.summary).toBe("'@cmd and +more");
    expect(third['ROUGE-L [rouge-l]']).toBe('');
    expect(fourth['ROUGE-L [rouge-l]']).toBe('0.75');
    expect(fifth).toMatchObject({
      status: 'pending',
      'ROUGE-L [rouge-l]': '',
      'G-Eval: Tone [geval-custom:Tone]': '',
    });
  });

  it('neutralises multi-line formula cells too', () => {
    expect(spreadsheetSafe('=1+1\nsecond line')).toBe("'=1+1\nsecond line");
    expect(spreadsheetSafe('-x')).toBe("'-x");
    expect(spreadsheetSafe('\tx')).toBe("'\tx");
    expect(spreadsheetSafe('plain')).toBe('plain');
  });
});

describe('Markdown report', () => {
  it('holds the run, the summary table and the calibration table', async () => {
    const data = await makeRun('md');
    const md = runToMarkdown(data, { now: new Date(Date.UTC(2026, 0, 5, 8, 0)) });
    expect(md).toContain('# SumLens run report: SummEval sample md');
    expect(md).toContain('- Data set: SummEval sample md (case, 5 rows)');
    expect(md).toContain('started 2026-01-03 10:30 UTC, paused');
    expect(md).toContain('- Rows scored: 4 of 5');
    expect(md).toContain('- Judge: openai/gpt-4o-mini: 8 calls (8 sent, 0 from cache)');
    expect(md).toContain('## Scores');
    expect(md).toContain('| Metric | Backend | Mean | Median | n | n/a | Errors |');
    // ROUGE-L: 0.5, 0.25, 0.75 (row 3 n/a) → mean 0.5, median 0.5.
    expect(md).toContain('| ROUGE-L | rouge_score-0.1.2 (porter) | 0.500 | 0.500 | 3 | 1 | 0 |');
    // Tone: 3.5, 2, 4, 4.5 → mean 3.5, median 3.75.
    expect(md).toContain('| G-Eval: Tone | judge:openai/gpt-4o-mini | 3.500 | 3.750 | 4 | 0 | 0 |');
    expect(md).toContain('## Calibration against human ratings');
    expect(md).toMatch(/\| Metric \| Human \| n \| Spearman ρ \| Kendall τ-b \| Pearson r \|/u);

    const calibration = runCalibration(data);
    const pair = calibration.pairs.find((p) => p.metric === 'rouge-l' && p.human === 'relevance')!;
    expect(pair.pooled.n).toBe(3);
    const line = md.split('\n').find((l) => l.startsWith('| ROUGE-L | relevance (human) |'))!;
    expect(line).toContain(`| 3 | ${pair.pooled.values.spearman!.toFixed(3)} |`);
    expect(summarizeScores(data.run, data.results).map((s) => s.column)).toEqual([
      'rouge-l',
      'geval-custom:Tone',
    ]);
    expect(exportFileName(data, 'md')).toBe('sumlens-SummEval-sample-md-2026-01-03.md');
  });
});

describe('loading a run for the page', () => {
  it('reads rows and results a small batch at a time, all of them, in row order', async () => {
    const many: DatasetRow[] = Array.from({ length: 2 * RUN_READ_BATCH + 17 }, (_, i) => ({
      row: i + 1,
      kind: 'case',
      group: `doc${i % 7}`,
      input: { source: `Source ${i}.`, summary: `Summary ${i}.` },
      human: { relevance: (i % 5) + 1 },
    }));
    const dataset = await saveDataset(
      {
        id: 'ds-many',
        name: 'Many rows',
        createdAt: 1,
        kind: 'case',
        mapping: { kind: 'case', source: 'source', summary: 'summary', human: [] },
        problems: { count: 0, examples: [] },
      },
      many,
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['rouge-l'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
      id: 'run-many',
    });
    // Every other row scored.
    for (const row of many.filter((r) => r.row % 2 === 0)) {
      await putRowResult({
        runId: run.id,
        row: row.row,
        status: 'done',
        results: [metric('rouge-l', row.row / 1000)],
        finishedAt: 1,
        elapsedMs: 1,
      });
    }
    const counts: Array<number | undefined> = [];
    const realGetAll = IDBObjectStore.prototype.getAll;
    const spy = vi.spyOn(IDBObjectStore.prototype, 'getAll').mockImplementation(function (
      this: IDBObjectStore,
      ...args
    ) {
      counts.push(args[1]);
      return realGetAll.apply(this, args);
    });
    const data = await loadRunData(run.id);
    spy.mockRestore();
    expect(data.rows).toEqual(many);
    expect(data.results.map((r) => r.row)).toEqual(
      many.filter((r) => r.row % 2 === 0).map((r) => r.row),
    );
    // 217 rows in 3 reads, 108 results in 2: none larger than the batch.
    expect(counts).toHaveLength(5);
    expect(counts.every((c) => c === RUN_READ_BATCH)).toBe(true);
  });

  it('gives the calibration worker numbers only, and the same calibration as the run', async () => {
    const data = await makeRun('input');
    const input = calibrationInput(data);
    expect(input.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    expect(input[0]).toEqual({
      row: 1,
      group: 'doc1',
      scores: { 'rouge-l': 0.5, 'geval-custom:Tone': 3.5 },
      human: { relevance: 4, coherence: 3 },
    });
    expect(JSON.stringify(input)).not.toContain('Source one');
    expect(calibrate(input)).toEqual(runCalibration(data));
  });

  it('writes a given calibration into the Markdown report instead of computing one', async () => {
    const data = await makeRun('given');
    const computed = runCalibration(data);
    const given = {
      ...computed,
      pairs: computed.pairs.map((p) => ({
        ...p,
        pooled: { ...p.pooled, values: { ...p.pooled.values, spearman: 0.123456 } },
      })),
    };
    const md = runToMarkdown(data, { calibration: given });
    const line = md.split('\n').find((l) => l.startsWith('| ROUGE-L | relevance (human) |'))!;
    expect(line).toContain('| 3 | 0.123 |');
  });
});

describe('summarizeScores in one pass', () => {
  /** The column-by-column definition it replaced. */
  function perColumn(data: Pick<RunData, 'run' | 'results'>) {
    return scoreColumns(data.run, data.results).map((column) => {
      const values: number[] = [];
      let notApplicable = 0;
      let errors = 0;
      for (const r of data.results) {
        if (r.task && `task:${r.task.task}` === column) values.push(r.task.score);
        for (const m of r.results) {
          if (scoreKey(m) !== column) continue;
          if (m.status === 'ok' && m.score !== null && Number.isFinite(m.score)) {
            values.push(m.score);
          } else if (m.status === 'n/a') notApplicable++;
          else errors++;
        }
      }
      values.sort((a, b) => a - b);
      const mean = values.length > 0 ? values.reduce((s, v) => s + v, 0) / values.length : null;
      const mid = Math.floor(values.length / 2);
      const median =
        values.length === 0
          ? null
          : values.length % 2 === 1
            ? values[mid]
            : (values[mid - 1] + values[mid]) / 2;
      return { column, n: values.length, mean, median, notApplicable, errors };
    });
  }

  it('gives what the per-column definition gives, with n/a, errors, custom criteria and tasks', async () => {
    const data = await makeRun('summary');
    const results = [
      ...data.results,
      {
        ...data.results[0],
        row: 9,
        results: [
          metric('rouge-l', Number.NaN),
          { ...metric('rouge-l', null), status: 'error' as const },
          metric('geval-custom', 1, { details: { criterion: 'Brevity' } }),
        ],
        task: { task: 'trec', metric: 'classification', score: 1, perAnswer: [1] },
      },
    ];
    const mixed = { run: data.run, results };
    expect(summarizeScores(mixed.run, mixed.results)).toEqual(perColumn(mixed));
    expect(summarizeScores(mixed.run, mixed.results).map((s) => s.column)).toEqual([
      'rouge-l',
      'geval-custom:Tone',
      'geval-custom:Brevity',
      'task:trec',
    ]);
  });
});

describe('the run view’s score table', () => {
  async function mixedRun(suffix: string) {
    const data = await makeRun(suffix);
    const results = [
      ...data.results,
      {
        ...data.results[0],
        row: 9,
        status: 'failed' as const,
        results: [
          metric('rouge-l', Number.NaN),
          metric('geval-custom', 1, { details: { criterion: 'Brevity' } }),
        ],
        task: { task: 'trec', metric: 'classification', score: 0.5, perAnswer: [0.5] },
      },
    ];
    return { run: data.run, rows: data.rows, results };
  }

  it('holds each result’s scores by column, as scoresOf reads them, NaN where there is none', async () => {
    const { run, results } = await mixedRun('table');
    const table = scoreTable(run, results);
    expect(table.columns).toEqual(scoreColumns(run, results));
    expect(table.rows).toEqual([1, 2, 3, 4, 9]);
    expect(table.failed).toEqual([false, false, false, false, true]);
    results.forEach((r, i) => {
      const scores: Record<string, number | null> = scoresOf(r.results);
      if (r.task) scores[`task:${r.task.task}`] = r.task.score;
      for (const column of table.columns) {
        const expected = scores[column];
        const got = table.values.get(column)![i];
        if (expected === null || expected === undefined) expect(got, column).toBeNaN();
        else expect(got, column).toBe(expected);
      }
    });
    expect(table.summary).toEqual(summarizeScores(run, results));
  });

  it('gives the histogram, the scatter and the sorted table their inputs', async () => {
    const { run, results } = await mixedRun('inputs');
    const table = scoreTable(run, results);
    // rouge-l: 0.5, 0.25, n/a, 0.75, NaN.
    expect(finiteValues(table, 'rouge-l')).toEqual([0.5, 0.25, 0.75]);
    expect(finiteValues(table, 'no such column')).toEqual([]);
    expect(valuePairs(table, 'rouge-l', 'geval-custom:Tone')).toEqual([
      { x: 0.5, y: 3.5 },
      { x: 0.25, y: 2 },
      { x: 0.75, y: 4.5 },
    ]);
    // Descending: the scored rows by score, then the rows without one in their order.
    expect(sortedIndexes(table, 'rouge-l', true).map((i) => table.rows[i])).toEqual([
      4, 1, 2, 3, 9,
    ]);
    expect(sortedIndexes(table, 'rouge-l', false).map((i) => table.rows[i])).toEqual([
      3, 9, 2, 1, 4,
    ]);
    expect(sortedIndexes(table, 'row', true).map((i) => table.rows[i])).toEqual([9, 4, 3, 2, 1]);
    expect(sortedIndexes(table, 'task:trec', true).map((i) => table.rows[i])).toEqual([
      9, 1, 2, 3, 4,
    ]);
  });

  it('lines the ratings up with the table, for the metric-against-rating scatter', async () => {
    const { run, rows, results } = await mixedRun('ratings');
    const view = runView(run, rows, results);
    expect(view.table).toEqual(scoreTable(run, results));
    // Row 9 has results but no row in the data set, row 5 a row but no results.
    expect([...view.ratings.get('relevance')!]).toEqual([4, 2, 3, 5, Number.NaN]);
    // The points the calibration pairs up, task scores included (as in the calibration matrix).
    const input = calibrationInput({ rows, results });
    for (const metric of ['rouge-l', 'geval-custom:Tone', 'task:trec']) {
      expect(ratingPairs(view, metric, 'coherence'), metric).toEqual(
        scatterPoints(input, metric, 'coherence').map(({ x, y }) => ({ x, y })),
      );
    }
    expect(ratingPairs(view, 'rouge-l', 'no such rating')).toEqual([]);
  });
});
