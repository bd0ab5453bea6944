/**
 * G-Eval (Liu et al. 2023, arXiv:2303.16634) for one criterion: round 1 writes the evaluation
 * steps (auto chain-of-thought; the answer depends on the criterion only, so the judge's
 * content-addressed cache serves it to every later case on the same model); round 2 fills the form.
 * The score is probability-weighted, Σ p(s)·s over the allowed scores (scoring.ts), with p from
 * the score token's top log-probabilities when the model returns them, else from n samples at
 * temperature 1 (paper: n = 20), else from one greedy reply. The method that ran is recorded in the
 * details and in the backend ("judge:openai/gpt-4o-mini (logprobs)"): scores from different
 * methods do not compare.
 *
 * Divergences from the paper: the form asks for one or two sentences of reasoning before a last
 * line "Final score: N" (the paper asked for the score only), so the weighting reads the LAST
 * score token (deepeval); replies are parsed with `parseScoreFromText`, half points kept.
 */
import { messageOf } from '../../../errors.ts';
import type { TopLogprob } from '../../../llm/types.ts';
import { createFence } from '../fence.ts';
import { promptKey } from '../prompt-kit.ts';
import { callJson, callText, malformed, type CallRecord } from '../call.ts';
import { describeCut, type ContextNote } from '../context.ts';
import { ref, type MessageRef } from '../../../i18n/message.ts';
import {
  ESTIMATE_FENCE,
  messagesTokens,
  okResult,
  oneCallEstimate,
  type Pipeline,
  type RunEnv,
  type Stage,
  purposeOf,
} from '../pipeline.ts';
import {
  allowedScores,
  toUnit,
  type DistributionBar,
  type GEvalMethod,
  type ScoreDistribution,
} from '../scoring.ts';
import type { GEvalMethodChoice } from '../settings.ts';
import { failed } from '../../results.ts';
import type { MetricResult } from '../../types.ts';
import { criterionName, type GEvalCriterion } from './criteria.ts';
import { chooseMethod, scoreReplies } from './method.ts';
import {
  formPrompt,
  GEVAL_FORM_PROMPT,
  GEVAL_STEPS_PROMPT,
  stepsPrompt,
  taskFor,
  type FormExtra,
} from './prompts.ts';
import { evaluationStepsSchema } from './schema.ts';

export interface GEvalDetails {
  /** The criterion's name in English ("Coherence", or the user's name). */
  criterion: string;
  /** A built-in criterion's name in the reader's language. */
  criterionRef?: MessageRef;
  description: string;
  scale: [number, number];
  allowedScores: number[];
  /** The method that produced the score. */
  method: GEvalMethod | null;
  /** What the settings asked for. */
  requestedMethod: GEvalMethodChoice;
  /** One bar per allowed score (plus any half point a reply gave). */
  distribution: DistributionBar[];
  /** Probability-weighted score on the criterion's scale. */
  mean: number | null;
  /** Spread of the distribution, on the criterion's scale. */
  std: number | null;
  /** logprobs: probability mass on the allowed score tokens (flagged under 0.5). */
  coveredMass: number | null;
  lowCoverage: boolean;
  /** sampling: each sample's parsed score (null: no valid score in that reply). */
  samples?: (number | null)[];
  invalidSamples?: number;
  /** logprobs: the score token's top alternatives, as returned. */
  scoreTokenTop?: TopLogprob[];
  steps: string[];
  /** The form replies, as returned (n of them for sampling). */
  rawReplies: string[];
  /** null when the form did not show the source. */
  context: ContextNote | null;
  audit: { calls: CallRecord[] };
}

const STEPS_OUTPUT_TOKENS = 250;
const FORM_OUTPUT_TOKENS = 120;

export interface GEvalHooks {
  /** Extra reply lines (repetition asks for the repeated items). */
  extra?: FormExtra;
  /** Output tokens to allow for the form (default 400). */
  formMaxTokens?: number;
  /** Builds the result from the details (default: score on the criterion's scale, or 0–1 for
   * custom criteria). */
  result?: (details: GEvalDetails, notes: MessageRef[]) => MetricResult;
}

const METHOD_TEXT: Record<GEvalMethod, (d: GEvalDetails) => MessageRef> = {
  logprobs: () => ref('judgeMetrics.geval.method.logprobs'),
  sampling: (d) =>
    ref('judgeMetrics.geval.method.sampling', {
      count: (d.samples?.length ?? 0) - (d.invalidSamples ?? 0),
    }),
  greedy: () => ref('judgeMetrics.geval.method.greedy'),
};

/** How the score was reached ("mean of 5 samples"), for explanations. */
export function methodText(d: GEvalDetails): MessageRef {
  return d.method ? METHOD_TEXT[d.method](d) : ref('judgeMetrics.geval.method.none');
}

export function gevalBackend(env: RunEnv, method: GEvalMethod | null): string {
  return method ? `${env.backend} (${method})` : env.backend;
}

/** The metrics a G-Eval form scores; repetitiveness builds its own result (`hooks.result`). */
export type GEvalMetricId =
  'geval-coherence' | 'geval-consistency' | 'geval-fluency' | 'geval-relevance' | 'geval-custom';

