/**
 * G-Eval criteria. The four built-ins follow SummEval's dimensions (Fabbri et al. 2021) on the
 * scales of the G-Eval paper (coherence, consistency and relevance 1–5, fluency 1–3); the criterion
 * texts are written for SumLens. User-defined criteria bring their own text and scale.
 */
import { ref, type MessageKey, type MessageRef } from '../../../i18n/message.ts';
import type { Scale } from '../scoring.ts';
import type { BuiltinCriterion, CustomCriterion, JudgeSettings } from '../settings.ts';

export interface GEvalCriterion {
  /** 'coherence', 'repetition', or the user's name. */
  key: string;
  /** As shown in prompts (always English: the prompts are) and in the CLI. */
  name: string;
  /** A built-in's name in the reader's language; a user's criterion has only its own name. */
  nameRef?: MessageRef;
  description: string;
  scale: Scale;
  /** Whether the form shows the judge the source (repetition is judged on the summary alone). */
  usesSource: boolean;
}

/** What the judge is told about the material, in both G-Eval prompts. */
export const GEVAL_TASK =
  'You will be given a source document and a summary written for it. Your task is to rate the summary on one criterion.';

export const GEVAL_TASK_SUMMARY_ONLY =
  'You will be given a summary. Your task is to rate it on one criterion.';

const FLUENCY_1_3 =
  'Fluency: the quality of the individual sentences, judged on grammar, spelling, punctuation, word choice and sentence structure. ' +
  '1 (poor): many errors that make the text hard to understand or sound unnatural. ' +
  '2 (fair): some errors that affect clarity or smoothness, while the main points still come through. ' +
  '3 (good): few or no errors; the text is easy to read and flows.';

const FLUENCY_1_5 =
  'Fluency: the quality of the individual sentences, judged on grammar, spelling, punctuation, word choice and sentence structure. ' +
  '1: so many errors that the text is hard to understand. 3: noticeable errors that affect clarity or smoothness, while the meaning comes through. ' +
  '5: few or no errors; the text is easy to read and flows.';

export const BUILTIN_DESCRIPTIONS: Record<Exclude<BuiltinCriterion, 'fluency'>, string> = {
  coherence:
    'Coherence: the collective quality of all the sentences. A coherent summary is well structured and well organised: it builds from sentence to sentence into one body of information about the topic instead of a heap of related but disconnected facts. Penalise abrupt jumps, sentences whose link to the rest is unclear, and statements that clash with each other.',
  consistency:
    'Consistency: the factual agreement between the summary and the source. A consistent summary states only facts the source supports. Penalise every fact in the summary that the source contradicts or does not contain: invented people, places, numbers, events, causes or attributions.',
  relevance:
    'Relevance: the selection of important content from the source. A relevant summary keeps the information that matters most in the source and leaves out the rest. Penalise summaries that miss the key points, or that spend their words on minor, redundant or off-topic details.',
};

const BUILTIN_NAMES: Record<BuiltinCriterion, MessageKey> = {
  coherence: 'judgeMetrics.criterion.coherence',
  consistency: 'judgeMetrics.criterion.consistency',
  fluency: 'judgeMetrics.criterion.fluency',
  relevance: 'judgeMetrics.criterion.relevance',
};

export function builtinCriterion(key: BuiltinCriterion, settings: JudgeSettings): GEvalCriterion {
  if (key === 'fluency') {
    const wide = settings.fluencyScale === '1-5';
    return {
      key,
      name: 'Fluency',
      nameRef: ref(BUILTIN_NAMES.fluency),
      description: wide ? FLUENCY_1_5 : FLUENCY_1_3,
      scale: wide ? [1, 5] : [1, 3],
      usesSource: true,
    };
  }
  return {
    key,
    name: key[0].toUpperCase() + key.slice(1),
    nameRef: ref(BUILTIN_NAMES[key]),
    description: BUILTIN_DESCRIPTIONS[key],
    scale: [1, 5],
    usesSource: true,
  };
}

export function customCriterion(c: CustomCriterion): GEvalCriterion {
  return {
    key: c.name,
    name: c.name,
    description: c.description,
    scale: c.scale,
    usesSource: true,
  };
}

/** The criterion as a message value: a built-in's name in the reader's language, else its own. */
export function criterionName(criterion: GEvalCriterion): MessageRef | string {
  return criterion.nameRef ?? criterion.name;
}
