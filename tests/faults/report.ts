/** The fault suite's report: one row per scenario/fault, the totals, and the table in text and Markdown. */

export type Outcome = 'survived' | 'failed' | 'skipped';

export interface LeakSighting {
  /** request-url, request-body, request-header, DOM, console, localStorage, sessionStorage,
   * indexedDB, cache, opfs, export */
  where: string;
  detail: string;
}

export interface ReportRow {
  scenario: string;
  fault: string;
  kind: string;
  outcome: Outcome;
  /** Requests the fake received (retries and failures included). */
  sent?: number;
  /** What a fault-free run of the same work needs. */
  needed?: number;
  /** The most it may send: `needed` plus what each fault and spell may cost (harness.ts). */
  bound?: number;
  rowsLost?: number;
  /** Rows of an imported file missing from the data set (a malformed row's neighbours). */
  importLost?: number;
  rowsTwice?: number;
  /** Judge answers delivered more often than the fault-free need: paid for twice. */
  answersTwice?: number;
  rowsFailedWithReason?: number;
  /** The run item sampled during the run (sampler.ts): samples, and differences over 1 s. */
  sampled?: { samples: number; ghosts: number; status: number; counter: number };
  pageErrors: string[];
  leaks: LeakSighting[];
  notes: string[];
  ms: number;
}

export interface Totals {
  faultsTried: number;
  survived: number;
  failed: number;
  skipped: number;
  rowsLost: number;
  importLost: number;
  rowsTwice: number;
  answersTwice: number;
  rowsFailedWithReason: number;
  pageErrors: number;
  /** Keys seen where the user did not put them. */
  leaks: number;
  leaksByWhere: Record<string, number>;
  /** Runs shown running with nothing running, for over a second. */
  ghostRuns: number;
  /** Run items unlike the stored run for over a second: status or rows, request counter. */
  statusMismatches: number;
  counterMismatches: number;
  samples: number;
  requestsSent: number;
  requestsNeeded: number;
  requestsBound: number;
  /** Scenarios that sent more than their bound. */
  overBound: number;
}

export interface Report {
  form: 'full' | 'short';
  startedAt: string;
  ms: number;
  rows: ReportRow[];
  totals: Totals;
}

export function totalsOf(rows: readonly ReportRow[]): Totals {
  const tried = rows.filter((r) => r.outcome !== 'skipped');
  const leaksByWhere: Record<string, number> = {};
  for (const r of rows)
    for (const l of r.leaks) leaksByWhere[l.where] = (leaksByWhere[l.where] ?? 0) + 1;
  const sum = (f: (r: ReportRow) => number | undefined) =>
    rows.reduce((s, r) => s + (f(r) ?? 0), 0);
  return {
    faultsTried: tried.length,
    survived: tried.filter((r) => r.outcome === 'survived').length,
    failed: tried.filter((r) => r.outcome === 'failed').length,
    skipped: rows.length - tried.length,
    rowsLost: sum((r) => r.rowsLost),
    importLost: sum((r) => r.importLost),
    rowsTwice: sum((r) => r.rowsTwice),
    answersTwice: sum((r) => r.answersTwice),
    rowsFailedWithReason: sum((r) => r.rowsFailedWithReason),
    pageErrors: sum((r) => r.pageErrors.length),
    leaks: sum((r) => r.leaks.length),
    leaksByWhere,
    ghostRuns: sum((r) => r.sampled?.ghosts),
    statusMismatches: sum((r) => r.sampled?.status),
    counterMismatches: sum((r) => r.sampled?.counter),
    samples: sum((r) => r.sampled?.samples),
    requestsSent: sum((r) => r.sent),
    requestsNeeded: sum((r) => r.needed),
    requestsBound: sum((r) => r.bound ?? r.sent),
    overBound: rows.filter((r) => r.bound !== undefined && (r.sent ?? 0) > r.bound).length,
  };
}

