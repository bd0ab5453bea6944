/**
 * Checks a pasted case before any worker sees it, so that bad input gets a specific message
 * instead of a crash or a meaningless score.
 */
import type { CaseInput } from '../metrics/types.ts';

export type CaseField = 'source' | 'summary' | 'reference' | 'settings' | 'instructions';

export interface InputProblem {
  field: CaseField;
  message: string;
  /** Blocking problems stop scoring; the others are shown as warnings. */
  blocking: boolean;
}

/** Large enough for a book chapter or a long transcript; a 1 MB paste must work. */
export const MAX_TEXT_CHARS = 2_000_000;

const LABELS: Record<Exclude<CaseField, 'settings' | 'instructions'>, string> = {
  source: 'The source',
  summary: 'The summary',
  reference: 'The reference summary',
};

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
        problems.push({
          field,
          blocking: true,
          message: 'Paste the source text to score against.',
        });
      if (field === 'summary')
        problems.push({ field, blocking: true, message: 'Paste the summary to score.' });
      continue;
    }
    if (text.length > MAX_TEXT_CHARS) {
      problems.push({
        field,
        blocking: true,
        message: `${LABELS[field]} has ${formatChars(text.length)} characters; SumLens scores texts up to ${formatChars(MAX_TEXT_CHARS)}. Cut it, or split it into several cases.`,
      });
      continue;
    }
    const binary = binaryReason(text);
    if (binary) problems.push({ field, blocking: true, message: `${LABELS[field]} ${binary}` });
  }
  const summary = input.summary.trim();
  const source = input.source.trim();
  if (summary && source && summary.length > source.length * 1.2 && source.length > 0) {
    problems.push({
      field: 'summary',
      blocking: false,
      message: 'The summary is longer than its source: check that the two boxes are not swapped.',
    });
  }
  return problems;
}

/**
 * Text decoded from a PDF, image or archive is full of NULs, control characters and U+FFFD; real
 * prose in any script has almost none.
 */
function binaryReason(text: string): string | undefined {
  const sample = text.length > 200_000 ? text.slice(0, 200_000) : text;
  let control = 0;
  let replacement = 0;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0) return 'contains NUL bytes: it looks like a binary file, not text.';
    if (code < 32 && code !== 9 && code !== 10 && code !== 13) control++;
    else if (code === 0xfffd) replacement++;
  }
  if ((control + replacement) / sample.length > 0.02) {
    return 'is full of control or undecodable characters: it looks like a binary file (PDF, image, archive). Paste plain text.';
  }
  return undefined;
}

function formatChars(n: number): string {
  return n.toLocaleString('en-US');
}
