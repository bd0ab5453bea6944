import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { comparisonFile } from '../../../src/lib/datasets/export/file.ts';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { comparisonTitle } from '../../../src/lib/datasets/export/comparison-report.ts';
import { handReport } from './_comparison.ts';

const report = handReport();
const ru = await loadWords('ru');

function csv(text: string): { fields: string[]; rows: string[][] } {
  const parsed = Papa.parse<string[]>(text, { header: false }).data;
  return { fields: parsed[0]!, rows: parsed.slice(1) };
}

/** Every number a text holds (scores, differences, p-values, counts), in order. */
function numbers(text: string): string[] {
  return text.match(/[+−-]?\d+(?:\.\d+)?/gu) ?? [];
}

/** The table lines of a Markdown report, words left out: the cells a program could compare. */
function tableNumbers(md: string): string[] {
  return md
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .flatMap((line) => numbers(line.split(' | ').slice(2).join(' | ')));
}

describe('an export in Russian', () => {
  it('has Russian headings and sentences in the Markdown report, and the same numbers', () => {
    const en = comparisonFile(report, 'md').text;
    const md = comparisonFile(report, 'md', { words: ru }).text;
    expect(md).toContain('## По метрикам');
    expect(md).toContain('## Самые большие ухудшения');
    expect(md).toContain('- A (базовый): prompt one');
    expect(md).toContain('| Метрика | Бэкенд | A | B |');
    expect(md).toContain('- Пары: 4 по id записи; без пары: 0 в A, 1 в B');
    expect(md).not.toContain('Per metric');
    expect(md).not.toContain('Largest regressions');
    expect(tableNumbers(md)).toEqual(tableNumbers(en));
    expect(tableNumbers(md).length).toBeGreaterThan(10);
  });

  it('writes the HTML page in Russian, marked as Russian, with the same table cells', () => {
    const en = comparisonFile(report, 'html').text;
    const html = comparisonFile(report, 'html', { words: ru }).text;
    expect(html).toContain('<html lang="ru">');
    expect(html).toContain('<h2>По метрикам: B − A</h2>');
    expect(html).toContain('<th>Метрика</th>');
    expect(html).not.toContain('Per metric');
    const cells = (page: string) =>
      [...page.matchAll(/<td class="n[^"]*">([^<]*)<\/td>/gu)].map((m) => m[1]);
    expect(cells(html)).toEqual(cells(en));
    expect(cells(html).length).toBeGreaterThan(10);
  });

  it('heads the CSV columns in Russian, keeping the ids a program matches and the numbers', () => {
    for (const format of ['csv', 'summary-csv'] as const) {
      const en = csv(comparisonFile(report, format).text);
      const ruCsv = csv(comparisonFile(report, format, { words: ru }).text);
      expect(ruCsv.rows).toEqual(en.rows);
      // A Russian header is "слова [id]"; the English one is the id itself or "label [id]".
      const id = (header: string) => /\[([^\]]+)\]$/u.exec(header)?.[1] ?? header;
      expect(ruCsv.fields.map(id)).toEqual(en.fields.map(id));
      expect(ruCsv.fields).not.toEqual(en.fields);
    }
    const summary = csv(comparisonFile(report, 'summary-csv', { words: ru }).text);
    expect(summary.fields).toContain('средняя разность (B - A) [mean diff (B - A)]');
    expect(summary.fields).toContain('p Уилкоксона [Wilcoxon p]');
    const pairs = csv(comparisonFile(report, 'csv', { words: ru }).text);
    expect(pairs.fields.slice(0, 3)).toEqual([
      'пара [pair]',
      'строка A [row A]',
      'строка B [row B]',
    ]);
  });

  it('titles a comparison in Russian', () => {
    expect(comparisonTitle('one', 'two', ru)).toBe('Сравнение SumLens: two против one');
  });
});
