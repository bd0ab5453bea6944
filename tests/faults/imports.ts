/**
 * What the user brings in, and what the page keeps of the key:
 *
 * - a 1,000-row CSV with a stray unclosed quote in data row 3 (the other rows' fields unquoted,
 *   or quoted): 999 rows imported, one problem naming row 4 (the header is row 1) and the quote,
 *   every row's number true;
 * - a Windows-1252 CSV ("Müller", "café", "€"): decoded right with a notice naming the encoding,
 *   or refused by name, never U+FFFD;
 * - duplicate ids: reported;
 * - the key's "Keep it" choice changed after saving: the key leaves the storage the user no
 *   longer chose at once, the status line says where it is, and a reload finds it only there.
 */
import { join } from 'node:path';
import { configureProvider } from '../e2e/support/llm.ts';
import {
  CP1252_ROWS,
  csvCells,
  writeCp1252Csv,
  writeDuplicateIdsCsv,
  writeStrayQuoteCsv,
} from './dataset.ts';
import {
  MODELS,
  canaryKey,
  errorText,
  fail,
  finish,
  logged,
  row,
  type SuiteEnv,
} from './harness.ts';
import { keyNeedles, unchosen, type KeyChoice } from './leaks.ts';
import {
  datasetRows,
  domText,
  importFile,
  keyState,
  openFaultPage,
  poll,
  saveKey,
  storagePlaces,
  storedDatasets,
  waitApp,
  type FaultPage,
  type ImportView,
  type KeyPersistence,
  type StoredRowView,
} from './page.ts';
import type { ReportRow } from './report.ts';

export type QuoteLayout = 'unquoted' | 'quoted';

export interface ImportPlan {
  /** The stray-quote CSVs to import (1,000 rows each). */
  quotes: readonly QuoteLayout[];
  encoding: boolean;
  duplicates: boolean;
}

const ENCODING_NAME = /windows-?1252|cp-?1252|latin-?1|iso-?8859-?1/iu;

/** One page imports every file of the plan, a report row per file. */
export async function importChecks(env: SuiteEnv, plan: ImportPlan): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  const fp = await openFaultPage(env.browser, env.origin);
  try {
    for (const layout of plan.quotes) rows.push(await strayQuote(env, fp, layout));
    if (plan.encoding) rows.push(await windows1252(env, fp));
    if (plan.duplicates) rows.push(await duplicateIds(env, fp));
  } finally {
    await fp.context.close();
  }
  return rows;
}

/** Runs one check on the shared page, with the page's errors since it started. */
async function check(
  env: SuiteEnv,
  fp: FaultPage,
  r: ReportRow,
  body: () => Promise<void>,
): Promise<ReportRow> {
  const started = Date.now();
  const errors = fp.pageErrors.length + fp.consoleErrors.length;
  try {
    await body();
  } catch (e) {
    r.notes.push(fail(errorText(e)));
  }
  r.pageErrors = [...fp.pageErrors, ...fp.consoleErrors].slice(errors);
  return logged(env, finish(r, started));
}

async function storedByName(fp: FaultPage, name: string) {
  return (await storedDatasets(fp.page)).find((d) => d.name === name);
}

/** Rows whose texts are those of the file's row with the same tag. */
function intact(rows: readonly StoredRowView[], expected: (tag: number) => string[]) {
  return rows.filter((r) => {
    if (r.tag === undefined) return false;
    const [, source, summary, reference] = expected(r.tag);
    return (
      r.source === source &&
      r.summary === summary &&
      (reference === undefined || r.reference === reference)
    );
  });
}