export function gevalPipeline(
  env: RunEnv,
  id: GEvalMetricId | 'repetitiveness',
  criterion: GEvalCriterion,
  hooks: GEvalHooks = {},
): Pipeline {
  const log: CallRecord[] = [];
  const source = criterion.usesSource ? env.source : null;
  const criterionKey = {
    name: criterion.name,
    description: criterion.description,
    scale: criterion.scale,
  };
  let steps: string[] = [];
  let distribution: ScoreDistribution | null = null;
  let rawReplies: string[] = [];
  let method: GEvalMethod | null = null;
  const notes: MessageRef[] = [];

  const stepsStage: Stage = {
    round: 1,
    ...purposeOf(ref('judgeMetrics.purpose.gevalSteps', { criterion: criterionName(criterion) })),
    metric: id,
    serves: [id],
    estimate: () => oneCallEstimate(stepsPrompt(criterion), STEPS_OUTPUT_TOKENS),
    async run(ctx) {
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: stepsPrompt(criterion),
        name: 'evaluation_steps',
        schema: evaluationStepsSchema,
        cacheKey: {
          prompt: promptKey(GEVAL_STEPS_PROMPT),
          task: taskFor(criterion),
          criterion: criterionKey,
        },
        maxTokens: 1200,
      });
      steps = reply.steps.map((s) => s.trim()).filter((s) => s.length > 0);
      if (steps.length === 0)
        throw malformed(ref('judgeMetrics.geval.noSteps', { criterion: criterionName(criterion) }));
    },
  };

  const formStage: Stage = {
    round: 2,
    ...purposeOf(ref('judgeMetrics.purpose.gevalForm', { criterion: criterionName(criterion) })),
    metric: id,
    serves: [id],
    estimate(caps) {
      const plan = chooseMethod(env.settings, caps);
      const placeholderSteps = ['x'.repeat(150), 'x'.repeat(150), 'x'.repeat(150), 'x'.repeat(150)];
      const input = messagesTokens(
        formPrompt(
          ESTIMATE_FENCE,
          criterion,
          placeholderSteps,
          source,
          env.input.summary,
          hooks.extra,
        ),
      );
      const requests = plan.method === 'sampling' && !caps?.n ? plan.n : 1;
      return {
        inputTokens: input * requests,
        outputTokens: FORM_OUTPUT_TOKENS * plan.n,
        httpCalls: requests,
      };
    },
    async run(ctx) {
      // Greedy needs no capabilities: no probe call for it.
      const caps = env.settings.gevalMethod === 'greedy' ? undefined : await env.capabilities();
      const plan = chooseMethod(env.settings, caps);
      if (plan.note) notes.push(plan.note);
      const response = await callText(ctx, {
        ...purposeOf(
          ref('judgeMetrics.purpose.withMethod', {
            purpose: this.purposeRef ?? this.purpose,
            method: plan.method,
          }),
        ),
        messages: formPrompt(
          createFence(),
          criterion,
          steps,
          source,
          env.input.summary,
          hooks.extra,
        ),
        cacheKey: {
          prompt: promptKey(GEVAL_FORM_PROMPT),
          criterion: criterionKey,
          extra: hooks.extra ?? null,
          steps,
          source,
          summary: env.input.summary,
          method: plan.method,
          n: plan.n,
          temperature: plan.temperature,
          topLogprobs: plan.topLogprobs ?? null,
        },
        maxTokens: hooks.formMaxTokens ?? 400,
        temperature: plan.temperature,
        n: plan.n > 1 ? plan.n : undefined,
        topLogprobs: plan.topLogprobs,
        // A reply without a score must not be cached: the provider is asked again next time.
        accept: (reply) => {
          try {
            scoreReplies(plan, reply.choices, criterion);
            return undefined;
          } catch (error) {
            return messageOf(error);
          }
        },
      });
      rawReplies = response.choices.map((c) => c.text);
      const scored = scoreReplies(plan, response.choices, criterion);
      distribution = scored.distribution;
      method = scored.distribution.method;
      if (scored.note) notes.push(scored.note);
    },
  };

  function details(): GEvalDetails {
    const d = distribution;
    const out: GEvalDetails = {
      criterion: criterion.name,
      ...(criterion.nameRef ? { criterionRef: criterion.nameRef } : {}),
      description: criterion.description,
      scale: [criterion.scale[0], criterion.scale[1]],
      allowedScores: allowedScores(criterion.scale),
      method,
      requestedMethod: env.settings.gevalMethod,
      distribution: d?.distribution ?? [],
      mean: d?.mean ?? null,
      std: d?.std ?? null,
      coveredMass: d?.coveredMass ?? null,
      lowCoverage: d?.lowCoverage ?? false,
      steps,
      rawReplies,
      context: source !== null ? env.context : null,
      audit: { calls: log },
    };
    if (d?.samples) out.samples = d.samples;
    if (d?.invalidSamples !== undefined) out.invalidSamples = d.invalidSamples;
    if (d?.scoreTokenTop) out.scoreTokenTop = d.scoreTokenTop;
    return out;
  }

  function defaultResult(d: GEvalDetails, allNotes: MessageRef[]): MetricResult {
    if (id === 'repetitiveness') {
      return failed(id, gevalBackend(env, d.method), 'Repetitiveness needs its own result.', d);
    }
    const mean = d.mean as number;
    const [min, max] = d.scale;
    const custom = id === 'geval-custom';
    const score = custom ? toUnit(mean, d.scale) : mean;
    const result = okResult(
      id,
      score,
      ref('judgeMetrics.geval.explanation', {
        criterion: d.criterionRef ?? d.criterion,
        mean,
        min,
        max,
        method: methodText(d),
        std: d.std ?? 0,
      }),
      gevalBackend(env, d.method),
      d,
      allNotes,
    );
    result.raw = mean;
    return result;
  }

  return {
    produces: [id],
    stages: [stepsStage, formStage],
    log,
    results() {
      const d = details();
      const allNotes = [...notes];
      const cut = d.context ? describeCut(d.context) : undefined;
      if (cut) allNotes.push(cut);
      return [(hooks.result ?? defaultResult)(d, allNotes)];
    },
    failure: (message) => [failed(id, gevalBackend(env, method), message, details())],
  };
}
