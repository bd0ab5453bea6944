/**
 * Which Svelte component shows a scored result's details. A metric whose record says
 * `detailView: 'own'` keeps its view beside it as `<metric-id>.detail.svelte`; this finds every such
 * file, so adding a metric's view touches no list here (tests/unit/metrics/detail-views.test.ts
 * checks that views and records match one to one). The rest get the generic view.
 */
import type { Component } from 'svelte';
import { METRIC_IDS, metricRecord } from '../../lib/metrics/registry.ts';
import type {
  MetricDetailsById,
  MetricId,
  MetricResult,
  ScoredResult,
} from '../../lib/metrics/types.ts';
import GenericDetail from './GenericDetail.svelte';

/** What every detail view is given; a view declares only the props it uses. */
export interface DetailProps<D> {
  details: D;
  /** The summary the result was computed on, for highlights. */
  summary: string;
  /** The source it was judged against, for the judge's supporting spans. */
  source: string;
}

export type DetailView<K extends MetricId> = Component<DetailProps<MetricDetailsById[K]>>;

/** A scored result of any metric (a union over the ids, so `id` and `details` stay paired). */
export type AnyScoredResult = Extract<MetricResult, { status: 'ok' }>;

/** A view as the glob loads it: its props are its own metric's, which no table can name here. */
type LoadedView = Component<DetailProps<never>>;

const VIEW_FILE_SUFFIX = '.detail.svelte';

/** The metric id a view file is named for: `…/fact-check/fact-check.detail.svelte` → fact-check. */
export function viewFileId(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -VIEW_FILE_SUFFIX.length);
}

const viewFiles = import.meta.glob<LoadedView>('/src/lib/metrics/**/*.detail.svelte', {
  eager: true,
  import: 'default',
});

/** Every own view, by the metric id it is named for. */
export const OWN_DETAIL_VIEWS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(viewFiles).map(([path, view]) => [viewFileId(path), view]),
);

/** @public The paths the glob found, for the test that checks them against the records (it loads this module through Vite, which knip does not follow). */
export const OWN_DETAIL_VIEW_FILES: readonly string[] = Object.keys(viewFiles);

const knownIds = new Set<string>(METRIC_IDS);

/** The view for metric `id`: its own (or the one it shares), or the generic one. */
export function detailViewOf<K extends MetricId>(id: K): DetailView<K> {
  const kind = knownIds.has(id) ? metricRecord(id).detailView : 'generic';
  const viewId = typeof kind === 'object' ? kind.sameAs : kind === 'own' ? id : undefined;
  const view =
    viewId && Object.hasOwn(OWN_DETAIL_VIEWS, viewId) ? OWN_DETAIL_VIEWS[viewId] : undefined;
  // The view file's props are its metric's details: the record naming it is what pairs the two.
  return (view ?? GenericDetail) as DetailView<K>;
}

export interface ChosenDetailView<K extends MetricId> {
  View: DetailView<K>;
  details: MetricDetailsById[K];
}

/** The view for a scored result together with the details it shows, taken from one result. */
export function detailViewFor<K extends MetricId>(result: ScoredResult<K>): ChosenDetailView<K> {
  return { View: detailViewOf(result.id), details: result.details };
}
