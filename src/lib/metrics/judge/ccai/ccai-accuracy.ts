/**
 * The call-center accuracy record. Its scoring lives in accuracy.ts, which the claims pipeline
 * imports to turn the alignment verdicts into points; the record names that pipeline, so it sits
 * in a file of its own instead of closing an import cycle.
 */
import type { JudgeMetricRecord } from '../../record.ts';
import { claimsBuilder, CLAIMS_PROMPTS } from '../summarization/alignment.ts';
import type { AccuracyDetails } from './accuracy.ts';

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    'ccai-accuracy': AccuracyDetails;
  }
}

export const ccaiAccuracyMetric = {
  kind: 'judge',
  info: {
    label: 'Accuracy (call center)',
    needs: 'llm',
    meaning:
      'Share of the summary points that the judge finds accurate against the source (reuses the alignment claims).',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.accuracy.none': 'The summary states no point to check.',
    'judgeMetrics.accuracy.neutral':
      'No point could be counted: every point is unsupported, and unsupported points are set to count as neutral.',
    'judgeMetrics.accuracy.explanation':
      '{accurate} of {counted} summary points are accurate against the source ({share, number, percent}).',
    'judge.detail.points': 'Points',
  },
  detailView: 'own',
  prompts: CLAIMS_PROMPTS,
  pipelines: [claimsBuilder],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
