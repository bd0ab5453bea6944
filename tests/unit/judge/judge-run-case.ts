/**
 * The case, metric list and run helper the judge-run tests share: a short news source, a summary
 * with one vague sentence, and every judge metric.
 */
import { runJudgeMetrics, type JudgeProgress } from '../../../src/lib/metrics/judge/run.ts';
import {
  DEFAULT_JUDGE_SETTINGS,
  judgeSettingsSchema,
  type JudgeSettings,
} from '../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import type { ScriptedJudge } from './scripted-judge.ts';

export const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
  'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
  'opens in 2027. Local shops fear losing customers.';
export const SUMMARY =
  'The city council voted to close the old bridge on Monday. A ferry will carry commuters until a new ' +
  'bridge opens in 2027. The article discusses the reactions of shop owners.';
export const CASE: CaseInput = { source: SOURCE, summary: SUMMARY };

export const ALL: JudgeMetricId[] = [
  'summarization',
  'alignment',
  'coverage',
  'vagueness',
  'repetitiveness',
  'geval-coherence',
  'geval-consistency',
  'geval-fluency',
  'geval-relevance',
  'geval-custom',
  'ccai-accuracy',
  'ccai-adherence',
  'ccai-completeness',
];

export function settings(patch: Partial<JudgeSettings> = {}): JudgeSettings {
  return judgeSettingsSchema.parse({ ...DEFAULT_JUDGE_SETTINGS, ...patch });
}

export async function run(
  judge: ScriptedJudge,
  input: CaseInput = CASE,
  metrics: JudgeMetricId[] = ALL,
  s: JudgeSettings = settings(),
  extra: { signal?: AbortSignal; onProgress?: (p: JudgeProgress) => void } = {},
) {
  const results: MetricResult[] = [];
  const summary = await runJudgeMetrics(input, {
    metrics,
    settings: s,
    judge,
    onResult: (r) => results.push(r),
    ...extra,
  });
  const byId = (id: JudgeMetricId) => {
    const r = results.find((x) => x.id === id);
    if (!r) throw new Error(`no result for ${id}`);
    return r;
  };
  return { results, summary, byId };
}
