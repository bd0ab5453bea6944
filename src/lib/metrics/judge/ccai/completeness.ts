/**
 * Call-center completeness (Google CCAI Insights summarization autoeval, SPEC §3): for every
 * NON-categorical instruction, the judge lists the source contents the instruction asks for, each
 * with the related summary content (empty when missing) and `is_covered`. An instruction with no
 * relevant source content is left out of the score rather than counted against it. Score =
 * covered / listed contents. n/a without instructions, or when every section is categorical, or
 * when the source holds nothing any instruction asks for.
 */
import { ref } from '../../../i18n/message.ts';
import type { CallRecord } from '../call.ts';
import { describeCut, type ContextNote } from '../context.ts';
import { listJudgePipeline } from '../list-pipeline.ts';
import { okResult, purposeOf, singlePipeline, type Pipeline, type RunEnv } from '../pipeline.ts';
import { promptKey } from '../prompt-kit.ts';
import { share } from '../scoring.ts';
import { locateSpan, type Offsets } from '../spans.ts';
import { notApplicable } from '../../results.ts';
import { NO_INSTRUCTIONS } from './adherence.ts';
import { COMPLETENESS_PROMPT, completenessPrompt, isCategorical } from './prompts.ts';
import { completenessSchema } from './schema.ts';
import type { JudgeMetricRecord } from '../../record.ts';

export interface CompletenessContent {
  sourceContent: string;
  /** '' when the summary lacks it. */
  summaryContent: string;
  isCovered: boolean;
  /** Offsets in the ORIGINAL source / the summary; null when not found verbatim. */
  sourceSpan: Offsets | null;
  summarySpan: Offsets | null;
}

export interface CompletenessSection {
  /** 1-based among the judged (non-categorical) sections. */
  index: number;
  section: string;
  instruction: string;
  contents: CompletenessContent[];
  /** True when the source holds nothing this instruction asks for (left out of the score). */
  leftOut: boolean;
}

export interface CompletenessDetails {
  sections: CompletenessSection[];
  /** Names of the categorical sections, which completeness does not apply to. */
  categoricalSkipped: string[];
  covered: number;
  listed: number;
  context: ContextNote;
  audit: { calls: CallRecord[] };
}

export function completenessPipeline(env: RunEnv): Pipeline {
  const all = env.input.instructions ?? [];
  const judged = all.filter((s) => !isCategorical(s));
  const { summary, source: originalSource } = env.input;
  const sections: CompletenessSection[] = judged.map((s, i) => ({
    index: i + 1,
    section: s.name,
    instruction: s.instruction,
    contents: [],
    leftOut: false,
  }));
  let judgedOnce = false;

  const details = (): Omit<CompletenessDetails, 'audit'> => {
    const contents = sections.flatMap((s) => s.contents);
    return {
      sections,
      categoricalSkipped: all.filter(isCategorical).map((s) => s.name),
      covered: contents.filter((c) => c.isCovered).length,
      listed: contents.length,
      context: env.context,
    };
  };

  return listJudgePipeline(env, {
    metric: 'ccai-completeness',
    ...purposeOf(ref('judgeMetrics.purpose.completeness')),
    count: judged.length,
    call: {
      prompt: (fence) => completenessPrompt(fence, env.source, summary, judged),
      name: 'completeness',
      schema: completenessSchema,
      cacheKey: {
        prompt: promptKey(COMPLETENESS_PROMPT),
        source: env.source,
        summary,
        instructions: judged.map((s) => ({ name: s.name, instruction: s.instruction })),
      },
      answerTokens: { expected: 250, budget: 600 },
      answers: (reply) => reply.instructions,
      numberOf: (entry) => entry.instruction,
      itemsCalled: 'instructions',
    },
    record(entries) {
      entries.forEach((entry, i) => {
        sections[i].contents = entry.contents
          .filter((c) => c.source_content.trim())
          .map((c) => ({
            sourceContent: c.source_content.trim(),
            summaryContent: c.summary_content.trim(),
            isCovered: c.is_covered,
            sourceSpan: locateSpan(originalSource, c.source_content),
            summarySpan: locateSpan(summary, c.summary_content),
          }));
        sections[i].leftOut = sections[i].contents.length === 0;
      });
      judgedOnce = true;
    },
    details,
    result(d) {
      if (all.length === 0)
        return notApplicable('ccai-completeness', env.backend, NO_INSTRUCTIONS, d);
      if (judged.length === 0) {
        return notApplicable(
          'ccai-completeness',
          env.backend,
          ref('judgeMetrics.completeness.allCategorical'),
          d,
        );
      }
      const score = share(d.covered, d.listed);
      if (!judgedOnce || score === null) {
        return notApplicable(
          'ccai-completeness',
          env.backend,
          ref('judgeMetrics.completeness.nothingAsked'),
          d,
        );
      }
      const leftOut = sections.filter((s) => s.leftOut).length;
      const leftOutPart =
        leftOut > 0 ? ref('judgeMetrics.completeness.leftOut', { count: leftOut }) : undefined;
      const categoricalPart =
        d.categoricalSkipped.length > 0
          ? ref('judgeMetrics.completeness.categoricalSkipped', {
              count: d.categoricalSkipped.length,
            })
          : undefined;
      const skipped =
        leftOutPart && categoricalPart
          ? ref('judgeMetrics.completeness.bothSkipped', {
              leftOut: leftOutPart,
              categorical: categoricalPart,
            })
          : (leftOutPart ?? categoricalPart);
      const counts = { covered: d.covered, listed: d.listed, share: score };
      return okResult(
        'ccai-completeness',
        score,
        skipped
          ? ref('judgeMetrics.completeness.explanationSkipped', { ...counts, skipped })
          : ref('judgeMetrics.completeness.explanation', counts),
        env.backend,
        d,
        [describeCut(env.context)],
      );
    },
  });
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    'ccai-completeness': CompletenessDetails;
  }
}

export const ccaiCompletenessMetric = {
  kind: 'judge',
  info: {
    label: 'Completeness (call center)',
    needs: 'llm',
    meaning:
      'Share of the source contents your instructions ask for that the summary covers; n/a for categorical sections.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.purpose.completeness':
      'completeness: source contents per instruction, covered or not',
    'judgeMetrics.completeness.allCategorical':
      'Completeness applies to non-categorical sections only, and every section here is categorical.',
    'judgeMetrics.completeness.nothingAsked':
      'The source holds nothing that the instructions ask for, so there is nothing to cover.',
    'judgeMetrics.completeness.explanation':
      'The summary covers {covered} of the {listed} source contents its instructions ask for ({share, number, percent}).',
    'judgeMetrics.completeness.explanationSkipped':
      'The summary covers {covered} of the {listed} source contents its instructions ask for ({share, number, percent}); {skipped}.',
    'judgeMetrics.completeness.leftOut':
      '{count, plural, one {# instruction with nothing in the source left out} other {# instructions with nothing in the source left out}}',
    'judgeMetrics.completeness.categoricalSkipped':
      '{count, plural, one {# categorical section skipped} other {# categorical sections skipped}}',
    'judgeMetrics.completeness.bothSkipped': '{leftOut}, {categorical}',
    'judge.detail.sections': 'What the instructions ask for',
    'judge.detail.sectionLeftOut': ': nothing in the source asks for it (left out of the score)',
    'judge.detail.covered': 'covered',
    'judge.detail.missing': 'missing',
    'judge.detail.summarySays': ' — summary: {text}',
  },
  detailView: 'own',
  prompts: [COMPLETENESS_PROMPT],
  pipelines: [singlePipeline(completenessPipeline)],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
