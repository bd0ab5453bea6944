/**
 * The mapping editor end to end: a CSV with column names detection does not know opens the editor
 * before import; the user maps source, summary and reference, ticks a rating column and renames
 * it, sees specific problems (and no import) while a required field is mapped wrong, imports,
 * runs the offline metrics and sees the rows; "Change mapping" re-imports the file in place of the
 * data set. A prediction file whose name names no task asks for one; with trec chosen, the run's
 * task score equals the one computed here from the file. A QA data file without predictions whose
 * prompt columns have names detection does not know imports once the user ticks them as prompt
 * fields, its rows waiting for predictions to be generated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { sharedPath } from '../helpers/shared.ts';

/** What IndexedDB holds for the data sets (read in the page, as the app stored them). */
interface StoredDatasetView {
  id: string;
  name: string;
  kind: string;
  task?: string;
  rowCount: number;
  humanColumns: string[];
  mapping: Record<string, unknown>;
}

async function storedDatasets(page: Page): Promise<StoredDatasetView[]> {
  return page.evaluate(
    () =>
      new Promise<StoredDatasetView[]>((resolve, reject) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const request = open.result
            .transaction('datasets')
            .objectStore('datasets')
            .getAll() as IDBRequest<StoredDatasetView[]>;
          request.onsuccess = () => {
            open.result.close();
            resolve(request.result);
          };
          request.onerror = () => reject(request.error);
        };
      }),
  );
}

function runsOf(page: Page, datasetName: string) {
  return page.getByTestId('run-item').filter({ hasText: datasetName });
}

const dir = mkdtempSync(join(tmpdir(), 'sumlens-mapping-'));

/** Five reviewed summaries under column names no alias list knows. */
const reviews = [
  {
    article_body:
      'The city council approved a new riverside park on Monday. Construction starts in May and the park should open next spring. The project costs 4 million euros.',
    model_output: 'The council approved a riverside park that opens next spring.',
    gold_summary: 'A 4 million euro riverside park was approved and opens next spring.',
    grader_a: 4,
    word_count: 10,
    notes: '',
  },
  {
    article_body:
      'Heavy rain closed the coastal road for two days. Engineers inspected the cliffs before the road reopened on Thursday.',
    model_output: 'Rain closed the coastal road until Thursday.',
    gold_summary: 'The coastal road, closed by rain, reopened on Thursday after inspections.',
    grader_a: 5,
    word_count: 7,
    notes: 'clear',
  },
  {
    article_body:
      'The library extends its opening hours from June. It will open at 8 and close at 22 on weekdays, the director said.',
    model_output: 'The library will close at midnight every day.',
    gold_summary: 'From June the library opens 8 to 22 on weekdays.',
    grader_a: 1,
    word_count: 8,
    notes: 'wrong hours',
  },
  {
    article_body:
      'A local bakery won the national bread prize. The owners started the shop ten years ago with one oven.',
    model_output: 'A bakery won a national prize.',
    gold_summary: 'A ten-year-old local bakery won the national bread prize.',
    grader_a: 3,
    word_count: 6,
    notes: '',
  },
  {
    article_body:
      'The school will replace its heating system over the summer. Classes start as usual in September.',
    model_output: 'The school gets new heating this summer; classes start in September.',
    gold_summary: 'New heating at the school over summer; September classes unaffected.',
    grader_a: 5,
    word_count: 11,
    notes: '',
  },
];