async function strayQuote(env: SuiteEnv, fp: FaultPage, layout: QuoteLayout): Promise<ReportRow> {
  const total = 1_000;
  const r = row({
    scenario: 'import',
    fault: `${total}-row CSV, unclosed quote in data row 3, other fields ${layout}`,
    kind: 'csv',
  });
  return check(env, fp, r, async () => {
    const name = `quote-${layout}`;
    const view = await importFile(
      fp.page,
      writeStrayQuoteCsv(join(env.dir, `${name}.csv`), total, layout),
    );
    const dataset = await storedByName(fp, name);
    if (!dataset) {
      r.importLost = total - 1;
      r.notes.push(fail(`no data set stored: ${describe(view)}`));
      return;
    }
    const rows = await datasetRows(fp.page, dataset.id);
    const good = intact(rows, csvCells);
    const goodTags = new Set(good.map((g) => g.tag!));
    const missing: number[] = [];
    for (let t = 1; t <= total; t++) if (t !== 3 && !goodTags.has(t)) missing.push(t);
    r.importLost = missing.length;
    if (rows.length !== total - 1)
      r.notes.push(fail(`${rows.length} rows imported, ${total - 1} expected`));
    if (missing.length)
      r.notes.push(
        fail(
          `${missing.length} rows lost or changed (${missing.slice(0, 6).join(', ')}${missing.length > 6 ? '…' : ''})`,
        ),
      );
    // A row keeps its place in the file: the same number before and after the bad row.
    const offsets = new Set(good.map((g) => g.row - g.tag!));
    if (offsets.size > 1)
      r.notes.push(
        fail(`row numbers shift after the bad row (offsets ${[...offsets].join(', ')})`),
      );
    const problems = view.dropped;
    if (problems.length !== 1)
      r.notes.push(
        fail(
          `${problems.length} problems listed, 1 expected${problems.length ? `: "${problems[0]!.slice(0, 100)}"` : ''}`,
        ),
      );
    const p = problems[0] ?? '';
    if (problems.length && !/\brow 4\b/iu.test(p))
      r.notes.push(
        fail(`the problem does not name row 4 (the header is row 1): "${p.slice(0, 120)}"`),
      );
    if (problems.length && !/quot/iu.test(p))
      r.notes.push(fail(`the problem does not name the quote: "${p.slice(0, 120)}"`));
    if (p) r.notes.push(`listed: "${p.slice(0, 120)}"`);
  });
}

async function windows1252(env: SuiteEnv, fp: FaultPage): Promise<ReportRow> {
  const r = row({
    scenario: 'import',
    fault: 'Windows-1252 CSV ("Müller", "café", "€")',
    kind: 'csv',
  });
  return check(env, fp, r, async () => {
    const name = 'latin-cp1252';
    const view = await importFile(fp.page, writeCp1252Csv(join(env.dir, `${name}.csv`)));
    const dataset = await storedByName(fp, name);
    const dom = await domText(fp.page);
    if (dom.includes('\uFFFD')) r.notes.push(fail('U+FFFD (�) on the page'));
    if (!dataset) {
      // Refused: by the encoding's name.
      const said = `${view.error} ${view.text}`;
      if (!ENCODING_NAME.test(said))
        r.notes.push(fail(`refused without naming the encoding: ${describe(view)}`));
      else r.notes.push(`refused: "${said.trim().slice(0, 120)}"`);
      return;
    }
    const rows = await datasetRows(fp.page, dataset.id);
    const good = intact(rows, (tag) => {
      const t = CP1252_ROWS[tag - 1];
      return t ? ['', t.source, t.summary] : [];
    });
    r.importLost = CP1252_ROWS.length - good.length;
    if (rows.some((x) => `${x.source}${x.summary}`.includes('\uFFFD')))
      r.notes.push(
        fail(
          `stored with U+FFFD: "${rows.find((x) => x.source.includes('\uFFFD'))?.source.slice(0, 60) ?? ''}"`,
        ),
      );
    else if (good.length < CP1252_ROWS.length)
      r.notes.push(
        fail(
          `${CP1252_ROWS.length - good.length} rows decoded wrong: "${rows[0]?.source.slice(0, 60) ?? ''}"`,
        ),
      );
    if (!ENCODING_NAME.test(view.text))
      r.notes.push(
        fail(`no notice names the encoding: "${view.text.replace(/\s+/gu, ' ').slice(0, 120)}"`),
      );
    if (!r.notes.some((n) => n.startsWith('FAIL')))
      r.notes.push(`"${view.text.replace(/\s+/gu, ' ').slice(0, 120)}"`);
  });
}

async function duplicateIds(env: SuiteEnv, fp: FaultPage): Promise<ReportRow> {
  const r = row({
    scenario: 'import',
    fault: 'CSV with a duplicate id (r0002 twice)',
    kind: 'csv',
  });
  return check(env, fp, r, async () => {
    const name = 'duplicate-ids';
    const total = 6;
    const view = await importFile(
      fp.page,
      writeDuplicateIdsCsv(join(env.dir, `${name}.csv`), total),
    );
    const dataset = await storedByName(fp, name);
    const said = [
      view.text,
      view.error,
      ...view.dropped,
      ...view.cells,
      ...(dataset?.problems.examples.map((e) => e.reason ?? '') ?? []),
    ].join('\n');
    const rows = dataset ? await datasetRows(fp.page, dataset.id) : [];
    const good = new Set(intact(rows, csvCells).map((g) => g.tag!));
    // The duplicate itself may be left out, if it is reported; no other row may be.
    r.importLost = [1, 2, 3, 5, 6].filter((t) => !good.has(t)).length;
    if (r.importLost) r.notes.push(fail(`${r.importLost} rows without a duplicate id lost`));
    if (
      !/duplicate|twice|more than once|same id|already|not unique|repeated/iu.test(said) ||
      !said.includes('r0002')
    )
      r.notes.push(
        fail(`the duplicate id r0002 was imported without a word (${rows.length} rows)`),
      );
    else r.notes.push(`reported, ${rows.length} rows kept`);
  });
}

