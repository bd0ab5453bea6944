/**
 * Checks a pasted case before any worker sees it, so that bad input gets a specific message
 * instead of a crash or a meaningless score.
 */
import type { CaseInput } from '../metrics/types.ts';
import { english, ref, type MessageKey, type MessageRef } from '../i18n/message.ts';

export type CaseField = 'source' | 'summary' | 'reference' | 'settings' | 'instructions';

export interface InputProblem {
  field: CaseField;
  /** English, for logs and tests; the page words `messageRef` in the reader's language. */
  message: string;
  messageRef?: MessageRef;
  /** Blocking problems stop scoring; the others are shown as warnings. */
  blocking: boolean;
}

/** Large enough for a book chapter or a long transcript; a 1 MB paste must work. */
export const MAX_TEXT_CHARS = 2_000_000;

const LABELS: Record<Exclude<CaseField, 'settings' | 'instructions'>, MessageKey> = {
  source: 'input.field.source',
  summary: 'input.field.summary',
  reference: 'input.field.reference',
};

/** A problem whose message is the English wording of `key`, with the ref the page words. */
export function problemOf(
  field: CaseField,
  blocking: boolean,
  messageRef: MessageRef,
): InputProblem {
  return { field, blocking, message: english(messageRef.key, messageRef.values), messageRef };
}

export function validateCase(input: CaseInput): InputProblem[] {
  const problems: InputProblem[] = [];
  const fields: [Exclude<CaseField, 'settings' | 'instructions'>, string | undefined][] = [
    ['source', input.source],
    ['summary', input.summary],
    ['reference', input.reference],
  ];
  for (const [field, text] of fields) {
    if (text === undefined || text.trim() === '') {
      if (field === 'source')
        problems.push(problemOf(field, true, ref('input.problem.sourceMissing')));
      if (field === 'summary')
        problems.push(problemOf(field, true, ref('input.problem.summaryMissing')));
      continue;
    }
    if (text.length > MAX_TEXT_CHARS) {
      problems.push(
        problemOf(
          field,
          true,
          ref('input.problem.tooLong', {
            field: ref(LABELS[field]),
            count: text.length,
            max: MAX_TEXT_CHARS,
          }),
        ),
      );
      continue;
    }
    const binary = binaryReason(text);
    if (binary) problems.push(problemOf(field, true, ref(binary, { field: ref(LABELS[field]) })));
  }
  const summary = input.summary.trim();
  const source = input.source.trim();
  if (summary && source && summary.length > source.length * 1.2 && source.length > 0) {
    problems.push(problemOf('summary', false, ref('input.problem.longerThanSource')));
  }
  return problems;
}

/**
 * Text decoded from a PDF, image or archive is full of NULs, control characters and U+FFFD; real
 * prose in any script has almost none.
 */
function binaryReason(text: string): MessageKey | undefined {
  const sample = text.length > 200_000 ? text.slice(0, 200_000) : text;
  let control = 0;
  let replacement = 0;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0) return 'input.problem.nulBytes';
    if (code < 32 && code !== 9 && code !== 10 && code !== 13) control++;
    else if (code === 0xfffd) replacement++;
  }
  if ((control + replacement) / sample.length > 0.02) {
    return 'input.problem.binary';
  }
  return undefined;
}