describe('the mapping editor', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
  });

  afterAll(() => app?.close());

  it('maps unknown columns, flags a wrong mapping, imports, runs, and changes the mapping', async () => {
    const file = join(dir, 'reviews.csv');
    writeFileSync(file, Papa.unparse(reviews));
    const before = await page.getByTestId('dataset-item').count();
    await page.getByTestId('dataset-file').setInputFiles(file);

    const editor = page.getByTestId('mapping-editor');
    await editor.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('mapping-detected').innerText()).toMatch(
      /Unrecognised records.*article_body.*CSV · confidence 0%/u,
    );
    expect(await page.getByTestId('mapping-why').innerText()).toBe(
      'Not imported yet. The columns do not match a known kind of file: say which column is which.',
    );
    // Not imported while the editor is open.
    expect(await page.getByTestId('dataset-item').count()).toBe(before);
    const problems = page.getByTestId('mapping-problems');
    const importButton = page.getByTestId('mapping-import');
    expect(await problems.innerText()).toContain(
      'Choose the column that holds the source text (required).',
    );
    expect(await importButton.isDisabled()).toBe(true);

    await page.getByTestId('mapping-kind').selectOption('case');
    await page.getByTestId('mapping-field-source').selectOption('article_body');
    // A required field mapped to a column of numbers: a specific problem, and no import.
    await page.getByTestId('mapping-field-summary').selectOption('grader_a');
    expect(await problems.innerText()).toContain(
      "Column 'grader_a' holds only numbers in the sampled rows: it cannot be the summary, which is text.",
    );
    expect(await importButton.isDisabled()).toBe(true);
    // The same column for two fields.
    await page.getByTestId('mapping-field-summary').selectOption('article_body');
    expect(await problems.innerText()).toContain(
      "Column 'article_body' is read as both the source text and the summary",
    );
    expect(await importButton.isDisabled()).toBe(true);

    await page.getByTestId('mapping-field-summary').selectOption('model_output');
    await page.getByTestId('mapping-field-reference').selectOption('gold_summary');
    // word_count is numeric, so it was proposed as a rating: it is not one.
    expect(await page.getByTestId('mapping-human-word_count').isChecked()).toBe(true);
    await page.getByTestId('mapping-human-word_count').uncheck();
    // grader_a left its rating role when it was picked as the summary: tick it again, renamed.
    expect(await page.getByTestId('mapping-human-grader_a').isChecked()).toBe(false);
    await page.getByTestId('mapping-human-grader_a').check();
    await page.getByTestId('mapping-human-name-grader_a').fill('quality');
    expect(await problems.getAttribute('data-count')).toBe('0');
    expect(await problems.innerText()).toBe(
      'Read as: Cases (article_body, model_output, gold_summary): 5 rows, 1 human rating column (quality)',
    );

    const preview = page.getByTestId('mapping-preview');
    const previewRows = preview.getByTestId('mapping-preview-row');
    expect(await previewRows.count()).toBe(3);
    const first = await previewRows.first().innerText();
    expect(first).toContain(reviews[0]!.article_body);
    expect(first).toContain(reviews[0]!.model_output);
    expect(first).toContain('quality 4');
    expect(await preview.locator('thead').innerText()).toMatch(
      /row\s+Source text\s+Summary\s+Reference summary\s+Ratings/u,
    );

    expect(await importButton.innerText()).toBe('Import 5 rows');
    await importButton.click();
    await expect
      .poll(() => page.getByTestId('dataset-item').count(), { timeout: 30_000 })
      .toBe(before + 1);
    await expect
      .poll(() => page.getByTestId('mapping-read-as').innerText())
      .toMatch(/Read as: Cases \(article_body, model_output, gold_summary\): 5 rows.*quality/u);

    const stored = (await storedDatasets(page)).filter((d) => d.name === 'reviews');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      kind: 'case',
      rowCount: 5,
      humanColumns: ['quality'],
      mapping: {
        kind: 'case',
        source: 'article_body',
        summary: 'model_output',
        reference: 'gold_summary',
        human: [{ column: 'grader_a', name: 'quality' }],
      },
    });
    expect(stored[0]!.task).toBeUndefined();

    const item = page.getByTestId('dataset-item').filter({ hasText: 'reviews' });
    expect(await item.innerText()).toContain('quality');
    await item.getByTestId('run-offline').click();
    const run = runsOf(page, 'reviews').first();
    await expect.poll(() => run.innerText(), { timeout: 90_000 }).toMatch(/done · 5\/5 rows/u);
    await run.getByTestId('run-open').click();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(5);
    expect(await page.getByTestId('run-summary').innerText()).toMatch(/ROUGE-L\s+0\.\d+/u);
    // The ratings are there to calibrate against (the calibration worker reads the run itself,
    // after the view shows it).
    await expect
      .poll(() => page.locator('[data-testid="calibration-row"][data-human="quality"]').count())
      .toBeGreaterThan(0);

    // Change the mapping of the file just imported: it replaces the data set (and its run).
    await page.getByTestId('mapping-change').click();
    await editor.waitFor();
    expect(await page.getByTestId('mapping-field-source').inputValue()).toBe('article_body');
    expect(await page.getByTestId('mapping-human-name-grader_a').inputValue()).toBe('quality');
    await page.getByTestId('mapping-field-reference').selectOption('');
    await page.getByTestId('mapping-human-word_count').check();
    await page.getByTestId('mapping-import').click();
    await expect
      .poll(async () => (await storedDatasets(page)).filter((d) => d.name === 'reviews'), {
        timeout: 30_000,
      })
      .toEqual([
        expect.objectContaining({
          humanColumns: ['quality', 'word_count'],
          mapping: expect.not.objectContaining({ reference: expect.anything() }),
        }),
      ]);
    expect(await page.getByTestId('dataset-item').count()).toBe(before + 1);
    expect(await runsOf(page, 'reviews').count()).toBe(0);
    expect(await page.getByTestId('run-view').count()).toBe(0);

    // Cancel leaves the data set as it is.
    await page.getByTestId('mapping-change').click();
    await page.getByTestId('mapping-cancel').click();
    expect(await editor.count()).toBe(0);
    expect(await page.getByTestId('mapping-read-as').innerText()).toMatch(/Read as: Cases/u);

    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });

  it('asks for the task of a prediction file whose name names none, and scores it', async () => {
    const lines = readFileSync(sharedPath('data/tinyeval/pred/internlm/trec.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(0, 120);
    const file = join(dir, 'model-outputs.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');

    await page.getByTestId('dataset-file').setInputFiles(file);
    const editor = page.getByTestId('mapping-editor');
    await editor.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('mapping-kind').inputValue()).toBe('prediction');
    expect(await page.getByTestId('mapping-field-prediction').inputValue()).toBe('pred');
    expect(await page.getByTestId('mapping-field-answers').inputValue()).toBe('answers');
    expect(await page.getByTestId('mapping-field-allClasses').inputValue()).toBe('all_classes');
    expect(await page.getByTestId('mapping-problems').innerText()).toBe(
      'Choose the task that scores these predictions (trec, multi_news, custom:rouge-l, …): without one they cannot be scored.',
    );
    expect(await page.getByTestId('mapping-import').isDisabled()).toBe(true);

    await page.getByTestId('mapping-task').selectOption('trec');
    expect(await page.getByTestId('mapping-problems').getAttribute('data-count')).toBe('0');
    await page.getByTestId('mapping-import').click();
    const item = page.getByTestId('dataset-item').filter({ hasText: 'model-outputs' });
    await expect.poll(() => item.count(), { timeout: 30_000 }).toBe(1);
    expect(await item.innerText()).toMatch(/prediction · trec\s+120/u);
    const stored = (await storedDatasets(page)).find((d) => d.name === 'model-outputs');
    expect(stored).toMatchObject({ kind: 'prediction', task: 'trec', rowCount: 120 });

    await item.getByTestId('run-offline').click();
    const run = runsOf(page, 'model-outputs').first();
    await expect.poll(() => run.innerText(), { timeout: 60_000 }).toMatch(/done · 120\/120/u);
    await run.getByTestId('run-open').click();
    const summary = await page.getByTestId('run-summary').innerText();

    // trec as TinyEval scores it: the prediction's first line; the labels of all_classes it
    // contains, less those that are part of the answer without being it; 1/(labels named) when
    // the answer is among them, else 0; the best over the answers; the mean over the rows.
    let total = 0;
    for (const line of lines) {
      const row = JSON.parse(line) as { pred: string; answers: string[]; all_classes: string[] };
      const firstLine = row.pred.replace(/^\n+/u, '').split('\n')[0]!;
      let best = 0;
      for (const answer of row.answers) {
        const named = row.all_classes.filter(
          (c) => firstLine.includes(c) && !(answer.includes(c) && c !== answer),
        );
        best = Math.max(best, named.includes(answer) ? 1 / named.length : 0);
      }
      total += best;
    }
    const expected = (total / lines.length).toFixed(3);
    expect(summary, summary).toMatch(
      new RegExp(`Task trec\\s+${expected.replace('.', '\\.')}\\s`, 'u'),
    );
  });
  it('reads unknown prompt columns as prompt fields, so rows without a prediction import', async () => {
    const qa = [
      {
        passage: 'The bridge opened in 1932 after six years of work.',
        question: 'When did the bridge open?',
        answers: ['1932', 'in 1932'],
      },
      {
        passage: 'The museum holds 4,000 paintings, most of them Dutch.',
        question: 'How many paintings does the museum hold?',
        answers: ['4,000'],
      },
      {
        passage: 'The ferry leaves at seven and takes forty minutes to cross.',
        question: 'How long does the crossing take?',
        answers: ['forty minutes', '40 minutes'],
      },
    ];
    const file = join(dir, 'qa-data.jsonl');
    writeFileSync(file, qa.map((r) => JSON.stringify(r)).join('\n') + '\n');

    await page.getByTestId('dataset-file').setInputFiles(file);
    const editor = page.getByTestId('mapping-editor');
    await editor.waitFor({ timeout: 30_000 });
    await page.getByTestId('mapping-kind').selectOption('prediction');
    await page.getByTestId('mapping-field-answers').selectOption('answers');
    const problems = page.getByTestId('mapping-problems');
    expect(await problems.innerText()).toContain(
      "Choose the column that holds the model's prediction (required), or tick the prompt fields to generate predictions from.",
    );
    // A column read as a field is not offered as a prompt field.
    expect(await page.getByTestId('mapping-prompt-field-answers').isDisabled()).toBe(true);

    await page.getByTestId('mapping-prompt-field-passage').check();
    const passageName = page.getByTestId('mapping-prompt-name-passage');
    expect(await passageName.inputValue()).toBe('passage');
    await passageName.fill('the context');
    expect(await problems.innerText()).toContain(
      "Prompt field name 'the context' (column 'passage') may hold only letters, digits and _",
    );
    await passageName.fill('context');
    await page.getByTestId('mapping-prompt-field-question').check();
    const questionName = page.getByTestId('mapping-prompt-name-question');
    await questionName.fill('context');
    expect(await problems.innerText()).toContain(
      "Columns 'passage' and 'question' are both named prompt field 'context': rename one.",
    );
    expect(await page.getByTestId('mapping-import').isDisabled()).toBe(true);
    await questionName.fill('input');
    await page.getByTestId('mapping-task').selectOption('custom:token-f1');
    expect(await problems.getAttribute('data-count')).toBe('0');

    const preview = page.getByTestId('mapping-preview');
    expect(await preview.locator('thead').innerText()).toMatch(
      /row\s+Answers\s+\{context\}\s+\{input\}/u,
    );
    expect(await preview.getByTestId('mapping-preview-row').first().innerText()).toContain(
      qa[0]!.question,
    );

    await page.getByTestId('mapping-import').click();
    const item = page.getByTestId('dataset-item').filter({ hasText: 'qa-data' });
    await expect.poll(() => item.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => item.innerText()).toMatch(/3, 3 without prediction/u);
    expect(await item.getByTestId('generate-open').count()).toBe(1);
    const stored = (await storedDatasets(page)).find((d) => d.name === 'qa-data');
    expect(stored).toMatchObject({
      kind: 'prediction',
      task: 'custom:token-f1',
      rowCount: 3,
      mapping: { answers: 'answers', fields: { context: 'passage', input: 'question' } },
    });
    expect(stored?.mapping).not.toHaveProperty('prediction');
  });
});