function describe(view: ImportView): string {
  return `"${(view.error || view.text).replace(/\s+/gu, ' ').slice(0, 140)}"`;
}

// --- where the key is kept ---------------------------------------------------------------------------

const WHERE: Record<KeyPersistence, { allowed: KeyChoice; state: RegExp; label: string }> = {
  memory: { allowed: {}, state: /memory/iu, label: 'Only in memory' },
  session: { allowed: { session: true }, state: /tab|session/iu, label: 'Until this tab closes' },
  device: { allowed: { local: true }, state: /device|localStorage/iu, label: 'On this device' },
};

/** The storage `persistence` keeps the key in holds it. */
function keptIn(places: ReadonlyArray<{ where: string; exact: boolean }>, p: KeyPersistence) {
  if (p === 'memory') return true;
  const prefix = p === 'session' ? 'sessionStorage:' : 'localStorage:';
  return places.some((x) => x.exact && x.where.startsWith(prefix));
}

/** Each pair: a key saved with the first choice, then the choice changed to the second. */
export async function keyChoices(
  env: SuiteEnv,
  switches: ReadonlyArray<readonly [KeyPersistence, KeyPersistence]>,
): Promise<ReportRow[]> {
  const out: ReportRow[] = [];
  const fp = await openFaultPage(env.browser, env.origin);
  try {
    await configureProvider(fp.page, env.fault.fake, { kind: 'openai', model: MODELS.openai });
    for (const [from, to] of switches) {
      const r = row({
        scenario: 'keys',
        fault: `saved "${WHERE[from].label}", then switched to "${WHERE[to].label}"`,
        kind: 'openai',
      });
      out.push(await check(env, fp, r, () => switchKey(fp, r, from, to)));
    }
  } finally {
    await fp.context.close();
  }
  return out;
}

async function switchKey(
  fp: FaultPage,
  r: ReportRow,
  from: KeyPersistence,
  to: KeyPersistence,
): Promise<void> {
  const page = fp.page;
  const key = canaryKey('openai');
  const needles = keyNeedles(key);
  await saveKey(page, key, from);
  if (!keptIn(await storagePlaces(page, needles), from))
    throw new Error(`the key was not kept "${WHERE[from].label}" when saved so`);
  await page.getByTestId('provider-key-persistence').selectOption(to);
  // At once (within a second): the key only where the last choice says.
  const now = await poll(
    () => storagePlaces(page, needles),
    (places) => unchosen(places, WHERE[to].allowed).length === 0 && keptIn(places, to),
    { timeout: 1_000, interval: 100 },
  );
  const stray = unchosen(now.value, WHERE[to].allowed);
  r.leaks.push(...stray.map((l) => ({ ...l, detail: `${l.detail} after the switch` })));
  if (!keptIn(now.value, to)) r.notes.push(fail(`the key is not kept "${WHERE[to].label}"`));
  const state = await keyState(page);
  if (!WHERE[to].state.test(state)) r.notes.push(fail(`the status line says "${state}"`));
  await page.reload();
  await waitApp(page);
  const after = await keyState(page);
  const places = await storagePlaces(page, needles);
  r.leaks.push(
    ...unchosen(places, WHERE[to].allowed).map((l) => ({
      ...l,
      detail: `${l.detail} after a reload`,
    })),
  );
  if (to === 'memory' && !/no key/iu.test(after))
    r.notes.push(fail(`after a reload the key is back: "${after}"`));
  if (to !== 'memory' && !WHERE[to].state.test(after))
    r.notes.push(fail(`after a reload the status line says "${after}"`));
  if (!r.notes.some((n) => n.startsWith('FAIL')) && !r.leaks.length)
    r.notes.push(`"${state}" → reload: "${after}"`);
  // Clean slate for the next pair.
  await page.getByTestId('provider-forget-keys').click();
}
