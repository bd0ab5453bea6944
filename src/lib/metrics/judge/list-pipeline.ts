/**
 * The pipeline of a metric that judges a list made locally (the summary's sentences, one rubric
 * question per instruction, the non-categorical instructions) in ONE round-1 call whose answers the
 * judge numbers like the list. An empty list gets no stage at all, so nothing is sent and the plan
 * shows no call; the metric's result then says why it does not apply. Vagueness and call-center
 * adherence and completeness are such metrics: they differ only in their prompt, reply and score.
 */
import type { MessageRef } from '../../i18n/message.ts';
import type { z } from 'zod';
import type { ChatMessage } from '../../llm/types.ts';
import { failed } from '../results.ts';
import type { JudgeMetricId, MetricResult } from '../types.ts';
import { callJson, inOrder, type CallRecord, type JudgeAudit } from './call.ts';
import { createFence, type Fence } from './fence.ts';
import {
  ESTIMATE_FENCE,
  oneCallEstimate,
  outputBudget,
  type Pipeline,
  type RunEnv,
} from './pipeline.ts';

/** The JSON call that judges the list, and how its numbered answers are read. */
export interface ListCall<Reply, Answer> {
  /** The prompt for a fence (the call's own, or the placeholder an estimate uses). */
  prompt(fence: Fence): ChatMessage[];
  name: string;
  schema: z.ZodType<Reply>;
  cacheKey: unknown;
  /** Output tokens of one item's answer: as expected (estimate) and at most (budget). */
  answerTokens: { expected: number; budget: number };
  answers(reply: Reply): readonly Answer[];
  /** The 1-based number the judge gave an answer. */
  numberOf(answer: Answer): number;
  /** What the items are called in the error for an incomplete reply, e.g. "sentences". */
  itemsCalled: string;
}

/** A metric's details as its result holds them: its own facts and the pipeline's calls. */
export type Audited<Facts> = Facts & { audit: JudgeAudit };

export interface ListJudgeSpec<K extends JudgeMetricId, Reply, Answer, Facts> {
  metric: K;
  /** Shown in the plan and the audit (English; `purposeRef` is worded by the page). */
  purpose: string;
  purposeRef?: MessageRef;
  /** The number of items to judge; 0 leaves the pipeline without a stage. */
  count: number;
  call: ListCall<Reply, Answer>;
  /** Writes the answers, in list order, into the metric's state. */
  record(answers: Answer[]): void;
  /** The details from the state as it stands (also after a failure), less the audit. */
  details(): Facts;
  /** The result once the stage has run, or without it for an empty list. */
  result(details: Audited<Facts>): MetricResult<K>;
}

export function listJudgePipeline<K extends JudgeMetricId, Reply, Answer, Facts>(
  env: RunEnv,
  spec: ListJudgeSpec<K, Reply, Answer, Facts>,
): Pipeline {
  const { metric, purpose, purposeRef, count, call } = spec;
  const log: CallRecord[] = [];
  const details = (): Audited<Facts> => ({ ...spec.details(), audit: { calls: log } });
  return {
    produces: [metric],
    log,
    stages:
      count === 0
        ? []
        : [
            {
              round: 1,
              purpose,
              ...(purposeRef ? { purposeRef } : {}),
              metric,
              serves: [metric],
              estimate: () =>
                oneCallEstimate(
                  call.prompt(ESTIMATE_FENCE),
                  count * call.answerTokens.expected + 20,
                ),
              async run(ctx) {
                const reply = await callJson(ctx, {
                  purpose,
                  purposeRef,
                  messages: call.prompt(createFence()),
                  name: call.name,
                  schema: call.schema,
                  cacheKey: call.cacheKey,
                  maxTokens: outputBudget(count, call.answerTokens.budget),
                });
                spec.record(inOrder(call.answers(reply), call.numberOf, count, call.itemsCalled));
              },
            },
          ],
    results: () => [spec.result(details())],
    failure: (message) => [failed(metric, env.backend, message, details())],
  };
}
