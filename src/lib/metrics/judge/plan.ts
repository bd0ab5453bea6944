/**
 * Which judge calls a case needs, in which round, and roughly how many tokens they take: the same
 * pipelines the run executes (buildPipelines), asked for estimates instead of run. The UI shows the
 * plan and its cost (src/lib/llm/prices.ts) before a run. Estimates are upper bounds: the judge's
 * cache may answer some calls (G-Eval steps are shared by every case), a summary with no claims
 * skips the verdicts, and an all-"idk" summary skips the grades.
 */
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
import type { Capabilities } from '../../llm/types.ts';
import type { CaseInput, JudgeMetricId } from '../types.ts';
import type { Round } from './call.ts';
import { fitSource, type ContextNote } from './context.ts';
import { chooseMethod, type MethodPlan } from './g-eval/method.ts';
import type { Pipeline, RunEnv } from './pipeline.ts';
import { usableJudgeRun, type JudgeSettings } from './settings.ts';
import type { ClaimsPipeline } from './summarization/alignment.ts';
import type { CoveragePipeline } from './summarization/coverage.ts';
import { JUDGE_METRIC_IDS, judgeRecord } from '../registry.ts';

export interface BuiltPipelines {
  pipelines: Pipeline[];
  /** Present when alignment, call-center accuracy or the summarization card is asked for. */
  claims?: ClaimsPipeline;
  /** Present when coverage or the summarization card is asked for. */
  coverage?: CoveragePipeline;
  /** True when some pipeline fills a G-Eval form (needs the judge's capabilities). */
  needsCapabilities: boolean;
}

/**
 * The pipelines a set of metrics needs. Each builder named by a wanted metric's record runs once
 * (metrics sharing calls share its pipelines), in the order builders first appear in the registry.
 */
export function buildPipelines(metrics: readonly JudgeMetricId[], env: RunEnv): BuiltPipelines {
  const want = new Set(metrics);
  const wantedBuilders = new Set(metrics.flatMap((id) => judgeRecord(id).pipelines));
  const builders = new Set(JUDGE_METRIC_IDS.flatMap((id) => judgeRecord(id).pipelines));
  const built: BuiltPipelines = { pipelines: [], needsCapabilities: false };
  for (const builder of builders) {
    if (!wantedBuilders.has(builder)) continue;
    const part = builder.build(env, want);
    built.pipelines.push(...part.pipelines);
    built.needsCapabilities ||= part.needsCapabilities;
    built.claims ??= part.claims;
    built.coverage ??= part.coverage;
  }
  return built;
}

/**
 * What a new user (no saved choice) is judged with: the summarization F1 with its alignment and
 * coverage, which share every call, and one G-Eval dimension (consistency: the one that reads
 * the source). Every judge metric ticked by default cost 111 requests for one short summary.
 */
export const SMALL_DEFAULT_JUDGE_METRICS: readonly JudgeMetricId[] = [
  'summarization',
  'alignment',
  'coverage',
  'geval-consistency',
];

/** The judge metrics a default run selects, in registry order: the small set, where each record
 * says it may be in a default run (a G-Eval criterion switched off in the settings is not). */
export function defaultJudgeMetrics(settings: JudgeSettings): JudgeMetricId[] {
  return JUDGE_METRIC_IDS.filter(
    (id) => SMALL_DEFAULT_JUDGE_METRICS.includes(id) && judgeRecord(id).inDefaultRun(settings),
  );
}

/** The environment of one case: the source fitted to the context once, shared by every call. */
export function makeEnv(
  input: CaseInput,
  settings: JudgeSettings,
  backend: string,
  capabilities: () => Promise<Capabilities>,
): RunEnv {
  const fitted = fitSource(input.source, input.summary, settings.contextTokens);
  return { input, settings, source: fitted.text, context: fitted.note, backend, capabilities };
}

export interface PlannedCall {
  /** The metric the call is for (the first, when several share it). */
  metric: JudgeMetricId;
  /** Every metric that uses its answer. */
  serves: JudgeMetricId[];
  purpose: string;
  /** The purpose as a message, worded by the plan view in the reader's language. */
  purposeRef?: MessageRef;
  estimatedInputTokens: number;
  estimatedOutputTokens: number;
  /** HTTP requests (n samples without `n` support are n requests). */
  httpCalls: number;
}

export interface JudgePlan {
  rounds: Array<{ round: Round; calls: PlannedCall[] }>;
  /** HTTP requests in all. */
  totalCalls: number;
  /** Logical calls (one per planned call, n samples counted once). */
  logicalCalls: number;
  estimatedTokens: { input: number; output: number; total: number };
  /** How G-Eval forms will be filled; null when no G-Eval metric is planned. */
  gevalMethod: MethodPlan | null;
  context: ContextNote;
  /** English, for the CLI and tests; `noteRefs` (same order) is what the page words. */
  notes: string[];
  noteRefs: MessageRef[];
}

