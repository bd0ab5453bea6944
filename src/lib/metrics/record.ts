/**
 * The shape of a metric record: everything the app needs to know about one metric, in one place.
 * registry.ts lists one record per metric id; the compiler checks that every id has one.
 */
import type { MessageKey } from '../i18n/catalog-en.ts';
import type { CaseInput, JudgeMetricId, MetricId, MetricNeeds, MetricResult } from './types.ts';
import type { MetricSettings } from './settings.ts';
import type { OfflineBackends } from './offline.ts';
import type { CaseTokenizer } from './text/case-tokenizer.ts';
import type { JudgeSettings } from './judge/settings.ts';
import type { JudgePrompt } from './judge/prompt-kit.ts';
import type { Pipeline, RunEnv } from './judge/pipeline.ts';
import type { ClaimsPipeline } from './judge/summarization/alignment.ts';
import type { CoveragePipeline } from './judge/summarization/coverage.ts';

export interface MetricInfo {
  id: MetricId;
  label: string;
  needs: MetricNeeds;
  /** One honest line: what the score says, and what it does not. */
  meaning: string;
  /** Paper or tool the variant follows. */
  citation: string;
  /** Score range for display. */
  range: [number, number];
}

/**
 * Which view shows a scored result's details: 'own' = the file `<metric-id>.detail.svelte` in the
 * metric's folder (found by src/components/metrics/detail-views.ts); `{ sameAs }` = that metric's
 * own view, for metrics of one calculation whose details have one shape; 'generic' = the shared
 * key/value view, for metrics whose details are a few plain fields.
 */
export type DetailViewKind = 'own' | 'generic' | { sameAs: MetricId };

/**
 * What every record holds beside its computation. `info` and `messages` are the metric's one
 * English source: scripts/i18n-metrics.ts writes them into the catalog (src/messages/en/metrics.json)
 * and fills the other locales from it.
 */
/** Where the validity report (npm run validity) files a metric's rows, and what names them. */
export interface ValidityEntry {
  /** The backend family in its built-in row's key (`coherence-use-lite`), so rows of other models differ. */
  family: string;
  /** The message that names its rows on the page (the report stores the English label). */
  label: MessageKey;
}

interface RecordText<V extends DetailViewKind> {
  info: Omit<MetricInfo, 'id'>;
  detailView: V;
  /** The metric's own messages (full key → ICU MessageFormat English); shared ones stay in src/messages/en. */
  messages?: Readonly<Record<string, string>>;
  /** Set for a metric the validity report measures. */
  validity?: ValidityEntry;
}

/** One offline computation for one case; the backends are shared by every metric of the case. */
export interface OfflineRun {
  input: CaseInput;
  settings: MetricSettings;
  backends: OfflineBackends;
  /** The case's one tokenizer, decided once from its language (loads jieba for Chinese). */
  tokenizer: () => Promise<CaseTokenizer>;
  signal?: AbortSignal;
}

/**
 * A calculator that scores several metrics in one pass (the reference metrics share tokenisation):
 * every metric naming the same calculator is computed by one call.
 */
export interface SharedOfflineCalculator {
  /** Backend string of the results when the whole pass throws. */
  backend: string;
  /** Scores `wanted` (the ids that name this calculator and were asked for), or more. */
  computeAll(run: OfflineRun, wanted: readonly MetricId[]): Promise<MetricResult[]>;
}

export interface OfflineMetricRecord<
  V extends DetailViewKind = DetailViewKind,
> extends RecordText<V> {
  kind: 'offline';
  /** The metric's own computation, or the shared calculator it is one output of. */
  compute: ((run: OfflineRun) => Promise<MetricResult>) | SharedOfflineCalculator;
}

/** Pipelines one builder adds to a judge run. */
export interface BuiltPart {
  pipelines: Pipeline[];
  /** True when a pipeline fills a G-Eval form (needs the judge's capabilities). */
  needsCapabilities: boolean;
  /** The claims pipeline, which the summarization card combines with coverage. */
  claims?: ClaimsPipeline;
  /** The coverage pipeline, which the summarization card combines with the claims. */
  coverage?: CoveragePipeline;
}

/**
 * Builds the pipelines of a judge run. Metrics that share calls name the same builder, which is
 * run once and told every wanted metric (e.g. the claims pipeline serves alignment, call-center
 * accuracy and the summarization card).
 */
export interface JudgePipelineBuilder {
  build(env: RunEnv, want: ReadonlySet<JudgeMetricId>): BuiltPart;
}

export interface JudgeMetricRecord<
  V extends DetailViewKind = DetailViewKind,
> extends RecordText<V> {
  kind: 'judge';
  /** The prompts this metric's calls are rendered from (test judges recognise calls by them). */
  prompts: readonly JudgePrompt[];
  /** The builders whose pipelines produce this metric (run order: first appearance in the registry). */
  pipelines: readonly JudgePipelineBuilder[];
  /** Whether a default judge run selects it. */
  inDefaultRun(settings: JudgeSettings): boolean;
}

export type MetricRecord = OfflineMetricRecord | JudgeMetricRecord;
