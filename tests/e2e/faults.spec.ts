/**
 * The fault suite's short form inside `npm test` (tests/faults/, the same library as
 * `npm run faults -- --short`): single cases under ten faults over three provider kinds and the
 * data-set scenarios (random transient faults and their retry, a dead key mid-run, a reload, an
 * offline spell, two tabs, a full storage quota), against the loopback fault-injecting provider.
 *
 * It asserts the totals that must never break — no row lost, none scored twice, no page error,
 * the key nowhere but its credential header — and that every fault was survived (a run that
 * stops pausing on a dead key, or a message that turns vague, fails it), and prints the table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN } from './support/browser.ts';
import { runSuite } from '../faults/suite.ts';
import { markdownTable, textTable } from '../faults/report.ts';

describe('fault injection (short form)', () => {
  it('loses no row, scores none twice, has no page error and leaks no key', async () => {
    const report = await runSuite({ short: true, origin: APP_ORIGIN });
    console.log(textTable(report));
    const root = resolve(import.meta.dirname, '../..');
    mkdirSync(resolve(root, '.tmp'), { recursive: true });
    writeFileSync(
      resolve(root, '.tmp/faults-e2e-report.json'),
      JSON.stringify(report, null, 2) + '\n',
    );
    writeFileSync(resolve(root, '.tmp/faults-e2e-report.md'), markdownTable(report));
    const t = report.totals;
    // The suite ran: every scenario reported, nothing broke before the end.
    expect(t.faultsTried).toBeGreaterThanOrEqual(15);
    expect(report.rows.filter((r) => r.fault === 'setup')).toEqual([]);
    expect({
      rowsLost: t.rowsLost,
      rowsTwice: t.rowsTwice,
      pageErrors: report.rows.flatMap((r) => r.pageErrors),
      leaks: report.rows.flatMap((r) => r.leaks.map((l) => `${r.scenario}/${r.fault}: ${l.where}`)),
      // Every fault survived: a run pauses on a dead key, retries only its failed rows, pauses
      // offline, leaves other tabs alone; every message is specific.
      notSurvived: report.rows
        .filter((r) => r.outcome === 'failed')
        .map((r) => `${r.scenario}/${r.fault}/${r.kind}: ${r.notes.join('; ')}`),
    }).toEqual({ rowsLost: 0, rowsTwice: 0, pageErrors: [], leaks: [], notSurvived: [] });
  }, 420_000);
});