/**
 * The calls a run of these metrics on this case will make, per round, with token estimates.
 * `capabilities` undefined (not probed yet) plans G-Eval with the costlier sampling path. A
 * metric a bad setting stops makes no call (run.ts), so it plans none.
 *
 * Request counts are upper bounds: n samples are counted as n requests even where the provider
 * takes `n`, because a provider that returns fewer choices than asked is topped up one request
 * per missing sample (sampling.ts), and that is only known once it answers.
 */
export function planJudgeRun(
  requested: readonly JudgeMetricId[],
  input: CaseInput,
  requestedSettings: JudgeSettings,
  capabilities?: Capabilities,
): JudgePlan {
  const { metrics, settings } = usableJudgeRun(requested, requestedSettings);
  const env = makeEnv(input, settings, 'judge:plan', () =>
    capabilities ? Promise.resolve(capabilities) : Promise.reject(new Error('not probed')),
  );
  const built = buildPipelines(metrics, env);
  const rounds: JudgePlan['rounds'] = [];
  let totalCalls = 0;
  let logicalCalls = 0;
  let input_ = 0;
  let output = 0;
  for (const round of [1, 2, 3] as const) {
    const calls: PlannedCall[] = [];
    for (const p of built.pipelines) {
      for (const s of p.stages) {
        if (s.round !== round) continue;
        const e = s.estimate(capabilities ? { ...capabilities, n: false } : undefined);
        calls.push({
          metric: s.metric,
          serves: s.serves,
          purpose: s.purpose,
          ...(s.purposeRef ? { purposeRef: s.purposeRef } : {}),
          estimatedInputTokens: e.inputTokens,
          estimatedOutputTokens: e.outputTokens,
          httpCalls: e.httpCalls,
        });
        totalCalls += e.httpCalls;
        logicalCalls++;
        input_ += e.inputTokens;
        output += e.outputTokens;
      }
    }
    if (calls.length > 0) rounds.push({ round, calls });
  }
  const noteRefs: MessageRef[] = [];
  const gevalMethod = built.needsCapabilities ? chooseMethod(settings, capabilities) : null;
  if (gevalMethod && !capabilities && settings.gevalMethod !== 'greedy') {
    noteRefs.push(ref('judgeMetrics.plan.notProbed'));
  }
  if (gevalMethod?.note) noteRefs.push(gevalMethod.note);
  if (gevalMethod?.method === 'sampling' && capabilities?.n) {
    noteRefs.push(ref('plan.note.samplesUpperBound', { samples: gevalMethod.n }));
  }
  if (env.context.cut) {
    noteRefs.push(ref('judgeMetrics.plan.cut', { removed: env.context.removedChars }));
  }
  return {
    rounds,
    totalCalls,
    logicalCalls,
    estimatedTokens: { input: input_, output, total: input_ + output },
    gevalMethod,
    context: env.context,
    notes: noteRefs.map(englishRef),
    noteRefs,
  };
}

/** One judge metric's share of a case's plan: the requests it needs, shared ones included. */
export interface MetricCalls {
  metric: JudgeMetricId;
  /** HTTP requests per case (at most), counting the calls it shares with other metrics. */
  requests: number;
  estimatedInputTokens: number;
  estimatedOutputTokens: number;
  /** The other planned metrics that use some of the same calls (their requests are sent once). */
  sharesWith: JudgeMetricId[];
}

/**
 * Whether `metric` needs this call: the call is for a metric whose pipelines are all among
 * `metric`'s own (the summarization card needs alignment's claims and coverage's questions,
 * though a stage names only the metric it was built for).
 */
function needsCall(metric: JudgeMetricId, call: PlannedCall): boolean {
  const mine = new Set(judgeRecord(metric).pipelines);
  return [call.metric, ...call.serves].some((other) =>
    judgeRecord(other).pipelines.every((builder) => mine.has(builder)),
  );
}

/**
 * Requests and tokens per case of each planned metric, in the order asked. A call several
 * metrics need counts for each of them, and `sharesWith` says so: the plan's totals count it
 * once.
 */
export function callsPerMetric(plan: JudgePlan, metrics: readonly JudgeMetricId[]): MetricCalls[] {
  return metrics.map((metric) => {
    const row: MetricCalls = {
      metric,
      requests: 0,
      estimatedInputTokens: 0,
      estimatedOutputTokens: 0,
      sharesWith: [],
    };
    for (const { calls } of plan.rounds) {
      for (const call of calls) {
        if (!needsCall(metric, call)) continue;
        row.requests += call.httpCalls;
        row.estimatedInputTokens += call.estimatedInputTokens;
        row.estimatedOutputTokens += call.estimatedOutputTokens;
        for (const other of metrics) {
          if (other !== metric && !row.sharesWith.includes(other) && needsCall(other, call)) {
            row.sharesWith.push(other);
          }
        }
      }
    }
    return row;
  });
}
