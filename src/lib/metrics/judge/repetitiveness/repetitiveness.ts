/**
 * Repetitiveness (SPEC §3) as a G-Eval criterion on the summary alone: does it repeat the same
 * fact or point without need (different aspects of one topic are fine)? The judge rates 1–5 with
 * 5 = no needless repetition; the card maps that to [0, 1] (1 = no needless repetition, 0 = the
 * same points over and over). The seed found single judgements unstable between runs, so the score
 * is probability-weighted or sampled like every G-Eval score and the spread (std) is reported, on
 * both scales. The judge also lists the repeated items, located in the summary.
 */
import type { RunEnv } from '../pipeline.ts';
import { okResult, type Pipeline } from '../pipeline.ts';
import { ref } from '../../../i18n/message.ts';
import { toUnit } from '../scoring.ts';
import { locateAll, type Offsets } from '../spans.ts';
import type { GEvalCriterion } from '../g-eval/criteria.ts';
import { gevalBackend, gevalPipeline, methodText, type GEvalDetails } from '../g-eval/g-eval.ts';
import { GEVAL_PROMPTS, type FormExtra } from '../g-eval/prompts.ts';
import type { JudgeMetricRecord } from '../../record.ts';

export const REPETITION_CRITERION: GEvalCriterion = {
  key: 'repetition',
  name: 'Repetition',
  nameRef: ref('judgeMetrics.criterion.repetition'),
  description:
    'Repetition: whether the summary repeats the same fact, point or phrase without need. Covering different aspects of one topic is not repetition; saying the same thing twice, in the same or in other words, is. ' +
    '5: nothing is repeated needlessly. 4: one minor point is said twice. 3: one or two points are repeated. 2: several points are repeated. 1: the summary keeps restating the same points.',
  scale: [1, 5],
  usesSource: false,
};

const EXTRA: FormExtra = {
  instructions:
    'First a line "Repeated: " listing each needlessly repeated fact or phrase as it appears in the summary, each in double quotes, separated by semicolons, or "Repeated: none".',
  restated: 'Start with the "Repeated:" line.',
};

export interface RepeatedItem {
  text: string;
  /** How many replies (samples) named it. */
  mentions: number;
  /** Where it occurs in the summary (UTF-16 offsets); empty when not found verbatim. */
  spans: Offsets[];
}

export interface RepetitivenessDetails extends GEvalDetails {
  repeatedItems: RepeatedItem[];
  /** std mapped to the 0–1 scale of the score. */
  normalizedStd: number | null;
}

/** The items of a reply's "Repeated:" line (quoted items, else semicolon-separated; "none" → []). */
export function parseRepeated(reply: string): string[] {
  const line = /^\s*\**\s*Repeated\s*\**\s*:\s*(.*)$/imu.exec(reply)?.[1]?.trim() ?? '';
  if (!line || /^(?:none|n\/a|nothing|-)\.?$/iu.test(line)) return [];
  const quoted = [...line.matchAll(/"([^"]+)"|“([^”]+)”/gu)].map((m) => (m[1] ?? m[2]).trim());
  const items = quoted.length > 0 ? quoted : line.split(';').map((s) => s.trim());
  return items.filter((s) => s.length > 0);
}

export function repeatedItems(replies: readonly string[], summary: string): RepeatedItem[] {
  const byKey = new Map<string, RepeatedItem>();
  for (const reply of replies) {
    const seen = new Set<string>();
    for (const text of parseRepeated(reply)) {
      const key = text.toLowerCase().replace(/\s+/gu, ' ');
      if (seen.has(key)) continue;
      seen.add(key);
      const item = byKey.get(key);
      if (item) item.mentions++;
      else byKey.set(key, { text, mentions: 1, spans: locateAll(summary, text) });
    }
  }
  return [...byKey.values()].sort((a, b) => b.mentions - a.mentions);
}

export function repetitivenessPipeline(env: RunEnv): Pipeline {
  return gevalPipeline(env, 'repetitiveness', REPETITION_CRITERION, {
    extra: EXTRA,
    formMaxTokens: 600,
    result(d, notes) {
      const mean = d.mean as number;
      const score = toUnit(mean, d.scale);
      const span = d.scale[1] - d.scale[0];
      const details: RepetitivenessDetails = {
        ...d,
        repeatedItems: repeatedItems(d.rawReplies, env.input.summary),
        normalizedStd: d.std === null ? null : d.std / span,
      };
      const named = details.repeatedItems.slice(0, 3).map((i) => `“${i.text}”`);
      const values = {
        score,
        mean,
        method: methodText(d),
        std: details.normalizedStd ?? 0,
      };
      const result = okResult(
        'repetitiveness',
        score,
        named.length > 0
          ? ref('judgeMetrics.repetitiveness.explanationRepeated', {
              ...values,
              items: named.join(', '),
            })
          : ref('judgeMetrics.repetitiveness.explanation', values),
        gevalBackend(env, d.method),
        details,
        notes,
      );
      result.raw = mean;
      return result;
    },
  });
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    repetitiveness: RepetitivenessDetails;
  }
}

export const repetitivenessMetric = {
  kind: 'judge',
  info: {
    label: 'No needless repetition',
    needs: 'llm',
    meaning:
      'G-Eval criterion: 1 = the summary never repeats a fact or point without need; probability-weighted, with the spread between samples.',
    citation: 'G-Eval (Liu et al. 2023) with a repetition criterion',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.repetitiveness.explanation':
      'No-needless-repetition score {score, number, ::.00} (judge {mean, number, ::.00} of 5, {method}; spread ±{std, number, ::.00}).',
    'judgeMetrics.repetitiveness.explanationRepeated':
      'No-needless-repetition score {score, number, ::.00} (judge {mean, number, ::.00} of 5, {method}; spread ±{std, number, ::.00}). Repeated: {items}.',
    'judgeMetrics.criterion.repetition': 'Repetition',
    'judge.detail.repeated': 'Repeated',
    'judge.detail.repeatedItem': '“{text}” ({count}×)',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [
    { build: (env) => ({ pipelines: [repetitivenessPipeline(env)], needsCapabilities: true }) },
  ],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
