/**
 * Two runs, or two systems of one run, compared row by row (SPEC §6, issue 15): the rows paired,
 * and per score column the mean difference (candidate B − baseline A) with its paired bootstrap
 * interval, the Wilcoxon signed-rank p-value, and wins, ties and losses. A column whose backend
 * differs between the sides is reported as not comparable, never as a difference: scores of
 * different backends do not compare.
 *
 * Rows pair by
 * - the source (`group`) when a side is one system of a data set: SummEval's systems each
 *   summarise the same articles;
 * - the row number within one data set;
 * - across data sets, the record id when every row has a distinct one, else the source, else the
 *   row number (a file imported twice, predictions generated with two prompts).
 *
 * Built in the calibration worker, next to the rows it reads; only these numbers reach the page.
 */
import type { StoredRun, StoredRunResult } from '../storage/schema.ts';
import type { DatasetRow } from '../rows/formats.ts';
import { bootstrapMean, pairedDifferences } from '../stats/paired-bootstrap.ts';
import { wilcoxon } from '../stats/wilcoxon.ts';
import { scoreKey } from './calibration.ts';
import { scoreColumns, taskColumn } from './run-view.ts';
import { tallyQualityFlags, type FlagTally } from '../metrics/quality-flags.ts';

/** What pairing reads of a data-set row. */
export type CompareRow = Pick<DatasetRow, 'row' | 'id' | 'group' | 'system'>;

/** One side of a comparison: a run, or one system's rows of it. */
export interface SideSpec {
  runId: string;
  system?: string;
}

export interface SideData {
  datasetId: string;
  run: StoredRun;
  rows: readonly CompareRow[];
  results: readonly StoredRunResult[];
  system?: string;
}

export type Pairing = 'source' | 'row' | 'id';

export interface MetricComparison {
  column: string;
  /** The backend of each side ('a + b' when a side mixes several). */
  backendA: string;
  backendB: string;
  comparable: boolean;
  /** Pairs with a score on both sides. */
  n: number;
  meanA: number | null;
  meanB: number | null;
  /** mean(B − A) over the n pairs. */
  meanDiff: number | null;
  low: number | null;
  high: number | null;
  pValue: number | null;
  pMethod: 'exact' | 'approx' | null;
  wins: number;
  ties: number;
  losses: number;
}

export interface Comparison {
  pairing: Pairing;
  /** Per pair: its key, and the row number on each side. */
  keys: string[];
  rowsA: number[];
  rowsB: number[];
  /** Rows of a side with no partner, and rows whose key another row of the side already had. */
  unpaired: { a: number; b: number };
  duplicates: { a: number; b: number };
  metrics: MetricComparison[];
  /** Per column, each pair's score on a side when 'ok', else NaN. */
  valuesA: Map<string, Float64Array<ArrayBuffer>>;
  valuesB: Map<string, Float64Array<ArrayBuffer>>;
  /** Per side, how many of the paired rows carry each flag of the quality estimate. */
  flags?: { a: FlagTally; b: FlagTally };
}

/** The bootstrap's resamples and seed, the same for every column (so a figure can be redone). */
export const COMPARE_BOOTSTRAP = { resamples: 2000, seed: 2024 } as const;

interface SideScores {
  byKey: Map<string, number>;
  duplicates: number;
  count: number;
  results: readonly StoredRunResult[];
}

function rowsOfSide(side: SideData): Map<number, CompareRow> {
  const rows = new Map<number, CompareRow>();
  for (const r of side.rows) {
    if (side.system === undefined || r.system === side.system) rows.set(r.row, r);
  }
  return rows;
}

/** Whether `key` is defined and distinct for every row of each side. */
function distinct(sides: Map<number, CompareRow>[], key: (r: CompareRow) => string | undefined) {
  return sides.every((rows) => {
    const seen = new Set<string>();
    for (const r of rows.values()) {
      const k = key(r);
      if (k === undefined || seen.has(k)) return false;
      seen.add(k);
    }
    return true;
  });
}

function choosePairing(a: SideData, b: SideData, rows: Map<number, CompareRow>[]): Pairing {
  if (a.system !== undefined || b.system !== undefined) return 'source';
  if (a.datasetId === b.datasetId) return 'row';
  if (distinct(rows, (r) => r.id)) return 'id';
  if (distinct(rows, (r) => r.group)) return 'source';
  return 'row';
}

function keyOf(pairing: Pairing, r: CompareRow): string | undefined {
  if (pairing === 'row') return String(r.row);
  if (pairing === 'id') return r.id;
  return r.group;
}

function indexSide(side: SideData, rows: Map<number, CompareRow>, pairing: Pairing): SideScores {
  const byKey = new Map<string, number>();
  let duplicates = 0;
  let count = 0;
  side.results.forEach((result, i) => {
    const row = rows.get(result.row);
    if (!row) return;
    count++;
    const key = keyOf(pairing, row);
    if (key === undefined) return;
    if (byKey.has(key)) duplicates++;
    else byKey.set(key, i);
  });
  return { byKey, duplicates, count, results: side.results };
}

/** Each result's score per column ('ok' only), and the backends a column's results name. */
function scoresOf(result: StoredRunResult): Map<string, { score: number; backend: string }> {
  const out = new Map<string, { score: number; backend: string }>();
  if (result.task) {
    const column = taskColumn(result.task.task);
    out.set(column, { score: result.task.score, backend: column });
  }
  for (const m of result.results) {
    const score = m.status === 'ok' && m.score !== null ? m.score : Number.NaN;
    out.set(scoreKey(m), { score, backend: m.backend });
  }
  return out;
}

