/**
 * Judge calls with an audit trail: every call a metric makes is recorded with its round, purpose,
 * the messages as sent, the reply texts, token usage and whether the cache answered (SPEC §3: "keep
 * every prompt, raw response, token count and cost in the result"). Errors become plain sentences;
 * provider messages are already key-free (LlmError), and nothing here adds a key.
 */
import {
  LlmError,
  type ChatMessage,
  type Judge,
  type JudgeRequest,
  type JudgeResponse,
  type TokenUsage,
} from '../../llm/types.ts';
import type { z } from 'zod';
import { languageCacheKey, withReplyLanguage } from './prompt-kit.ts';
import { english, englishRef, ref, type MessageRef } from '../../i18n/message.ts';

export type Round = 1 | 2 | 3;

export interface CallRecord {
  round: Round;
  /** What the call was for, e.g. "alignment: claim verdicts". */
  purpose: string;
  /** The purpose as a message, for the audit in the reader's language. */
  purposeRef?: MessageRef;
  messages: ChatMessage[];
  /** The text of every choice (n samples give n texts). */
  responses: string[];
  usage: TokenUsage;
  fromCache: boolean;
  /** HTTP requests the call took (0 from the cache; several for n samples without `n`). */
  httpCalls: number;
  elapsedMs: number;
  /** Why the call failed, in plain words. */
  error?: string;
  errorRef?: MessageRef;
}

export interface JudgeAudit {
  calls: CallRecord[];
}

/** Where a stage's calls go: the judge, the round, the stage's own log and the run's counter. */
export interface CallContext {
  judge: Judge;
  round: Round;
  log: CallRecord[];
  signal?: AbortSignal;
  /** Called once per finished call (the run's totals). */
  onCall?: (record: CallRecord) => void;
  /** The case's language: the judge is told to write in it (prompt-kit.ts); part of cache keys. */
  replyLanguage?: string;
}

const ZERO: TokenUsage = { input: 0, output: 0 };

/** A plain sentence for any error a call can throw. */
export function errorMessage(error: unknown): string {
  if (error instanceof LlmError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return english('judgeMetrics.unknownFailure');
}

/** A reply that parsed but does not hold what the prompt asked for (counts, indices …). */
export function malformed(message: string | MessageRef): LlmError {
  return typeof message === 'string'
    ? new LlmError('malformed-output', message)
    : new LlmError('malformed-output', englishRef(message), { messageRef: message });
}

function finish(
  ctx: CallContext,
  { purpose, purposeRef }: { purpose: string; purposeRef?: MessageRef },
  messages: ChatMessage[],
  started: number,
  response: JudgeResponse | undefined,
  error?: unknown,
): void {
  // A call that failed still cost the requests it sent (retries, a paid answer before a failed
  // repair): the run's counters and price must say so.
  const spent = error instanceof LlmError ? error.spent : undefined;
  const record: CallRecord = {
    round: ctx.round,
    purpose,
    ...(purposeRef ? { purposeRef } : {}),
    messages,
    responses: response?.choices.map((c) => c.text) ?? [],
    usage: response?.usage ?? spent?.usage ?? ZERO,
    fromCache: response?.fromCache ?? false,
    httpCalls: response?.calls ?? spent?.httpCalls ?? 0,
    elapsedMs: Math.round(performance.now() - started),
  };
  if (error !== undefined) {
    record.error = errorMessage(error);
    if (error instanceof LlmError && error.messageRef) record.errorRef = error.messageRef;
  }
  ctx.log.push(record);
  ctx.onCall?.(record);
}

export interface JsonCallSpec<T> {
  purpose: string;
  purposeRef?: MessageRef;
  messages: ChatMessage[];
  name: string;
  schema: z.ZodType<T>;
  cacheKey: unknown;
  maxTokens: number;
}

/** A JSON call (temperature 0), validated against the schema by the judge (repaired once there). */
export async function callJson<T>(ctx: CallContext, spec: JsonCallSpec<T>): Promise<T> {
  const started = performance.now();
  const messages = withReplyLanguage(spec.messages, ctx.replyLanguage);
  try {
    const { value, response } = await ctx.judge.completeJson<T>({
      messages,
      json: { name: spec.name, schema: spec.schema },
      temperature: 0,
      maxTokens: spec.maxTokens,
      cacheKey: languageCacheKey(spec.cacheKey, ctx.replyLanguage),
      signal: ctx.signal,
    });
    finish(ctx, spec, messages, started, response);
    return value;
  } catch (error) {
    finish(ctx, spec, messages, started, undefined, error);
    throw error;
  }
}

export interface TextCallSpec {
  purpose: string;
  purposeRef?: MessageRef;
  messages: ChatMessage[];
  cacheKey: unknown;
  maxTokens: number;
  temperature: number;
  n?: number;
  topLogprobs?: number;
  /** Why a reply is unusable (no score in it): such replies are errors and never cached. */
  accept?: JudgeRequest['accept'];
}

/** A free-text call (G-Eval forms): greedy, sampled (n) or with top logprobs. */
export async function callText(ctx: CallContext, spec: TextCallSpec): Promise<JudgeResponse> {
  const started = performance.now();
  const messages = withReplyLanguage(spec.messages, ctx.replyLanguage);
  let response: JudgeResponse;
  try {
    response = await ctx.judge.complete({
      messages,
      temperature: spec.temperature,
      maxTokens: spec.maxTokens,
      n: spec.n,
      topLogprobs: spec.topLogprobs,
      cacheKey: languageCacheKey(spec.cacheKey, ctx.replyLanguage),
      ...(spec.accept ? { accept: spec.accept } : {}),
      signal: ctx.signal,
    });
  } catch (error) {
    finish(ctx, spec, messages, started, undefined, error);
    throw error;
  }
  finish(ctx, spec, messages, started, response);
  if (response.choices.length === 0) throw malformed(ref('judgeMetrics.noReply'));
  return response;
}

/** The select keys of `judgeMetrics.incomplete` for the names of the items a reply lists. */
const ITEM_WORDS: Record<string, string> = {
  sentences: 'sentences',
  'rubric questions': 'rubricQuestions',
  instructions: 'instructions',
  questions: 'questions',
  'answers to grade': 'grades',
  claims: 'claims',
};

/**
 * Items the judge numbered 1..n, put back in order. Numbers must cover 1..n exactly once; a reply
 * with exactly n items but broken numbering is taken in order. Anything else is malformed.
 */
export function inOrder<T>(
  items: readonly T[],
  indexOf: (item: T) => number,
  n: number,
  what: string,
): T[] {
  const out = new Array<T | undefined>(n).fill(undefined);
  let numbered = true;
  for (const item of items) {
    const i = indexOf(item);
    if (!Number.isInteger(i) || i < 1 || i > n || out[i - 1] !== undefined) {
      numbered = false;
      break;
    }
    out[i - 1] = item;
  }
  if (numbered && out.every((x) => x !== undefined)) return out as T[];
  if (items.length === n) return [...items];
  const got = new Set(items.map(indexOf).filter((i) => Number.isInteger(i) && i >= 1 && i <= n))
    .size;
  throw malformed(ref('judgeMetrics.incomplete', { got, n, what: ITEM_WORDS[what] ?? 'other' }));
}
