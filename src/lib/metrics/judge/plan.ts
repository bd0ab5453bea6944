/**
 * Which judge calls a case needs, in which round, and roughly how many tokens they take: the same
 * pipelines the run executes (buildPipelines), asked for estimates instead of run. The UI shows the
 * plan and its cost (src/lib/llm/prices.ts) before a run. Estimates are upper bounds: the judge's
 * cache may answer some calls (G-Eval steps are shared by every case), a summary with no claims
 * skips the verdicts, and an all-"idk" summary skips the grades.
 */
import type { Capabilities } from '../../llm/types.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../types.ts';
import { notApplicable } from '../types.ts';
import type { Round } from './call.ts';
import { fitSource, type ContextNote } from './context.ts';
import { chooseMethod, gevalPipeline, type MethodPlan } from './g-eval/g-eval.ts';
import { builtinCriterion, customCriterion } from './g-eval/criteria.ts';
import type { Pipeline, RunEnv } from './pipeline.ts';
import { repetitivenessPipeline } from './repetitiveness/repetitiveness.ts';
import { BUILTIN_CRITERIA, type JudgeSettings } from './settings.ts';
import { claimsPipeline, type ClaimsPipeline } from './summarization/alignment.ts';
import { coveragePipeline, type CoveragePipeline } from './summarization/coverage.ts';
import { vaguenessPipeline } from './vagueness/vagueness.ts';
import { adherencePipeline } from './ccai/adherence.ts';
import { completenessPipeline } from './ccai/completeness.ts';

export interface BuiltPipelines {
  pipelines: Pipeline[];
  /** Present when alignment, call-center accuracy or the summarization card is asked for. */
  claims?: ClaimsPipeline;
  /** Present when coverage or the summarization card is asked for. */
  coverage?: CoveragePipeline;
  /** True when some pipeline fills a G-Eval form (needs the judge's capabilities). */
  needsCapabilities: boolean;
}

/** A pipeline with no calls and one fixed n/a result. */
function staticPipeline(result: MetricResult): Pipeline {
  return {
    produces: [result.id as JudgeMetricId],
    stages: [],
    log: [],
    results: () => [result],
    failure: () => [result],
  };
}

/** The pipelines a set of metrics needs; metrics sharing calls share one pipeline. */
export function buildPipelines(metrics: readonly JudgeMetricId[], env: RunEnv): BuiltPipelines {
  const want = new Set(metrics);
  const pipelines: Pipeline[] = [];
  let claims: ClaimsPipeline | undefined;
  let coverage: CoveragePipeline | undefined;
  let needsCapabilities = false;

  if (want.has('alignment') || want.has('ccai-accuracy') || want.has('summarization')) {
    const produces: JudgeMetricId[] = [];
    if (want.has('alignment') || want.has('summarization')) produces.push('alignment');
    if (want.has('ccai-accuracy')) produces.push('ccai-accuracy');
    claims = claimsPipeline(env, produces);
    pipelines.push(claims);
  }
  if (want.has('coverage') || want.has('summarization')) {
    coverage = coveragePipeline(env);
    pipelines.push(coverage);
  }
  if (want.has('vagueness')) pipelines.push(vaguenessPipeline(env));
  if (want.has('repetitiveness')) {
    pipelines.push(repetitivenessPipeline(env));
    needsCapabilities = true;
  }
  for (const c of BUILTIN_CRITERIA) {
    const id = `geval-${c}` as const;
    if (!want.has(id)) continue;
    pipelines.push(gevalPipeline(env, id, builtinCriterion(c, env.settings)));
    needsCapabilities = true;
  }
  if (want.has('geval-custom')) {
    if (env.settings.customCriteria.length === 0) {
      pipelines.push(
        staticPipeline(
          notApplicable('geval-custom', env.backend, 'No custom G-Eval criteria are defined.', {
            criterion: null,
          }),
        ),
      );
    }
    for (const c of env.settings.customCriteria) {
      pipelines.push(gevalPipeline(env, 'geval-custom', customCriterion(c)));
      needsCapabilities = true;
    }
  }
  if (want.has('ccai-adherence')) pipelines.push(adherencePipeline(env));
  if (want.has('ccai-completeness')) pipelines.push(completenessPipeline(env));
  return { pipelines, claims, coverage, needsCapabilities };
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
  notes: string[];
}

/**
 * The calls a run of these metrics on this case will make, per round, with token estimates.
 * `capabilities` undefined (not probed yet) plans G-Eval with the costlier sampling path.
 */
export function planJudgeRun(
  metrics: readonly JudgeMetricId[],
  input: CaseInput,
  settings: JudgeSettings,
  capabilities?: Capabilities,
): JudgePlan {
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
        const e = s.estimate(capabilities);
        calls.push({
          metric: s.metric,
          serves: s.serves,
          purpose: s.purpose,
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
  const notes: string[] = [];
  const gevalMethod = built.needsCapabilities ? chooseMethod(settings, capabilities) : null;
  if (gevalMethod && !capabilities && settings.gevalMethod !== 'greedy') {
    notes.push(
      'The model has not been probed yet: G-Eval is planned with sampling, the costliest method.',
    );
  }
  if (gevalMethod?.note) notes.push(gevalMethod.note);
  if (env.context.cut) {
    notes.push(
      `The source is too long for the context setting: ${env.context.removedChars} characters will be cut from its middle.`,
    );
  }
  return {
    rounds,
    totalCalls,
    logicalCalls,
    estimatedTokens: { input: input_, output, total: input_ + output },
    gevalMethod,
    context: env.context,
    notes,
  };
}