/** Why the suite fails (exit code 1), empty when it passes. */
export function verdict(t: Totals): string[] {
  const out: string[] = [];
  if (t.rowsLost > 0) out.push(`${t.rowsLost} rows lost in runs`);
  if (t.importLost > 0) out.push(`${t.importLost} rows lost at import`);
  if (t.rowsTwice > 0) out.push(`${t.rowsTwice} rows scored twice`);
  if (t.answersTwice > 0) out.push(`${t.answersTwice} answers bought twice`);
  if (t.pageErrors > 0) out.push(`${t.pageErrors} page errors`);
  if (t.leaks > 0) out.push(`the key was seen ${t.leaks} times where the user did not put it`);
  if (t.ghostRuns > 0) out.push(`${t.ghostRuns} runs shown running with nothing running`);
  // A fault the page did not survive (a run that burns rows on a dead key, a vague message…) is a
  // regression too, not only the four above.
  if (t.failed > 0) out.push(`${t.failed} faults not survived`);
  return out;
}

const num = (v: number | undefined) => (v === undefined ? '' : String(v));

function cells(r: ReportRow): string[] {
  const notes = [...r.notes];
  if (r.pageErrors.length) notes.push(`page errors: ${r.pageErrors.slice(0, 2).join(' | ')}`);
  if (r.leaks.length)
    notes.push(`KEY SEEN: ${r.leaks.map((l) => `${l.where} (${l.detail})`).join(', ')}`);
  const rows =
    r.importLost !== undefined
      ? `lost at import ${r.importLost}`
      : r.rowsLost !== undefined
        ? `lost ${r.rowsLost}, twice ${r.rowsTwice ?? 0}, failed ${r.rowsFailedWithReason ?? 0}`
        : '';
  return [
    r.scenario,
    r.fault,
    r.kind,
    r.outcome,
    r.sent === undefined ? '' : `${num(r.sent)}/${num(r.needed)}/${num(r.bound)}`,
    rows,
    notes.join('; '),
  ];
}

const HEAD = ['scenario', 'fault', 'kind', 'outcome', 'sent/needed/bound', 'rows', 'notes'];

function totalsLines(t: Totals): string[] {
  const where = Object.entries(t.leaksByWhere)
    .map(([w, n]) => `${w} ${n}`)
    .join(', ');
  return [
    `faults tried ${t.faultsTried}, survived ${t.survived}, failed ${t.failed}, skipped ${t.skipped}`,
    `rows lost at import ${t.importLost}, in runs ${t.rowsLost}; rows scored twice ${t.rowsTwice}, answers bought twice ${t.answersTwice}; rows failed with a reason ${t.rowsFailedWithReason}`,
    `unhandled page errors ${t.pageErrors}`,
    `keys where the user did not put them ${t.leaks}${where ? ` (${where})` : ''}`,
    `runs "running" with nothing running ${t.ghostRuns}; run items unlike the stored run for over 1 s: status or rows ${t.statusMismatches}, request counter ${t.counterMismatches} (${t.samples} samples)`,
    `requests sent ${t.requestsSent} vs needed ${t.requestsNeeded}, bound ${t.requestsBound}; scenarios over their bound ${t.overBound}`,
  ];
}

/** A plain-text table for the terminal (notes wrap after the fixed columns). */
export function textTable(report: Report): string {
  const rows = report.rows.map(cells);
  const widths = HEAD.slice(0, 6).map((h, i) =>
    Math.max(h.length, ...rows.map((r) => r[i]!.length)),
  );
  const line = (c: string[]) =>
    c
      .slice(0, 6)
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ') + (c[6] ? `  ${c[6]}` : '');
  const out = [
    line(HEAD),
    line(widths.map((w) => '-'.repeat(w)).concat('-----')),
    ...rows.map(line),
  ];
  out.push('', ...totalsLines(report.totals));
  return out.join('\n');
}

const md = (v: string) => v.replace(/\|/gu, '\\|').replace(/\n/gu, ' ');

