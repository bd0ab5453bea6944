/**
 * One notice instead of a red card per LLM metric. Two cases say the same thing for every metric:
 * the judge was not asked at all (no key, no model: known before Score), or the provider turned
 * the whole run away (a rejected key, an exhausted quota, an unknown model: known only from its
 * answer). A failure that belongs to one metric (a malformed reply, a refusal) stays on its card.
 */
import type { JudgeFailure } from '../metrics/judge/run.ts';
import { LlmError, RUN_STOPPING_KINDS } from '../llm/types.ts';
import { messageOf } from '../errors.ts';
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';

export interface JudgeNotice {
  /** 'not-run': nothing was sent; 'stopped': the provider refused the run. */
  kind: 'not-run' | 'stopped';
  message: string;
  /** The message for the page to word; absent where only English text exists. */
  messageRef?: MessageRef;
}

/** Nothing was sent: the problems, one after another (English text, plus a ref when given refs). */
export function notRunNotice(problems: readonly (string | MessageRef)[]): JudgeNotice | undefined {
  if (problems.length === 0) return undefined;
  const message = problems.map((p) => (typeof p === 'string' ? p : englishRef(p))).join(' ');
  if (problems.every((p) => typeof p === 'string')) return { kind: 'not-run', message };
  const refs = problems.map((p) =>
    typeof p === 'string' ? ref('common.literal', { text: p }) : p,
  );
  const messageRef = refs.reduce((first, next) => ref('judge.problem.join', { first, next }));
  return { kind: 'not-run', message, messageRef };
}

/**
 * The notice for a run whose every failure is one run-stopping provider error, else undefined
 * (no failure, several different errors, or a failure of one metric's own).
 */
export function stoppedRunNotice(failures: readonly JudgeFailure[]): JudgeNotice | undefined {
  if (failures.length === 0) return undefined;
  if (!failures.every((f) => f.kind !== 'other' && RUN_STOPPING_KINDS.has(f.kind))) {
    return undefined;
  }
  const messages = new Set(failures.map((f) => f.message));
  if (messages.size !== 1) return undefined;
  const first = failures[0];
  return first.messageRef
    ? { kind: 'stopped', message: first.message, messageRef: first.messageRef }
    : { kind: 'stopped', message: first.message };
}

/** The notice for a judge run that threw a run-stopping provider error, else undefined. */
export function failedRunNotice(error: unknown): JudgeNotice | undefined {
  if (!(error instanceof LlmError && RUN_STOPPING_KINDS.has(error.kind))) return undefined;
  return { kind: 'stopped', message: messageOf(error) };
}

/** The whole notice as a message (the page words it with `tr`). */
export function noticeRef(notice: JudgeNotice): MessageRef {
  const message = notice.messageRef ?? ref('common.literal', { text: notice.message });
  return ref(notice.kind === 'not-run' ? 'llm.notice.notRun' : 'llm.notice.stopped', { message });
}

/** The notice in English (logs, tests). */
export const noticeText = (notice: JudgeNotice): string => englishRef(noticeRef(notice));
