/**
 * How G-Eval turns the form replies into a score: which method the judge's capabilities allow
 * (logprobs, samples or one greedy reply) and the score distribution each method's replies give.
 * Kept apart from the pipeline (g-eval.ts) because the run plan needs the method before any call.
 */
import type { Capabilities, TokenLogprob } from '../../../llm/types.ts';
import { ref, type MessageRef } from '../../../i18n/message.ts';
import { malformed } from '../call.ts';
import {
  fromSamples,
  greedyScore,
  parseScoreFromText,
  weightFromLogprobs,
  type GEvalMethod,
  type ScoreDistribution,
} from '../scoring.ts';
import type { JudgeSettings } from '../settings.ts';
import { criterionName, type GEvalCriterion } from './criteria.ts';

export interface MethodPlan {
  method: GEvalMethod;
  n: number;
  temperature: number;
  topLogprobs?: number;
  /** Why the method differs from the one asked for. */
  note?: MessageRef;
}

/**
 * The form-filling method: logprobs when the model returns them, else n samples, else one greedy
 * reply (PROVIDERS.md §12.3–12.4). `caps` undefined (not probed) plans the costliest path.
 */
export function chooseMethod(settings: JudgeSettings, caps: Capabilities | undefined): MethodPlan {
  const samples = settings.gevalSamples;
  const sampling = (note?: MessageRef): MethodPlan =>
    samples > 1
      ? { method: 'sampling', n: samples, temperature: 1, note }
      : {
          method: 'greedy',
          n: 1,
          temperature: 0,
          note:
            note ??
            (settings.gevalMethod === 'sampling' ? ref('judgeMetrics.geval.oneSample') : undefined),
        };
  const canLogprobs = caps !== undefined && caps.logprobs && caps.maxTopLogprobs > 0;
  const logprobs = (): MethodPlan => ({
    method: 'logprobs',
    n: 1,
    temperature: 0,
    topLogprobs: Math.min(settings.gevalTopLogprobs, caps?.maxTopLogprobs ?? 0),
  });
  switch (settings.gevalMethod) {
    case 'auto':
      return canLogprobs ? logprobs() : sampling();
    case 'logprobs':
      return canLogprobs
        ? logprobs()
        : sampling(caps ? ref('judgeMetrics.geval.noLogprobs') : undefined);
    case 'sampling':
      return sampling();
    case 'greedy':
      return { method: 'greedy', n: 1, temperature: 0 };
    default: {
      const never: never = settings.gevalMethod;
      throw new Error(`Unknown G-Eval method: ${String(never)}`);
    }
  }
}

/** The distribution a form reply gives under a method, or a malformed-output error. */
export function scoreReplies(
  plan: MethodPlan,
  choices: readonly { text: string; logprobs?: TokenLogprob[] }[],
  criterion: GEvalCriterion,
): { distribution: ScoreDistribution; note?: MessageRef } {
  const { scale } = criterion;
  const [min, max] = scale;
  const invalid = (text: string) =>
    malformed(
      ref('judgeMetrics.geval.noScore', {
        min,
        max,
        criterion: criterionName(criterion),
        reply: text.slice(-160),
      }),
    );
  if (plan.method === 'sampling') {
    const samples = choices.map((c) => parseScoreFromText(c.text, scale));
    const distribution = fromSamples(samples, scale);
    if (!distribution) {
      throw malformed(ref('judgeMetrics.geval.noSampleScore', { count: choices.length, min, max }));
    }
    const bad = distribution.invalidSamples ?? 0;
    return {
      distribution,
      note:
        bad > 0
          ? ref('judgeMetrics.geval.invalidSamples', { bad, count: choices.length })
          : undefined,
    };
  }
  const first = choices[0];
  const raw = parseScoreFromText(first.text, scale);
  if (plan.method === 'logprobs') {
    const weighted = first.logprobs ? weightFromLogprobs(first.logprobs, raw, scale) : null;
    if (weighted) {
      return {
        distribution: weighted,
        note: weighted.lowCoverage
          ? ref('judgeMetrics.geval.lowCoverage', { share: weighted.coveredMass ?? 0 })
          : undefined,
      };
    }
    if (raw === null) throw invalid(first.text);
    return {
      distribution: greedyScore(raw, scale),
      note: ref('judgeMetrics.geval.noProbabilities'),
    };
  }
  if (raw === null) throw invalid(first.text);
  return { distribution: greedyScore(raw, scale) };
}
