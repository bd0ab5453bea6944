/**
 * Node-only: where the validity report is kept (the JSON the cards show, the tables in
 * docs/validity.md) and how it is printed, so `npm run validity -- --write` and the test that checks the
 * stored copies agree on one rendering.
 */
import { resolve } from 'node:path';
import { repoRoot } from '../external-data.ts';
import { validityMarkdown, type ValidityReport } from '../../metrics/validity.ts';

export const REPORT_FILE = resolve(repoRoot, 'src/lib/metrics/validity-summeval.json');
/** The docs page that carries the validity tables between its markers. */
export const VALIDITY_PAGE = resolve(repoRoot, 'docs/validity.md');
export const SETS_REPORT_FILE = resolve(repoRoot, 'src/lib/metrics/validity-sets.json');
export const TABLE_START = '<!-- validity-table -->';
export const TABLE_END = '<!-- /validity-table -->';
export const SETS_TABLE_START = '<!-- validity-sets-table -->';
export const SETS_TABLE_END = '<!-- /validity-sets-table -->';

/** The validity page with one marked table replaced; throws when the markers are missing. */
export function readmeWithTable(
  readme: string,
  table: string,
  startMarker = TABLE_START,
  endMarker = TABLE_END,
): string {
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start < 0 || end < start) {
    throw new Error(`docs/validity.md lacks the ${startMarker} … ${endMarker} markers.`);
  }
  return `${readme.slice(0, start + startMarker.length)}\n<!-- prettier-ignore-start -->\n${table}\n<!-- prettier-ignore-end -->\n${readme.slice(end)}`;
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
