/**
 * The shape every judge metric takes for the orchestrator (run.ts) and the planner (plan.ts): a
 * pipeline of stages, each stage one logical judge call pinned to a round (1–3). Stages of one
 * round run in parallel across pipelines; a stage may only use what earlier rounds produced, which
 * is what keeps a full evaluation at three sequential rounds. Stages write into the pipeline's own
 * state; `results()` turns that state into MetricResults once the last stage has run.
 */
import { englishRef, type MessageRef } from '../../i18n/message.ts';
import { withNotes } from '../results.ts';
import type { Capabilities, ChatMessage } from '../../llm/types.ts';
import type {
  CaseInput,
  JudgeMetricId,
  MetricDetailsById,
  MetricResult,
  ScoredResult,
} from '../types.ts';
import type { CallContext, CallRecord, Round } from './call.ts';
import { estimateTokens, type ContextNote } from './context.ts';
import { createFence } from './fence.ts';
import type { JudgeSettings } from './settings.ts';
import type { JudgePipelineBuilder } from '../record.ts';

/** What every pipeline of one case shares. */
export interface RunEnv {
  input: CaseInput;
  settings: JudgeSettings;
  /** The source as the judge sees it (middle-cut when too long); spans are found in input.source. */
  source: string;
  context: ContextNote;
  /** `judge:<provider>/<model>`. */
  backend: string;
  /** The judge's capabilities; started with round 1, awaited where a stage needs them. */
  capabilities(): Promise<Capabilities>;
}

export interface StageEstimate {
  inputTokens: number;
  outputTokens: number;
  /** HTTP requests: n samples without `n` support are n requests. */
  httpCalls: number;
}

export interface Stage {
  round: Round;
  /** Shown in the plan and the audit, e.g. "coverage: grade the answers" (English). */
  purpose: string;
  /** The purpose as a message, worded in the reader's language by the plan and the audit. */
  purposeRef?: MessageRef;
  /** The metric the call is for (the first, when several share it). */
  metric: JudgeMetricId;
  /** Every metric that uses the call's answer. */
  serves: JudgeMetricId[];
  /** Cost estimate before running; `caps` undefined = not probed yet (assume the costlier path). */
  estimate(caps: Capabilities | undefined): StageEstimate;
  run(ctx: CallContext): Promise<void>;
}

export interface Pipeline {
  /** The metric ids whose results this pipeline yields. */
  produces: JudgeMetricId[];
  stages: Stage[];
  /** Every call the pipeline made, for the results' audit. */
  log: CallRecord[];
  /** Results once every stage has run (status ok or n/a). */
  results(): MetricResult[];
  /** Results when a stage failed: 'error' with the message, partial details kept. */
  failure(message: string | MessageRef): MetricResult[];
}

/**
 * The fence estimates build their prompts with: a fixed id of the real one's length, so the
 * estimate neither draws random ids nor differs from the prompt actually sent by more than noise.
 */
export const ESTIMATE_FENCE = createFence('s_000000');

/** The estimate of a stage that makes one request: the prompt's tokens and the expected reply's. */
export function oneCallEstimate(
  messages: readonly ChatMessage[],
  outputTokens: number,
): StageEstimate {
  return { inputTokens: messagesTokens(messages), outputTokens, httpCalls: 1 };
}

/** Output tokens reserved for JSON replies of k items of about `perItem` tokens each. */
export function outputBudget(items: number, perItem: number, base = 200, cap = 16_000): number {
  return Math.min(cap, base + Math.ceil(items * perItem));
}

/** A scored result; `notes` are dropped when empty. A message is stored as English plus its ref. */
export function okResult<K extends JudgeMetricId>(
  id: K,
  score: number,
  explanation: string | MessageRef,
  backend: string,
  details: MetricDetailsById[K],
  notes: (string | MessageRef | undefined)[] = [],
): ScoredResult<K> {
  const kept = notes.filter((n): n is string | MessageRef => Boolean(n));
  const worded =
    typeof explanation === 'string'
      ? { explanation }
      : { explanation: englishRef(explanation), explanationRef: explanation };
  const result: ScoredResult<K> = { id, status: 'ok', score, ...worded, backend, details };
  const noted = withNotes(result as MetricResult, kept);
  if (noted.notes) result.notes = noted.notes;
  if (noted.noteRefs) result.noteRefs = noted.noteRefs;
  return result;
}

/** A stage's purpose: the English text (audit, tests) and the ref the page words. */
export function purposeOf(purposeRef: MessageRef): { purpose: string; purposeRef: MessageRef } {
  return { purpose: englishRef(purposeRef), purposeRef };
}

/** Estimated input tokens of a prompt (content plus a few tokens of framing per message). */
export function messagesTokens(messages: readonly { content: string }[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(m.content) + 4, 0);
}

/** The builder of a metric whose one pipeline needs no capabilities and serves no other metric. */
export function singlePipeline(pipeline: (env: RunEnv) => Pipeline): JudgePipelineBuilder {
  return { build: (env) => ({ pipelines: [pipeline(env)], needsCapabilities: false }) };
}
