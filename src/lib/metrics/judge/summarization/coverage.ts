/**
 * Coverage (recall), after DeepEval's SummarizationMetric with the seed article's repairs (SPEC §3):
 * round 1 writes n open-ended key questions about THIS source (never reused across sources), each
 * with a short answer from the source, a supporting quote and an importance 1–5; round 2 answers
 * them from the summary ONLY ("idk" allowed); round 3 grades each summary answer against the
 * source answer 0–5 ("idk" is graded 0 without asking). Coverage = Σ importanceᵢ·gradeᵢ/5 /
 * Σ importanceᵢ: the importances the seed generated and never used are used.
 */
import { english, ref } from '../../../i18n/message.ts';
import { createFence } from '../fence.ts';
import { promptKey } from '../prompt-kit.ts';
import { callJson, inOrder, malformed, type CallRecord } from '../call.ts';
import { describeCut, type ContextNote } from '../context.ts';
import {
  ESTIMATE_FENCE,
  okResult,
  oneCallEstimate,
  outputBudget,
  type Pipeline,
  type RunEnv,
  type Stage,
  purposeOf,
} from '../pipeline.ts';
import { coverageScore } from '../scoring.ts';
import { locateSpan, type Offsets } from '../spans.ts';
import { failed, notApplicable } from '../../results.ts';
import { type MetricResult } from '../../types.ts';
import {
  answersPrompt,
  gradesPrompt,
  ANSWERS_PROMPT,
  GRADES_PROMPT,
  QUESTIONS_PROMPT,
  questionsPrompt,
  type GradeItem,
} from './prompts.ts';
import { answerGradesSchema, coverageQuestionsSchema, summaryAnswersSchema } from './schema.ts';
import type { JudgeMetricRecord, JudgePipelineBuilder } from '../../record.ts';

export interface CoverageQuestion {
  index: number;
  question: string;
  /** The answer the source gives (written by the judge from the source). */
  sourceAnswer: string;
  /** The source passage holding the answer, as quoted. */
  quote: string;
  /** The quote's UTF-16 offsets in the ORIGINAL source; null when not found. */
  sourceSpan: Offsets | null;
  importance: number;
  /** The answer taken from the summary alone; null when not answered (a failed round). */
  summaryAnswer: string | null;
  idk: boolean;
  /** 0–5; "idk" is 0. null until graded. */
  grade: number | null;
  gradeReason: string;
}

export interface CoverageDetails {
  questions: CoverageQuestion[];
  /** Questions asked for (settings.coverageQuestions). */
  requested: number;
  /** Σ importance·grade/5. */
  weighted: number;
  importanceTotal: number;
  idkCount: number;
  context: ContextNote;
  audit: { calls: CallRecord[] };
}

