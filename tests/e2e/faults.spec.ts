/**
 * The fault suite's short form inside `npm test` (tests/faults/, the same library as
 * `npm run faults -- --short`): single cases under twelve faults over the four provider kinds
 * (each with a canary key), and at least one of every other check: random transient faults and
 * their retry (every export searched for the key), a dead key mid-run, reloads (the key in
 * memory; the key kept for the tab, resumed by itself), an offline spell, two tabs and tab A
 * closed, the disk filled mid-run, site data cleared, a gateway echoing the key, an imported
 * "running" run, a malformed CSV, a Windows-1252 file, duplicate ids, a key setting changed; the
 * run items sampled during every run.
 *
 * It asserts the totals that must never break — no row lost at import or in a run, no row scored
 * or answer bought twice, no page error, no key where the user did not put it, no run shown
 * running with nothing running — and that every check held (a run that stops pausing on a dead
 * key, a request count over its bound, a run item that disagrees with the stored run for over a
 * second, a message that turns vague: each fails it), and prints the table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appOrigin } from './support/browser.ts';
import { SCENARIOS, runSuite } from '../faults/suite.ts';
import { markdownTable, textTable } from '../faults/report.ts';

describe('fault injection (short form)', () => {
  it('loses no row, buys nothing twice, has no page error, leaks no key and tells the truth about runs', async () => {
    const report = await runSuite({ short: true, origin: appOrigin() });
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
    expect(t.faultsTried).toBeGreaterThanOrEqual(25);
    expect([...new Set(report.rows.map((r) => r.scenario))].sort()).toEqual([...SCENARIOS].sort());
    expect(report.rows.filter((r) => r.fault === 'setup')).toEqual([]);
    expect(t.samples).toBeGreaterThan(0);
    expect({
      rowsLost: t.rowsLost,
      importLost: t.importLost,
      rowsTwice: t.rowsTwice,
      answersTwice: t.answersTwice,
      ghostRuns: t.ghostRuns,
      pageErrors: report.rows.flatMap((r) => r.pageErrors),
      leaks: report.rows.flatMap((r) => r.leaks.map((l) => `${r.scenario}/${r.fault}: ${l.where}`)),
      // Every check held: a run pauses on a dead key, stays within its bound, shows what is
      // stored; a tab takes over; imports keep every row; every message is specific.
      notSurvived: report.rows
        .filter((r) => r.outcome === 'failed')
        .map((r) => `${r.scenario}/${r.fault}/${r.kind}: ${r.notes.join('; ')}`),
    }).toEqual({
      rowsLost: 0,
      importLost: 0,
      rowsTwice: 0,
      answersTwice: 0,
      ghostRuns: 0,
      pageErrors: [],
      leaks: [],
      notSurvived: [],
    });
  }, 900_000);
});
