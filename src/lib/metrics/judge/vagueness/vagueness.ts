/**
 * Sentence vagueness (SPEC §3, from the seed article's conciseness work): the summary is split into
 * sentences locally (`splitSentences`, the project's own splitter, so offsets match the text the
 * user sees), and ONE call judges every sentence: vague (names no concrete point, "the article
 * discusses the reasons for …") or specific. Score = share of specific sentences.
 */
import { ref } from '../../../i18n/message.ts';
import type { CallRecord } from '../call.ts';
import { listJudgePipeline } from '../list-pipeline.ts';
import { okResult, purposeOf, singlePipeline, type Pipeline, type RunEnv } from '../pipeline.ts';
import { promptKey } from '../prompt-kit.ts';
import { share } from '../scoring.ts';
import { splitSentences } from '../../text/tokenize.ts';
import { notApplicable } from '../../results.ts';
import { VAGUENESS_PROMPT, vaguenessPrompt } from './prompts.ts';
import { vagueVerdictsSchema } from './schema.ts';
import type { JudgeMetricRecord } from '../../record.ts';

export interface VagueSentence {
  index: number;
  text: string;
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** null until judged. */
  vague: boolean | null;
  reason: string;
}

export interface VaguenessDetails {
  sentences: VagueSentence[];
  vagueCount: number;
  total: number;
  audit: { calls: CallRecord[] };
}

export function vaguenessPipeline(env: RunEnv): Pipeline {
  const sentences: VagueSentence[] = splitSentences(env.input.summary).map((s, i) => ({
    index: i + 1,
    text: s.text,
    start: s.start,
    end: s.end,
    vague: null,
    reason: '',
  }));
  const texts = sentences.map((s) => s.text);

  const details = (): Omit<VaguenessDetails, 'audit'> => ({
    sentences,
    vagueCount: sentences.filter((s) => s.vague === true).length,
    total: sentences.length,
  });

  return listJudgePipeline(env, {
    metric: 'vagueness',
    ...purposeOf(ref('judgeMetrics.purpose.vagueness')),
    count: texts.length,
    call: {
      prompt: (fence) => vaguenessPrompt(fence, texts),
      name: 'vague_sentences',
      schema: vagueVerdictsSchema,
      cacheKey: { prompt: promptKey(VAGUENESS_PROMPT), sentences: texts },
      answerTokens: { expected: 35, budget: 70 },
      answers: (reply) => reply.sentences,
      numberOf: (v) => v.sentence,
      itemsCalled: 'sentences',
    },
    record(verdicts) {
      verdicts.forEach((v, i) => {
        sentences[i].vague = v.vague;
        sentences[i].reason = v.reason.trim();
      });
    },
    details,
    result(d) {
      const score = share(d.total - d.vagueCount, d.total);
      if (score === null) {
        return notApplicable('vagueness', env.backend, ref('judgeMetrics.vagueness.none'), d);
      }
      return okResult(
        'vagueness',
        score,
        ref('judgeMetrics.vagueness.explanation', {
          vague: d.vagueCount,
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
    vagueness: VaguenessDetails;
  }
}

export const vaguenessMetric = {
  kind: 'judge',
  info: {
    label: 'Specific sentences',
    needs: 'llm',
    meaning:
      'Share of summary sentences that name a concrete point rather than saying what the text “discusses”.',
    citation: 'SPEC §3, sentence vagueness',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.purpose.vagueness': 'vagueness: judge every summary sentence',
    'judgeMetrics.vagueness.none': 'The summary has no sentence to judge.',
    'judgeMetrics.vagueness.explanation':
      '{vague} of {total} summary sentences are vague; {share, number, percent} name a concrete point.',
    'judge.detail.sentences': 'Sentences',
    'judge.detail.vagueBecause': ' — vague: {reason}',
  },
  detailView: 'own',
  prompts: [VAGUENESS_PROMPT],
  pipelines: [singlePipeline(vaguenessPipeline)],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
