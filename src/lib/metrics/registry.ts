/**
 * The one list of metrics: one record per metric id, in display order. Adding a metric is one
 * folder with its record (and its `declare module '…/types.ts'` details entry) plus, here, one
 * import and one entry; `npm run new:metric` writes all three.
 * The id lists are derived from this table, and the compiler checks it against the details maps
 * of types.ts in both directions (no id without a record, no record without an id).
 */
import type { JudgeMetricRecord, MetricInfo, MetricRecord, OfflineMetricRecord } from './record.ts';
import type { JudgeMetricId, MetricId, OfflineMetricId } from './types.ts';
import { entityDensityMetric } from './semantic/entity-density/record.ts';
import { coherenceMetric } from './semantic/coherence/record.ts';
import { sourceOrderMetric } from './semantic/source-order/record.ts';
import { supportMetric } from './semantic/support/record.ts';
import { redundancyMetric } from './semantic/redundancy/record.ts';
import { factCheckMetric } from './lexical/fact-check/record.ts';
import {
  bleuMetric,
  rouge1Metric,
  rouge2Metric,
  rougeLMetric,
  rougeLsumMetric,
  tokenF1Metric,
} from './lexical/reference/record.ts';
import { repetitionOfflineMetric } from './lexical/repetition-offline/record.ts';
import { extractivenessMetric } from './lexical/extractiveness/record.ts';
import { sourceCoverageMetric } from './lexical/source-coverage/record.ts';
import { qualityOfflineMetric } from './lexical/quality-offline/record.ts';
import { summarizationMetric } from './judge/summarization/summarization.ts';
import { alignmentMetric } from './judge/summarization/alignment.ts';
import { coverageMetric } from './judge/summarization/coverage.ts';
import { vaguenessMetric } from './judge/vagueness/vagueness.ts';
import { repetitivenessMetric } from './judge/repetitiveness/repetitiveness.ts';
import {
  gevalCoherenceMetric,
  gevalConsistencyMetric,
  gevalCustomMetric,
  gevalFluencyMetric,
  gevalRelevanceMetric,
} from './judge/g-eval/geval-metrics.ts';
import { ccaiAccuracyMetric } from './judge/ccai/ccai-accuracy.ts';
import { ccaiAdherenceMetric } from './judge/ccai/adherence.ts';
import { ccaiCompletenessMetric } from './judge/ccai/completeness.ts';

export type { MetricInfo } from './record.ts';

export const METRIC_RECORDS = {
  'entity-density': entityDensityMetric,
  coherence: coherenceMetric,
  'source-order': sourceOrderMetric,
  support: supportMetric,
  'fact-check': factCheckMetric,
  redundancy: redundancyMetric,
  'rouge-1': rouge1Metric,
  'rouge-2': rouge2Metric,
  'rouge-l': rougeLMetric,
  'rouge-lsum': rougeLsumMetric,
  bleu: bleuMetric,
  'token-f1': tokenF1Metric,
  summarization: summarizationMetric,
  alignment: alignmentMetric,
  coverage: coverageMetric,
  vagueness: vaguenessMetric,
  'repetition-offline': repetitionOfflineMetric,
  extractiveness: extractivenessMetric,
  'source-coverage': sourceCoverageMetric,
  'quality-offline': qualityOfflineMetric,
  repetitiveness: repetitivenessMetric,
  'geval-coherence': gevalCoherenceMetric,
  'geval-consistency': gevalConsistencyMetric,
  'geval-fluency': gevalFluencyMetric,
  'geval-relevance': gevalRelevanceMetric,
  'geval-custom': gevalCustomMetric,
  'ccai-accuracy': ccaiAccuracyMetric,
  'ccai-adherence': ccaiAdherenceMetric,
  'ccai-completeness': ccaiCompletenessMetric,
} satisfies {
  [K in MetricId]: K extends OfflineMetricId ? OfflineMetricRecord : JudgeMetricRecord;
};

const records: {
  [K in MetricId]: K extends OfflineMetricId ? OfflineMetricRecord : JudgeMetricRecord;
} = METRIC_RECORDS;
const entries = Object.entries(records) as Array<[MetricId, MetricRecord]>;

function isOfflineEntry(
  entry: [MetricId, MetricRecord],
): entry is [OfflineMetricId, OfflineMetricRecord] {
  return entry[1].kind === 'offline';
}
function isJudgeEntry(
  entry: [MetricId, MetricRecord],
): entry is [JudgeMetricId, JudgeMetricRecord] {
  return entry[1].kind === 'judge';
}

/** Every metric id, in display order. */
export const METRIC_IDS: readonly MetricId[] = entries.map(([id]) => id);
/** Metrics computed in the page's workers with no LLM, in display order. */
export const OFFLINE_METRIC_IDS: readonly OfflineMetricId[] = entries
  .filter(isOfflineEntry)
  .map(([id]) => id);
/** Metrics that need an LLM judge, in display order. */
export const JUDGE_METRIC_IDS: readonly JudgeMetricId[] = entries
  .filter(isJudgeEntry)
  .map(([id]) => id);

export const METRICS: readonly MetricInfo[] = entries.map(([id, record]) => ({
  id,
  ...record.info,
}));

const infoById = new Map(METRICS.map((m) => [m.id, m]));

export function metricInfo(id: MetricId): MetricInfo {
  const info = infoById.get(id);
  if (!info) throw new Error(`Unknown metric id: ${id}`);
  return info;
}

export function metricRecord<K extends MetricId>(
  id: K,
): K extends OfflineMetricId ? OfflineMetricRecord : JudgeMetricRecord;
export function metricRecord(id: MetricId): MetricRecord {
  const record = records[id];
  if (!record) throw new Error(`Unknown metric id: ${id}`);
  return record;
}

export function judgeRecord(id: JudgeMetricId): JudgeMetricRecord {
  return records[id];
}
