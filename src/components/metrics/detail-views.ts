/**
 * The table of detail views: which Svelte component shows a scored result's details, by metric id.
 * Every metric whose record says `detailView: 'own'` must have its entry here and no other metric
 * may (the `satisfies` checks both); the rest get the generic view. Each view is typed with its
 * own metric's details, so no view guesses a shape.
 */
import type { Component } from 'svelte';
import type { OwnDetailViewId } from '../../lib/metrics/registry.ts';
import type {
  MetricDetailsById,
  MetricId,
  MetricResult,
  ScoredResult,
} from '../../lib/metrics/types.ts';
import AccuracyDetail from '../../lib/metrics/judge/ccai/ccai-accuracy.detail.svelte';
import AdherenceDetail from '../../lib/metrics/judge/ccai/ccai-adherence.detail.svelte';
import CompletenessDetail from '../../lib/metrics/judge/ccai/ccai-completeness.detail.svelte';
import GEvalCoherenceDetail from '../../lib/metrics/judge/g-eval/geval-coherence.detail.svelte';
import GEvalConsistencyDetail from '../../lib/metrics/judge/g-eval/geval-consistency.detail.svelte';
import GEvalCustomDetail from '../../lib/metrics/judge/g-eval/geval-custom.detail.svelte';
import GEvalFluencyDetail from '../../lib/metrics/judge/g-eval/geval-fluency.detail.svelte';
import GEvalRelevanceDetail from '../../lib/metrics/judge/g-eval/geval-relevance.detail.svelte';
import RepetitivenessDetail from '../../lib/metrics/judge/repetitiveness/repetitiveness.detail.svelte';
import AlignmentDetail from '../../lib/metrics/judge/summarization/alignment.detail.svelte';
import CoverageDetail from '../../lib/metrics/judge/summarization/coverage.detail.svelte';
import SummarizationDetail from '../../lib/metrics/judge/summarization/summarization.detail.svelte';
import VaguenessDetail from '../../lib/metrics/judge/vagueness/vagueness.detail.svelte';
import BleuDetail from './BleuDetail.svelte';
import CoherenceDetail from './CoherenceDetail.svelte';
import EntityDetail from './EntityDetail.svelte';
import ExtractivenessDetail from './ExtractivenessDetail.svelte';
import FactCheckDetail from './FactCheckDetail.svelte';
import GenericDetail from './GenericDetail.svelte';
import QualityDetail from './QualityDetail.svelte';
import RedundancyDetail from './RedundancyDetail.svelte';
import RepetitionDetail from './RepetitionDetail.svelte';
import RougeDetail from './RougeDetail.svelte';
import SourceCoverageDetail from './SourceCoverageDetail.svelte';
import SourceOrderDetail from './SourceOrderDetail.svelte';
import SupportDetail from './SupportDetail.svelte';
import TokenF1Detail from './TokenF1Detail.svelte';

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

export const OWN_DETAIL_VIEWS = {
  'entity-density': EntityDetail,
  coherence: CoherenceDetail,
  'source-order': SourceOrderDetail,
  support: SupportDetail,
  'fact-check': FactCheckDetail,
  redundancy: RedundancyDetail,
  'repetition-offline': RepetitionDetail,
  extractiveness: ExtractivenessDetail,
  'source-coverage': SourceCoverageDetail,
  'quality-offline': QualityDetail,
  'rouge-1': RougeDetail,
  'rouge-2': RougeDetail,
  'rouge-l': RougeDetail,
  'rouge-lsum': RougeDetail,
  bleu: BleuDetail,
  'token-f1': TokenF1Detail,
  summarization: SummarizationDetail,
  alignment: AlignmentDetail,
  coverage: CoverageDetail,
  vagueness: VaguenessDetail,
  repetitiveness: RepetitivenessDetail,
  'geval-coherence': GEvalCoherenceDetail,
  'geval-consistency': GEvalConsistencyDetail,
  'geval-fluency': GEvalFluencyDetail,
  'geval-relevance': GEvalRelevanceDetail,
  'geval-custom': GEvalCustomDetail,
  'ccai-accuracy': AccuracyDetail,
  'ccai-adherence': AdherenceDetail,
  'ccai-completeness': CompletenessDetail,
} satisfies { [K in OwnDetailViewId]: DetailView<K> };

const views: { readonly [K in MetricId]?: DetailView<K> } = OWN_DETAIL_VIEWS;

/** The view for metric `id`: its own, or the generic one. */
export function detailViewOf<K extends MetricId>(id: K): DetailView<K> {
  return (Object.hasOwn(views, id) ? views[id] : undefined) ?? GenericDetail;
}

export interface ChosenDetailView<K extends MetricId> {
  View: DetailView<K>;
  details: MetricDetailsById[K];
}

/** The view for a scored result together with the details it shows, taken from one result. */
export function detailViewFor<K extends MetricId>(result: ScoredResult<K>): ChosenDetailView<K> {
  return { View: detailViewOf(result.id), details: result.details };
}
