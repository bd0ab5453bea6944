/**
 * The compare view's state and its per-row table, pure: the state as a URL hash
 * (`#compare?a=…&b=…&m=rouge-l&sort=regression&changed=1…`, so a reload or a bookmark returns to
 * the same view), and the pairs' deltas for one column sorted (worst regression first, …) and
 * filtered (only changed, a score range on one side).
 */
import type { Comparison, SideSpec } from './compare.ts';

export const COMPARE_SORTS = ['regression', 'improvement', 'row'] as const;
export type CompareSort = (typeof COMPARE_SORTS)[number];

export interface CompareState {
  a: SideSpec;
  b?: SideSpec;
  /** The score column of the row table and the leaderboard. */
  metric?: string;
  sort: CompareSort;
  changed: boolean;
  /** Score filter: rows whose score on `filterSide` lies in [min, max]. */
  filterSide: 'a' | 'b';
  min?: number;
  max?: number;
  /** The pair whose two summaries are shown with their word diff. */
  pair?: string;
  /** The regression gate's margin (regression-gate.ts); 0 when unset, as in the CLI. */
  margin?: number;
}

const PREFIX = '#compare?';

export function isCompareHash(hash: string): boolean {
  return hash.startsWith(PREFIX);
}

function side(params: URLSearchParams, run: string, system: string): SideSpec | undefined {
  const runId = params.get(run);
  if (!runId) return undefined;
  const s = params.get(system);
  return s ? { runId, system: s } : { runId };
}

function numberParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const v = Number(raw);
  return Number.isFinite(v) ? v : undefined;
}

/** The state a hash names, or null when it is not a comparison's. */
export function parseCompareHash(hash: string): CompareState | null {
  if (!isCompareHash(hash)) return null;
  const params = new URLSearchParams(hash.slice(PREFIX.length));
  const a = side(params, 'a', 'as');
  if (!a) return null;
  const b = side(params, 'b', 'bs');
  const sort = params.get('sort');
  const metric = params.get('m');
  const pair = params.get('pair');
  const margin = numberParam(params, 'gm');
  const min = numberParam(params, 'min');
  const max = numberParam(params, 'max');
  return {
    a,
    ...(b ? { b } : {}),
    ...(metric ? { metric } : {}),
    sort: (COMPARE_SORTS as readonly string[]).includes(sort ?? '')
      ? (sort as CompareSort)
      : 'regression',
    changed: params.get('changed') === '1',
    filterSide: params.get('fs') === 'a' ? 'a' : 'b',
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
    ...(pair ? { pair } : {}),
    ...(margin !== undefined && margin > 0 ? { margin } : {}),
  };
}

export function formatCompareHash(state: CompareState): string {
  const params = new URLSearchParams();
  params.set('a', state.a.runId);
  if (state.a.system) params.set('as', state.a.system);
  if (state.b) {
    params.set('b', state.b.runId);
    if (state.b.system) params.set('bs', state.b.system);
  }
  if (state.metric) params.set('m', state.metric);
  params.set('sort', state.sort);
  if (state.changed) params.set('changed', '1');
  if (state.min !== undefined || state.max !== undefined) params.set('fs', state.filterSide);
  if (state.min !== undefined) params.set('min', String(state.min));
  if (state.max !== undefined) params.set('max', String(state.max));
  if (state.pair) params.set('pair', state.pair);
  if (state.margin !== undefined && state.margin > 0) params.set('gm', String(state.margin));
  return PREFIX + params.toString();
}

export interface DeltaRow {
  /** Index into the comparison's pairs. */
  index: number;
  key: string;
  rowA: number;
  rowB: number;
  a: number;
  b: number;
  /** b − a; NaN when a side has no score. */
  delta: number;
}

/** The pairs of one column, filtered and sorted as the state says. */
export function deltaRows(
  comparison: Comparison,
  state: Pick<CompareState, 'metric' | 'sort' | 'changed' | 'filterSide' | 'min' | 'max'>,
): DeltaRow[] {
  const column = state.metric;
  const va = column ? comparison.valuesA.get(column) : undefined;
  const vb = column ? comparison.valuesB.get(column) : undefined;
  const out: DeltaRow[] = [];
  for (let i = 0; i < comparison.keys.length; i++) {
    const a = va ? va[i] : Number.NaN;
    const b = vb ? vb[i] : Number.NaN;
    const delta = b - a;
    if (state.changed && !(Number.isFinite(delta) && delta !== 0)) continue;
    const filtered = state.filterSide === 'a' ? a : b;
    if (state.min !== undefined && !(filtered >= state.min)) continue;
    if (state.max !== undefined && !(filtered <= state.max)) continue;
    out.push({
      index: i,
      key: comparison.keys[i],
      rowA: comparison.rowsA[i],
      rowB: comparison.rowsB[i],
      a,
      b,
      delta,
    });
  }
  // Rows without a delta go last whatever the order; ties keep the pairs' order.
  const rank = (d: number, sign: number) => (Number.isFinite(d) ? sign * d : Infinity);
  if (state.sort === 'regression')
    out.sort((x, y) => rank(x.delta, 1) - rank(y.delta, 1) || x.index - y.index);
  else if (state.sort === 'improvement')
    out.sort((x, y) => rank(x.delta, -1) - rank(y.delta, -1) || x.index - y.index);
  return out;
}
