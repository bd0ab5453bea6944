/**
 * Which human rating a view puts a metric against, and what the views open on. A data set's human
 * columns are its own names (SummEval: `expert_coherence`, `expert_consistency`, `expert_fluency`,
 * `expert_relevance`, then the turkers'); the view reads them as references:
 * - one per column;
 * - where a group of columns shares a prefix (`expert_…`) or the data set has several columns and
 *   no prefix, the mean of that group's dimensions per row, since no single dimension is "the"
 *   judgement of a summary.
 * The best match is a column named overall (or quality, score, rating), else the first group's
 * mean, else the only column. Pure, for the page, the worker and the tests.
 */
import { QUALITY_METRIC_ID } from '../metrics/quality-flags.ts';
import { humanColumnLabel } from './column-labels.ts';
import { englishWords, type Words } from './export/words.ts';

/** A rating a view can read per row: a column, or the mean of several. */
export interface HumanRef {
  /** `human:<name>` for a column, `mean:<prefix>` for a group's mean (unique among refs). */
  key: string;
  /** The columns it reads (one for a column). */
  columns: string[];
  /** For a mean: the shared prefix without its separator (`expert`), '' where there is none. */
  group?: string;
}

const OVERALL = /^(?:.*[_\s.-])?(overall|overall[_\s-]?quality|quality|score|rating)$/iu;

/** The prefix a dimension column shares with its group (`expert_` of `expert_coherence`). */
function prefixOf(column: string): string {
  const match = /^(.+?[_.-])[^_.-]+$/u.exec(column);
  return match ? match[1]! : '';
}

export function columnRef(column: string): HumanRef {
  return { key: `human:${column}`, columns: [column] };
}

/**
 * The references of a data set's human columns: every column, then a mean for each group of two
 * or more dimensions (by prefix; all columns when none has a prefix), in first-seen order.
 */
export function humanRefs(humanColumns: readonly string[]): HumanRef[] {
  const refs = humanColumns.map(columnRef);
  const groups = new Map<string, string[]>();
  for (const c of humanColumns) {
    if (OVERALL.test(c)) continue;
    const p = prefixOf(c);
    const list = groups.get(p) ?? [];
    list.push(c);
    groups.set(p, list);
  }
  for (const [prefix, columns] of groups) {
    if (columns.length < 2) continue;
    refs.push({ key: `mean:${prefix}`, columns, group: prefix.replace(/[_.-]$/u, '') });
  }
  return refs;
}

/** What a person reads for a reference: the column's label, or which dimensions' mean it is. */
export function humanRefLabel(ref: HumanRef, w: Words = englishWords): string {
  if (ref.group === undefined) return humanColumnLabel(ref.columns[0] ?? '', w);
  return ref.group === ''
    ? w('views.human.meanAll', { count: ref.columns.length })
    : w('views.human.mean', { group: ref.group, count: ref.columns.length });
}

/** The reference that answers "how good did people find it": see the module comment. */
export function bestHumanRef(humanColumns: readonly string[]): HumanRef | undefined {
  const overall = humanColumns.find((c) => OVERALL.test(c));
  if (overall !== undefined) return columnRef(overall);
  const refs = humanRefs(humanColumns);
  return refs.find((r) => r.key.startsWith('mean:')) ?? refs[0];
}

/** A row's rating under `ref`: the mean of the ref's columns the row has, NaN with none. */
export function ratingOf(ref: HumanRef, human: Readonly<Record<string, number>>): number {
  let sum = 0;
  let n = 0;
  for (const c of ref.columns) {
    const v = human[c];
    if (v !== undefined && Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n > 0 ? sum / n : Number.NaN;
}

/** The same over columns of ratings lined up by index (a run view's `ratings`). */
export function ratingValues(
  ref: HumanRef,
  ratings: ReadonlyMap<string, Float64Array>,
  length: number,
): Float64Array<ArrayBuffer> {
  const out = new Float64Array(length).fill(Number.NaN);
  const columns = ref.columns.flatMap((c) => {
    const v = ratings.get(c);
    return v ? [v] : [];
  });
  for (let i = 0; i < length; i++) {
    let sum = 0;
    let n = 0;
    for (const v of columns) {
      const x = v[i]!;
      if (Number.isFinite(x)) {
        sum += x;
        n++;
      }
    }
    if (n > 0) out[i] = sum / n;
  }
  return out;
}

/**
 * A chart's axis: a score column as the run names it (a metric id, `task:…`, `geval-custom:…`,
 * never starting `human:` or `mean:`) or a human reference's key.
 */
export type AxisKey = string;

/** The human reference an axis names, if it names one. */
export function axisRef(key: AxisKey, humanColumns: readonly string[]): HumanRef | undefined {
  const best = bestHumanRef(humanColumns);
  if (best?.key === key) return best;
  return humanRefs(humanColumns).find((r) => r.key === key);
}

export interface DefaultAxes {
  /** The histogram's metric and the scatter's x. */
  metric: string;
  /** The scatter's y: a human reference's key where the rows have ratings, else a metric axis. */
  against: AxisKey;
}

/**
 * What the run view's charts open on: the quality estimate (else the first column) against the
 * best human reference, or, without ratings, against the next score column. A choice the user made
 * that the run still offers wins.
 */
export function defaultAxes(
  columns: readonly string[],
  humanColumns: readonly string[],
  chosen: { metric?: string; against?: AxisKey } = {},
): DefaultAxes | undefined {
  if (columns.length === 0) return undefined;
  const refs = humanRefs(humanColumns);
  const metric =
    chosen.metric !== undefined && columns.includes(chosen.metric)
      ? chosen.metric
      : columns.includes(QUALITY_METRIC_ID)
        ? QUALITY_METRIC_ID
        : columns[0]!;
  const offered = (key: AxisKey) => refs.some((r) => r.key === key) || columns.includes(key);
  if (chosen.against !== undefined && offered(chosen.against)) {
    return { metric, against: chosen.against };
  }
  const best = bestHumanRef(humanColumns);
  if (best) return { metric, against: best.key };
  const other = columns.find((c) => c !== metric) ?? metric;
  return { metric, against: other };
}

/**
 * The column a comparison opens on: the one asked for where the comparison has it, else the
 * quality estimate where it is comparable, else the first comparable column, else the first.
 */
export function defaultCompareColumn(
  metrics: readonly { column: string; comparable: boolean; n: number }[],
  asked?: string,
): string | undefined {
  if (asked !== undefined && metrics.some((m) => m.column === asked)) return asked;
  const comparable = metrics.filter((m) => m.comparable && m.n > 0);
  return (
    comparable.find((m) => m.column === QUALITY_METRIC_ID)?.column ??
    comparable[0]?.column ??
    metrics[0]?.column
  );
}