function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function backendLabel(backends: ReadonlySet<string>): string {
  return backends.size === 0 ? 'none' : [...backends].sort().join(' + ');
}

/** The statistics of one column over its pairs. */
export function compareColumn(
  column: string,
  a: Float64Array,
  b: Float64Array,
  backendsA: ReadonlySet<string>,
  backendsB: ReadonlySet<string>,
): MetricComparison {
  const backendA = backendLabel(backendsA);
  const backendB = backendLabel(backendsB);
  const comparable = backendsA.size === 1 && backendsB.size === 1 && backendA === backendB;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < a.length; i++) {
    if (Number.isFinite(a[i]) && Number.isFinite(b[i])) {
      xs.push(a[i]);
      ys.push(b[i]);
    }
  }
  const empty = {
    meanDiff: null,
    low: null,
    high: null,
    pValue: null,
    pMethod: null,
    wins: 0,
    ties: 0,
    losses: 0,
  };
  const base = {
    column,
    backendA,
    backendB,
    comparable,
    n: xs.length,
    meanA: meanOf(xs),
    meanB: meanOf(ys),
  };
  if (!comparable || xs.length === 0) return { ...base, ...empty };
  const d = pairedDifferences(xs, ys);
  let wins = 0;
  let losses = 0;
  for (const v of d) {
    if (v > 0) wins++;
    else if (v < 0) losses++;
  }
  const interval = bootstrapMean(d, COMPARE_BOOTSTRAP);
  const test = wilcoxon(d);
  return {
    ...base,
    meanDiff: interval?.mean ?? null,
    low: interval?.low ?? null,
    high: interval?.high ?? null,
    pValue: test ? test.pValue : 1,
    pMethod: test?.method ?? null,
    wins,
    ties: d.length - wins - losses,
    losses,
  };
}

/** The two sides paired and compared (see the module comment). */
export function compareSides(a: SideData, b: SideData): Comparison {
  const rows = [rowsOfSide(a), rowsOfSide(b)];
  const pairing = choosePairing(a, b, rows);
  const sa = indexSide(a, rows[0], pairing);
  const sb = indexSide(b, rows[1], pairing);
  const keys: string[] = [];
  const rowsA: number[] = [];
  const rowsB: number[] = [];
  const pairsIdx: [number, number][] = [];
  for (const [key, ia] of sa.byKey) {
    const ib = sb.byKey.get(key);
    if (ib === undefined) continue;
    keys.push(key);
    rowsA.push(a.results[ia].row);
    rowsB.push(b.results[ib].row);
    pairsIdx.push([ia, ib]);
  }
  if (pairing === 'row') {
    const order = keys.map((_, i) => i).sort((x, y) => rowsA[x] - rowsA[y]);
    for (const list of [keys, rowsA, rowsB, pairsIdx] as unknown[][]) {
      const copy = list.slice();
      order.forEach((from, to) => (list[to] = copy[from]));
    }
  }
  const columns = [
    ...new Set([...scoreColumns(a.run, a.results), ...scoreColumns(b.run, b.results)]),
  ];
  const n = keys.length;
  const valuesA = new Map<string, Float64Array<ArrayBuffer>>();
  const valuesB = new Map<string, Float64Array<ArrayBuffer>>();
  const backendsA = new Map<string, Set<string>>();
  const backendsB = new Map<string, Set<string>>();
  for (const c of columns) {
    valuesA.set(c, new Float64Array(n).fill(Number.NaN));
    valuesB.set(c, new Float64Array(n).fill(Number.NaN));
    backendsA.set(c, new Set());
    backendsB.set(c, new Set());
  }
  pairsIdx.forEach(([ia, ib], i) => {
    for (const [results, values, backends, idx] of [
      [a.results, valuesA, backendsA, ia],
      [b.results, valuesB, backendsB, ib],
    ] as const) {
      for (const [column, s] of scoresOf(results[idx])) {
        const v = values.get(column);
        if (!v) continue;
        v[i] = s.score;
        if (Number.isFinite(s.score)) backends.get(column)!.add(s.backend);
      }
    }
  });
  const metrics = columns.map((c) =>
    compareColumn(c, valuesA.get(c)!, valuesB.get(c)!, backendsA.get(c)!, backendsB.get(c)!),
  );
  const flags = {
    a: tallyQualityFlags(pairsIdx.map(([ia]) => a.results[ia].results)),
    b: tallyQualityFlags(pairsIdx.map(([, ib]) => b.results[ib].results)),
  };
  return {
    pairing,
    keys,
    rowsA,
    rowsB,
    unpaired: { a: sa.count - sa.duplicates - n, b: sb.count - sb.duplicates - n },
    duplicates: { a: sa.duplicates, b: sb.duplicates },
    metrics,
    valuesA,
    valuesB,
    flags,
  };
}

/** The systems of a data set's rows, sorted (several only where it holds several per source). */
export function systemsOf(rows: Iterable<CompareRow>): string[] {
  const systems = new Set<string>();
  for (const r of rows) if (r.system !== undefined) systems.add(r.system);
  return [...systems].sort((x, y) => x.localeCompare(y, undefined, { numeric: true }));
}
