/**
 * The validity table across every rated data set (`npm run validity`, second part): the stored
 * JSON is what a fresh computation gives, docs/validity.md carries it between its markers, and the
 * quality estimate's rows say how each figure relates to the fit.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import stored from '../../../src/lib/metrics/validity-sets.json';
import { qualitySamples } from '../../../src/lib/node/quality-samples.ts';
import { RATED_SET_INFO } from '../../../src/lib/node/validity/rated-sets.ts';
import {
  VALIDITY_PAGE,
  readmeWithTable,
  SETS_TABLE_END,
  SETS_TABLE_START,
} from '../../../src/lib/node/validity/report-files.ts';
import {
  setsValidity,
  setsValidityMarkdown,
  type SetsValidityReport,
} from '../../../src/lib/node/validity/sets-report.ts';

const report = stored as SetsValidityReport;

describe('the validity table across data sets', () => {
  it('equals a fresh run (npm run validity -- --write)', async () => {
    const samples = await qualitySamples();
    const fresh = setsValidity(
      samples,
      Object.fromEntries(Object.entries(RATED_SET_INFO).map(([k, v]) => [k, v.description])),
    );
    expect(JSON.parse(JSON.stringify(fresh))).toEqual(report);
  }, 600_000);

  it('is the table in docs/validity.md, between its markers', () => {
    const readme = readFileSync(VALIDITY_PAGE, 'utf8');
    const table = setsValidityMarkdown(report);
    expect(
      readme.slice(readme.indexOf(SETS_TABLE_START), readme.indexOf(SETS_TABLE_END)),
    ).toContain(table);
    expect(readmeWithTable(readme, table, SETS_TABLE_START, SETS_TABLE_END)).toBe(readme);
  });

  it('reports the quality estimate left out on every family, and in-sample apart', () => {
    const rows = report.rows.filter((r) => r.metric === 'quality-offline');
    const leftOut = new Set(rows.filter((r) => r.fit === 'left-out').map((r) => r.dataset));
    for (const set of report.sets) expect(leftOut.has(set.dataset), set.dataset).toBe(true);
    expect(rows.some((r) => r.fit === 'in-sample')).toBe(true);
    // Binary labels get AUC and a balanced accuracy; SummEval (graded, 12 per source) does not.
    const xsum = rows.find((r) => r.dataset === 'qags-xsum' && r.fit === 'left-out')!;
    expect(xsum.auc).not.toBeNull();
    expect(xsum.balancedAccuracy).not.toBeNull();
    const dev = rows.find((r) => r.dataset === 'summeval-dev' && r.against === 'coherence')!;
    expect(dev.summarySpearman).not.toBeNull();
    expect(dev.auc).toBeNull();
  });
});
