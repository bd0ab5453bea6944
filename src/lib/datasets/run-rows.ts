/**
 * The run view's row table as data: a list of column descriptors (row, id, system, each score,
 * each human rating, the quality flags), and the filter and sort over result indexes. A column
 * is one entry: the view draws whatever the list holds, so another column (a pass/fail "checks"
 * column) is one more descriptor with its own values and, for badges, its own chips. Pure, over
 * the numbers the calibration worker posted (RunView): sorting 100,000 indexes takes a few tens
 * of milliseconds, and the view renders the sorted rows a page at a time.
 */
import { flagLabel, flagMessage } from '../metrics/quality-flags.ts';
import { humanColumnLabel, scoreColumnLabel } from './column-labels.ts';
import type { Words } from './export/words.ts';
import type { RunView } from './run-view.ts';
import { bestHumanRef } from './human-ratings.ts';
import type { Outcome } from '../assertions/evaluate.ts';

/** A chip in a badges cell (a quality flag, an assertion's outcome). */
export interface Badge {
  /** What the badge is (`data-badge` in the view, the flag's or the check's id). */
  id: string;
  label: string;
  title: string;
  /** A style hook: 'flag' draws the flag badge of app.css; others name their own. */
  tone: string;
}

export type RowColumnKind = 'number' | 'text' | 'badges';

export interface RowColumn {
  /** Unique among the columns: `row`, `id`, `system`, `score:<column>`, `human:<name>`, `flags`. */
  key: string;
  kind: RowColumnKind;
  label: (w: Words) => string;
  /** The header's tooltip: the column's id where the label is a name. */
  title?: string;
  /** The sort key and, for numbers and text, the cell: null (or NaN, '') when the row has none. */
  value: (i: number) => number | string | null;
  /** A badges column's chips for one row. */
  badges?: (i: number, w: Words) => Badge[];
  /** Digits a number cell shows (scores 3; row numbers 0). */
  digits?: number;
}

/**
 * The columns of a run's row table: row, id and system where any row has one, every score
 * column, every human column, and the flags once any row carries one.
 */
export function rowColumns(
  view: RunView,
  humanColumns: readonly string[],
  checks?: ReadonlyMap<number, Outcome>,
): RowColumn[] {
  const t = view.table;
  const columns: RowColumn[] = [
    {
      key: 'row',
      kind: 'number',
      label: (w) => w('views.rows.row'),
      value: (i) => t.rows[i] ?? null,
      digits: 0,
    },
  ];
  if (view.ids.some((id) => id !== '')) {
    columns.push({
      key: 'id',
      kind: 'text',
      label: (w) => w('views.rows.id'),
      value: (i) => view.ids[i] ?? '',
    });
  }
  if (view.systems.some((s) => s !== '')) {
    columns.push({
      key: 'system',
      kind: 'text',
      label: (w) => w('views.rows.system'),
      value: (i) => view.systems[i] ?? '',
    });
  }
  if (checks && checks.size > 0) columns.push(checksColumn(view, checks));
  for (const c of t.columns) {
    const values = t.values.get(c);
    columns.push({
      key: `score:${c}`,
      kind: 'number',
      label: (w) => scoreColumnLabel(c, w),
      title: c,
      value: (i) => values?.[i] ?? null,
    });
  }
  for (const h of humanColumns) {
    const values = view.ratings.get(h);
    if (!values) continue;
    columns.push({
      key: `human:${h}`,
      kind: 'number',
      label: (w) => humanColumnLabel(h, w),
      title: h,
      value: (i) => values[i] ?? null,
      digits: 2,
    });
  }
  const flags = t.flags;
  if (flags && flags.size > 0) {
    columns.push({
      key: 'flags',
      kind: 'badges',
      label: (w) => w('card.flags.column'),
      value: (i) => flags.get(i)?.length ?? 0,
      badges: (i, w) =>
        (flags.get(i) ?? []).map((f) => ({
          id: f.id,
          label: flagLabel(f.id, w),
          title: flagMessage(f, w),
          tone: 'flag',
        })),
    });
  }
  return columns;
}

