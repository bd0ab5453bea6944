/**
 * The shape of a metric record: everything the app needs to know about one metric, in one place.
 * registry.ts lists one record per metric id; the compiler checks that every id has one.
 */
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
 * Which view shows a scored result's details: 'own' = the metric's entry in the UI's table of
 * detail views (src/components/metrics/detail-views.ts, checked by the compiler); 'generic' = the
 * shared key/value view, for metrics whose details are a few plain fields.
 */
export type DetailViewKind = 'own' | 'generic';

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

export interface OfflineMetricRecord<V extends DetailViewKind = DetailViewKind> {
  kind: 'offline';
  info: Omit<MetricInfo, 'id'>;
  detailView: V;
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

export interface JudgeMetricRecord<V extends DetailViewKind = DetailViewKind> {
  kind: 'judge';
  info: Omit<MetricInfo, 'id'>;
  /**
   * The metric's own English messages (full key → ICU MessageFormat text): the one source of the
   * generated English catalog's entries for them; messages several metrics use stay in the
   * catalog's JSON files.
   */
  messages?: Readonly<Record<string, string>>;
  detailView: V;
  /** The prompts this metric's calls are rendered from (test judges recognise calls by them). */
  prompts: readonly JudgePrompt[];
  /** The builders whose pipelines produce this metric (run order: first appearance in the registry). */
  pipelines: readonly JudgePipelineBuilder[];
  /** Whether a default judge run selects it. */
  inDefaultRun(settings: JudgeSettings): boolean;
}

export type MetricRecord = OfflineMetricRecord | JudgeMetricRecord;
