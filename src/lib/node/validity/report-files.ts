/**
 * Node-only: where the validity report is kept (the JSON the cards show, the table in the
 * README) and how it is printed, so `npm run validity -- --write` and the test that checks the
 * stored copies agree on one rendering.
 */
import { resolve } from 'node:path';
import { repoRoot } from '../external-data.ts';
import { validityMarkdown, type ValidityReport } from '../../metrics/validity.ts';

export const REPORT_FILE = resolve(repoRoot, 'src/lib/metrics/validity-summeval.json');
export const README_FILE = resolve(repoRoot, 'README.md');
export const TABLE_START = '<!-- validity-table -->';
export const TABLE_END = '<!-- /validity-table -->';

/** The README with its validity table replaced; throws when the markers are missing. */
export function readmeWithTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`README.md lacks the ${TABLE_START} … ${TABLE_END} markers.`);
  }
  return `${readme.slice(0, start + TABLE_START.length)}\n<!-- prettier-ignore-start -->\n${table}\n<!-- prettier-ignore-end -->\n${readme.slice(end)}`;
}

/** The table with the lines that say what was measured and what the columns mean. */
export function describeReport(report: ValidityReport): string {
  const d = report.dataset;
  return [
    `${d.name} (${d.file}): ${d.summaries} summaries = ${d.articles} articles × ${d.systems} systems; human = ${d.raters}.`,
    'ρ = Spearman, τ-b = Kendall; summary level = per article over its summaries, then averaged over the articles where defined; pooled ρ = over all scored summaries at once.',
    '',
    validityMarkdown(report),
  ].join('\n');
}