/**
 * The data set's checks per row (datasets/run-checks.ts): a pass or fail chip, sorting failed
 * rows first (ascending) and rows no check could read last.
 */
function checksColumn(view: RunView, checks: ReadonlyMap<number, Outcome>): RowColumn {
  const outcome = (i: number) => checks.get(view.table.rows[i] ?? -1);
  return {
    key: 'checks',
    kind: 'badges',
    label: (w) => w('verdict.run.column'),
    value: (i) => {
      const o = outcome(i);
      return o === 'fail' ? 0 : o === 'pass' ? 1 : null;
    },
    badges: (i, w) => {
      const o = outcome(i);
      if (o !== 'pass' && o !== 'fail') return [];
      const label = w(o === 'pass' ? 'verdict.run.rowPass' : 'verdict.run.rowFail');
      return [{ id: o, label, title: label, tone: o }];
    },
  };
}

export interface RowFilter {
  /** Matched, case-insensitively, inside a row's id or system. */
  text?: string;
  /** Only this system's rows. */
  system?: string;
  /** Only rows carrying at least one quality flag. */
  flagged?: boolean;
}

/** The result indexes that pass the filter, in result order. */
export function filterRows(view: RunView, filter: RowFilter): number[] {
  const text = filter.text?.trim().toLocaleLowerCase() ?? '';
  const out: number[] = [];
  for (let i = 0; i < view.table.rows.length; i++) {
    if (filter.system !== undefined && filter.system !== '' && view.systems[i] !== filter.system)
      continue;
    if (filter.flagged && !view.table.flags?.has(i)) continue;
    if (
      text !== '' &&
      !(view.ids[i] ?? '').toLocaleLowerCase().includes(text) &&
      !(view.systems[i] ?? '').toLocaleLowerCase().includes(text)
    )
      continue;
    out.push(i);
  }
  return out;
}

function isEmpty(v: number | string | null): boolean {
  return v === null || v === '' || (typeof v === 'number' && Number.isNaN(v));
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * `indexes` ordered by a column: numbers numerically, text by a numeric-aware collation (doc-2
 * before doc-10), rows without a value last in either direction, ties in result order.
 */
export function sortRows(
  indexes: readonly number[],
  column: RowColumn,
  descending: boolean,
): number[] {
  const keyed = indexes.map((i) => ({ i, v: column.value(i) }));
  const sign = descending ? -1 : 1;
  keyed.sort((a, b) => {
    const ea = isEmpty(a.v);
    const eb = isEmpty(b.v);
    if (ea || eb) return ea === eb ? a.i - b.i : ea ? 1 : -1;
    const order =
      typeof a.v === 'number' && typeof b.v === 'number'
        ? a.v - b.v
        : collator.compare(String(a.v), String(b.v));
    return sign * order || a.i - b.i;
  });
  return keyed.map((k) => k.i);
}

/** The systems the rows name, for the system picker, in a numeric-aware order. */
export function rowSystems(view: RunView): string[] {
  return [...new Set(view.systems.filter((s) => s !== ''))].sort(collator.compare);
}

/** The order a header click starts with: text and row numbers A→Z, scores highest first. */
export function firstDirection(column: RowColumn): 'ascending' | 'descending' {
  return column.kind === 'text' || column.key === 'row' ? 'ascending' : 'descending';
}

/** Human columns shown at first: more than this, and only the best reference's are. */
export const SHOWN_HUMAN_COLUMNS = 4;

/**
 * The columns hidden when a run opens: with many human columns (SummEval's experts and turkers),
 * those outside the best reference's group (human-ratings.ts), so that the table fits a laptop's
 * width; the user shows them again from the column list.
 */
export function initiallyHidden(
  columns: readonly RowColumn[],
  humanColumns: readonly string[],
): Set<string> {
  const human = columns.filter((c) => c.key.startsWith('human:'));
  if (human.length <= SHOWN_HUMAN_COLUMNS) return new Set();
  const best = new Set(bestHumanRef(humanColumns)?.columns.map((c) => `human:${c}`) ?? []);
  return new Set(human.filter((c) => !best.has(c.key)).map((c) => c.key));
}