export function markdownTable(report: Report): string {
  const out = [
    `Fault suite (${report.form}), ${report.startedAt}, ${Math.round(report.ms / 1000)} s`,
    '',
    '<!-- prettier-ignore-start -->',
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map(() => '---').join(' | ')} |`,
    ...report.rows.map((r) => `| ${cells(r).map(md).join(' | ')} |`),
    '<!-- prettier-ignore-end -->',
    '',
    ...totalsLines(report.totals).map((l) => `- ${l}`),
  ];
  return out.join('\n') + '\n';
}

/** A row's notes for the README: the failed checks (and what a survivor said), each cut short;
 * the "found by its place in the list" remark stays in the full table. */
function readmeNotes(r: ReportRow): string {
  const cut = (n: string) => (n.length > 140 ? `${n.slice(0, 139)}…` : n);
  const notes = r.notes
    .filter((n) => !n.startsWith('no data-run-id'))
    .map((n) => cut(n.replace(/^FAIL /u, '')));
  if (r.pageErrors.length) notes.push(`${r.pageErrors.length} page errors`);
  if (r.leaks.length) notes.push(`KEY SEEN: ${r.leaks.map((l) => l.where).join(', ')}`);
  return notes.join('; ');
}

/**
 * The README's table: single cases folded into one row per fault (the provider kinds that
 * survived it), every other scenario as is; the full table is in .tmp/faults-report.md.
 */
export function readmeTable(report: Report): string {
  const head = ['scenario', 'fault', 'survived', 'sent/needed/bound', 'rows', 'notes'];
  const lines: string[][] = [];
  const singles = report.rows.filter((r) => r.scenario === 'single');
  const faults = [...new Set(singles.map((r) => r.fault))];
  for (const fault of faults) {
    const rows = singles.filter((r) => r.fault === fault);
    const tried = rows.filter((r) => r.outcome !== 'skipped');
    const survived = tried.filter((r) => r.outcome === 'survived').map((r) => r.kind);
    const failed = tried.filter((r) => r.outcome === 'failed');
    const notes = failed.slice(0, 1).map((r) => `${r.kind}: ${readmeNotes(r)}`);
    if (failed.length > 1)
      notes.push(
        `also ${failed
          .slice(1)
          .map((r) => r.kind)
          .join(', ')}`,
      );
    if (tried.length === 0) notes.push(rows[0]?.notes[0] ?? 'skipped');
    const sum = (f: (r: ReportRow) => number | undefined) =>
      tried.reduce((s, r) => s + (f(r) ?? 0), 0);
    lines.push([
      'single',
      fault,
      tried.length ? `${survived.length}/${tried.length}` : 'skipped',
      tried.length
        ? `${sum((r) => r.sent)}/${sum((r) => r.needed)}/${sum((r) => r.bound ?? r.sent)}`
        : '',
      '',
      notes.join('; '),
    ]);
  }
  for (const r of report.rows.filter((x) => x.scenario !== 'single')) {
    const c = cells(r);
    lines.push([
      c[0]!,
      `${c[1]} (${r.kind})`,
      r.outcome === 'survived' ? 'yes' : r.outcome === 'skipped' ? 'skipped' : 'no',
      c[4]!,
      c[5]!,
      readmeNotes(r),
    ]);
  }
  const t = report.totals;
  return [
    `Last full run: ${report.startedAt.slice(0, 10)}, ${Math.round(report.ms / 1000)} s on the current code.`,
    '',
    '<!-- prettier-ignore-start -->',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...lines.map((l) => `| ${l.map(md).join(' | ')} |`),
    '<!-- prettier-ignore-end -->',
    '',
    ...totalsLines(t).map((l) => `- ${l}`),
  ].join('\n');
}

/** Replaces the block between `<!-- faults-table -->` and `<!-- /faults-table -->`. */
export function withReadmeTable(readme: string, table: string): string {
  const start = '<!-- faults-table -->';
  const end = '<!-- /faults-table -->';
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < a) throw new Error('docs/providers.md has no <!-- faults-table --> block');
  return `${readme.slice(0, a + start.length)}\n\n${table}\n\n${readme.slice(b)}`;
}
