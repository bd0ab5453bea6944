/**
 * Call-center adherence (Google CCAI Insights summarization autoeval, SPEC §3): only with summary
 * instructions (else n/a). One rubric question per instruction, written locally: for a categorical
 * section "does the summary return only one of the allowed values?", otherwise "does the summary
 * follow the instruction '…'?". One call answers them all, each with reasoning and `is_addressed`.
 * Score = share addressed. The source is not shown: adherence is about the summary's form.
 */
import { ref } from '../../../i18n/message.ts';
import type { CallRecord } from '../call.ts';
import { listJudgePipeline } from '../list-pipeline.ts';
import { okResult, purposeOf, singlePipeline, type Pipeline, type RunEnv } from '../pipeline.ts';
import { promptKey } from '../prompt-kit.ts';
import { share } from '../scoring.ts';
import { notApplicable } from '../../results.ts';
import { ADHERENCE_PROMPT, adherencePrompt, isCategorical, rubricQuestion } from './prompts.ts';
import { adherenceSchema } from './schema.ts';
import type { JudgeMetricRecord } from '../../record.ts';

export interface AdherenceQuestion {
  index: number;
  section: string;
  categorical: boolean;
  question: string;
  reasoning: string;
  /** null until answered. */
  isAddressed: boolean | null;
}

export interface AdherenceDetails {
  questions: AdherenceQuestion[];
  addressed: number;
  total: number;
  audit: { calls: CallRecord[] };
}

export const NO_INSTRUCTIONS = ref('judgeMetrics.noInstructions');

export function adherencePipeline(env: RunEnv): Pipeline {
  const sections = env.input.instructions ?? [];
  const questions: AdherenceQuestion[] = sections.map((s, i) => ({
    index: i + 1,
    section: s.name,
    categorical: isCategorical(s),
    question: rubricQuestion(s),
    reasoning: '',
    isAddressed: null,
  }));
  const texts = questions.map((q) => q.question);
  const summary = env.input.summary;

  const details = (): Omit<AdherenceDetails, 'audit'> => ({
    questions,
    addressed: questions.filter((q) => q.isAddressed === true).length,
    total: questions.length,
  });

  return listJudgePipeline(env, {
    metric: 'ccai-adherence',
    ...purposeOf(ref('judgeMetrics.purpose.adherence')),
    count: texts.length,
    call: {
      prompt: (fence) => adherencePrompt(fence, summary, texts),
      name: 'adherence',
      schema: adherenceSchema,
      cacheKey: { prompt: promptKey(ADHERENCE_PROMPT), summary, questions: texts },
      answerTokens: { expected: 60, budget: 150 },
      answers: (reply) => reply.questions,
      numberOf: (a) => a.question,
      itemsCalled: 'rubric questions',
    },
    record(answers) {
      answers.forEach((a, i) => {
        questions[i].reasoning = a.reasoning.trim();
        questions[i].isAddressed = a.is_addressed;
      });
    },
    details,
    result(d) {
      const score = share(d.addressed, d.total);
      if (score === null) return notApplicable('ccai-adherence', env.backend, NO_INSTRUCTIONS, d);
      return okResult(
        'ccai-adherence',
        score,
        ref('judgeMetrics.adherence.explanation', {
          addressed: d.addressed,
          total: d.total,
          share: score,
        }),
        env.backend,
        d,
      );
    },
  });
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    'ccai-adherence': AdherenceDetails;
  }
}

export const ccaiAdherenceMetric = {
  kind: 'judge',
  info: {
    label: 'Adherence (call center)',
    needs: 'llm',
    meaning: 'Share of your summary instructions the summary follows; n/a without instructions.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.purpose.adherence': 'adherence: one rubric question per instruction',
    'judgeMetrics.adherence.explanation':
      'The summary follows {addressed} of its {total} instructions ({share, number, percent}).',
    'judge.detail.instructions': 'Instructions',
    'judge.detail.followed': 'followed',
    'judge.detail.notFollowed': 'not followed',
  },
  detailView: 'own',
  prompts: [ADHERENCE_PROMPT],
  pipelines: [singlePipeline(adherencePipeline)],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