const IDK =
  /^\s*["'“]?\s*(?:idk|i\s+don'?t\s+know|unknown|not\s+(?:mentioned|stated|given)|n\/a|none)\s*[.!]?\s*["'”]?\s*$/iu;

/** True for an empty answer or "idk" (and its common spellings). */
export function isIdk(answer: string): boolean {
  return answer.trim() === '' || IDK.test(answer);
}

// Estimated tokens of one question with its answer and quote, and of a summary answer.
const QUESTION_TOKENS = 70;
const ANSWER_TOKENS = 25;

// Every coverage call is made for coverage, and the summarization card uses its answers too.
const COVERAGE_CALLS: Pick<Stage, 'metric' | 'serves'> = {
  metric: 'coverage',
  serves: ['coverage', 'summarization'],
};

export interface CoveragePipeline extends Pipeline {
  coverageDetails(): CoverageDetails;
}

export function coveragePipeline(env: RunEnv): CoveragePipeline {
  const log: CallRecord[] = [];
  const { summary, source: originalSource } = env.input;
  const requested = env.settings.coverageQuestions;
  let questions: CoverageQuestion[] = [];

  const ask: Stage = {
    round: 1,
    ...purposeOf(ref('judgeMetrics.purpose.questions')),
    ...COVERAGE_CALLS,
    estimate: () =>
      oneCallEstimate(
        questionsPrompt(ESTIMATE_FENCE, env.source, requested),
        requested * QUESTION_TOKENS + 20,
      ),
    async run(ctx) {
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: questionsPrompt(createFence(), env.source, requested),
        name: 'coverage_questions',
        schema: coverageQuestionsSchema,
        cacheKey: { prompt: promptKey(QUESTIONS_PROMPT), source: env.source, count: requested },
        maxTokens: outputBudget(requested, QUESTION_TOKENS * 2),
      });
      const kept = reply.questions.filter((q) => q.question.trim()).slice(0, requested);
      if (kept.length === 0) throw malformed(ref('judgeMetrics.coverage.noQuestions'));
      questions = kept.map((q, i) => ({
        index: i + 1,
        question: q.question.trim(),
        sourceAnswer: q.answer.trim(),
        quote: q.quote,
        sourceSpan: locateSpan(originalSource, q.quote),
        importance: q.importance,
        summaryAnswer: null,
        idk: false,
        grade: null,
        gradeReason: '',
      }));
    },
  };

  const answer: Stage = {
    round: 2,
    ...purposeOf(ref('judgeMetrics.purpose.answers')),
    ...COVERAGE_CALLS,
    estimate() {
      const qs = Array.from({ length: requested }, () => 'x'.repeat(QUESTION_TOKENS));
      return oneCallEstimate(
        answersPrompt(ESTIMATE_FENCE, summary, qs),
        requested * ANSWER_TOKENS + 20,
      );
    },
    async run(ctx) {
      const texts = questions.map((q) => q.question);
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: answersPrompt(createFence(), summary, texts),
        name: 'summary_answers',
        schema: summaryAnswersSchema,
        cacheKey: { prompt: promptKey(ANSWERS_PROMPT), summary, questions: texts },
        maxTokens: outputBudget(texts.length, ANSWER_TOKENS * 3),
      });
      const ordered = inOrder(reply.answers, (a) => a.question, texts.length, 'questions');
      ordered.forEach((a, i) => {
        const q = questions[i];
        q.summaryAnswer = a.answer.trim();
        q.idk = isIdk(a.answer);
        if (q.idk) {
          q.grade = 0;
          q.gradeReason = english('judgeMetrics.coverage.idkReason');
        }
      });
    },
  };

  const grade: Stage = {
    round: 3,
    ...purposeOf(ref('judgeMetrics.purpose.grades')),
    ...COVERAGE_CALLS,
    estimate() {
      const items: GradeItem[] = Array.from({ length: requested }, () => ({
        question: 'x'.repeat(120),
        reference: 'x'.repeat(80),
        answer: 'x'.repeat(80),
      }));
      return oneCallEstimate(gradesPrompt(ESTIMATE_FENCE, items), requested * 35 + 20);
    },
    async run(ctx) {
      const open = questions.filter((q) => !q.idk);
      if (open.length === 0) return;
      const items: GradeItem[] = open.map((q) => ({
        question: q.question,
        reference: q.sourceAnswer,
        answer: q.summaryAnswer ?? '',
      }));
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: gradesPrompt(createFence(), items),
        name: 'answer_grades',
        schema: answerGradesSchema,
        cacheKey: { prompt: promptKey(GRADES_PROMPT), items },
        maxTokens: outputBudget(items.length, 80),
      });
      const ordered = inOrder(reply.grades, (g) => g.question, items.length, 'answers to grade');
      ordered.forEach((g, i) => {
        open[i].grade = g.grade;
        open[i].gradeReason = g.reason.trim();
      });
    },
  };

  function details(): CoverageDetails {
    let weighted = 0;
    let importanceTotal = 0;
    for (const q of questions) {
      weighted += (q.importance * (q.grade ?? 0)) / 5;
      importanceTotal += q.importance;
    }
    return {
      questions,
      requested,
      weighted,
      importanceTotal,
      idkCount: questions.filter((q) => q.idk).length,
      context: env.context,
      audit: { calls: log },
    };
  }

  function result(): MetricResult<'coverage'> {
    const d = details();
    const score = coverageScore(
      questions.map((q) => ({ importance: q.importance, grade: q.grade ?? 0 })),
    );
    if (score === null) {
      return notApplicable('coverage', env.backend, ref('judgeMetrics.coverage.none'), d);
    }
    const counts = { count: questions.length, share: score };
    return okResult(
      'coverage',
      score,
      d.idkCount > 0
        ? ref('judgeMetrics.coverage.explanationIdk', { ...counts, idk: d.idkCount })
        : ref('judgeMetrics.coverage.explanation', counts),
      env.backend,
      d,
      [describeCut(env.context)],
    );
  }

  return {
    produces: ['coverage'],
    stages: [ask, answer, grade],
    log,
    coverageDetails: details,
    results: () => [result()],
    failure: (message) => [failed('coverage', env.backend, message, details())],
  };
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    coverage: CoverageDetails;
  }
}

/** The key questions and their graded answers: coverage and the summarization card share it. */
export const coverageBuilder: JudgePipelineBuilder = {
  build(env) {
    const coverage = coveragePipeline(env);
    return { pipelines: [coverage], needsCapabilities: false, coverage };
  },
};

/** The coverage pipeline's prompts, sent for every metric that names coverageBuilder. */
export const COVERAGE_PROMPTS = [QUESTIONS_PROMPT, ANSWERS_PROMPT, GRADES_PROMPT];

export const coverageMetric = {
  kind: 'judge',
  info: {
    label: 'Coverage',
    needs: 'llm',
    meaning:
      'How well the summary answers the key questions of the source, weighted by their importance (1–5): Σ importance·grade/5 / Σ importance.',
    citation: 'DeepEval SummarizationMetric (coverage), with the importances actually used',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.purpose.questions': 'coverage: key questions about the source',
    'judgeMetrics.purpose.answers': 'coverage: answer the questions from the summary only',
    'judgeMetrics.purpose.grades': 'coverage: grade the summary answers against the source answers',
    'judgeMetrics.coverage.none': 'There were no key questions to answer.',
    'judgeMetrics.coverage.explanation':
      "The summary answers the source's {count} key questions to {share, number, percent}, weighted by importance.",
    'judgeMetrics.coverage.explanationIdk':
      "The summary answers the source's {count} key questions to {share, number, percent}, weighted by importance; {idk} of them it does not answer at all.",
    'judgeMetrics.coverage.idkReason': 'The summary does not answer this question ("idk").',
    'judgeMetrics.coverage.noQuestions': 'The judge wrote no key questions about the source.',
  },
  detailView: 'own',
  prompts: COVERAGE_PROMPTS,
  pipelines: [coverageBuilder],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
