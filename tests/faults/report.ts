/** The fault suite's report: one row per scenario/fault, the totals, and the table in text and Markdown. */

export type Outcome = 'survived' | 'failed' | 'skipped';

export interface LeakSighting {
  /** request-url, request-body, request-header, DOM, console, storage, export */
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
  rowsLost?: number;
  rowsTwice?: number;
  rowsFailedWithReason?: number;
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
  rowsTwice: number;
  rowsFailedWithReason: number;
  pageErrors: number;
  leaks: number;
  leaksByWhere: Record<string, number>;
  requestsSent: number;
  requestsNeeded: number;
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
    rowsTwice: sum((r) => r.rowsTwice),
    rowsFailedWithReason: sum((r) => r.rowsFailedWithReason),
    pageErrors: sum((r) => r.pageErrors.length),
    leaks: sum((r) => r.leaks.length),
    leaksByWhere,
    requestsSent: sum((r) => r.sent),
    requestsNeeded: sum((r) => r.needed),
  };
}

/** Why the suite fails (exit code 1), empty when it passes. */
export function verdict(t: Totals): string[] {
  const out: string[] = [];
  if (t.rowsLost > 0) out.push(`${t.rowsLost} rows lost`);
  if (t.rowsTwice > 0) out.push(`${t.rowsTwice} rows scored twice`);
  if (t.pageErrors > 0) out.push(`${t.pageErrors} page errors`);
  if (t.leaks > 0) out.push(`the key was seen ${t.leaks} times outside its header`);
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
    r.rowsLost !== undefined
      ? `lost ${r.rowsLost}, twice ${r.rowsTwice ?? 0}, failed ${r.rowsFailedWithReason ?? 0}`
      : '';
  return [
    r.scenario,
    r.fault,
    r.kind,
    r.outcome,
    r.sent === undefined ? '' : `${num(r.sent)}/${num(r.needed)}`,
    rows,
    notes.join('; '),
  ];
}

const HEAD = ['scenario', 'fault', 'kind', 'outcome', 'sent/needed', 'rows', 'notes'];

function totalsLines(t: Totals): string[] {
  const where = Object.entries(t.leaksByWhere)
    .map(([w, n]) => `${w} ${n}`)
    .join(', ');
  return [
    `faults tried ${t.faultsTried}, survived ${t.survived}, failed ${t.failed}, skipped ${t.skipped}`,
    `rows lost ${t.rowsLost}, rows scored twice ${t.rowsTwice}, rows failed with a reason ${t.rowsFailedWithReason}`,
    `unhandled page errors ${t.pageErrors}`,
    `key canary sightings ${t.leaks}${where ? ` (${where})` : ''}`,
    `requests sent ${t.requestsSent} vs needed ${t.requestsNeeded}`,
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
  const head = ['scenario', 'fault', 'survived', 'sent/needed', 'rows', 'notes'];
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
    const sent = tried.reduce((s, r) => s + (r.sent ?? 0), 0);
    const needed = tried.reduce((s, r) => s + (r.needed ?? 0), 0);
    lines.push([
      'single',
      fault,
      tried.length ? `${survived.length}/${tried.length}` : 'skipped',
      tried.length ? `${sent}/${needed}` : '',
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
  if (a < 0 || b < a) throw new Error('README.md has no <!-- faults-table --> block');
  return `${readme.slice(0, a + start.length)}\n\n${table}\n\n${readme.slice(b)}`;
}
