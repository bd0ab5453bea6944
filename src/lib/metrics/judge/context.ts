/**
 * Fitting the source into the judge model's context (SPEC §5): when a prompt would be too long, cut
 * the MIDDLE of the source, keeping the first and last halves of the token budget, never the end
 * (conclusions live there). The cut is marked in the text the judge sees ("[… N characters cut …]")
 * and reported in every result that used the source.
 *
 * Tokens are estimated without a tokenizer: about 4 characters per token for ASCII, one token per
 * CJK character, and 2.5 characters per token for other scripts (Cyrillic, Greek, Arabic …), which
 * BPE vocabularies trained mostly on English split more finely. It errs on the long side.
 */
import { CJK_CHAR } from '../text/tokenize.ts';
import { ref, type MessageRef } from '../../i18n/message.ts';

function charTokens(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x80) return 0.25;
  if (CJK_CHAR.test(ch)) return 1;
  return 0.4;
}

/** Estimated tokens of a text (see the file header). */
export function estimateTokens(text: string): number {
  let total = 0;
  for (const ch of text) total += charTokens(ch);
  return Math.ceil(total);
}

export interface FittedText {
  /** The text to send: the original, or its head and tail around a visible cut marker. */
  text: string;
  cut: boolean;
  /** Characters (UTF-16 code units) removed from the middle; 0 when nothing was cut. */
  removedChars: number;
}

export function cutMarker(removedChars: number): string {
  return `[… ${removedChars} characters cut …]`;
}

// How far to look for a space so that the cut does not split a word.
const SNAP = 40;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export interface FitOptions {
  /**
   * false: join head and tail directly, as TinyEval/LongBench's pred.py does with the two halves
   * of a tokenized prompt (the prediction step); default true, the judge's visible marker.
   */
  marker?: boolean;
}

/**
 * The text itself when it fits `maxTokens`; otherwise its head and tail, each worth half the
 * budget (less the marker), around a cut marker. Cut points snap to whitespace when one is near
 * and never split a surrogate pair.
 */
export function fitMiddle(text: string, maxTokens: number, options: FitOptions = {}): FittedText {
  if (estimateTokens(text) <= maxTokens) return { text, cut: false, removedChars: 0 };
  const marked = options.marker ?? true;
  const markerTokens = marked ? estimateTokens(cutMarker(text.length)) : 0;
  const half = Math.max(0, (maxTokens - markerTokens - 2) / 2);

  let headEnd = 0;
  let used = 0;
  while (headEnd < text.length) {
    const cost = charTokens(text[headEnd]);
    if (used + cost > half) break;
    used += cost;
    headEnd++;
  }
  let tailStart = text.length;
  used = 0;
  while (tailStart > headEnd) {
    const cost = charTokens(text[tailStart - 1]);
    if (used + cost > half) break;
    used += cost;
    tailStart--;
  }
  // Snap inwards to whitespace so words stay whole (the budget is never exceeded).
  for (let i = headEnd; i > Math.max(0, headEnd - SNAP); i--) {
    if (/\s/u.test(text[i - 1])) {
      headEnd = i;
      break;
    }
  }
  for (let i = tailStart; i < Math.min(text.length, tailStart + SNAP); i++) {
    if (/\s/u.test(text[i])) {
      tailStart = i + 1;
      break;
    }
  }
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  if (tailStart < text.length && tailStart > 0 && isHighSurrogate(text.charCodeAt(tailStart - 1))) {
    tailStart++;
  }
  const removedChars = tailStart - headEnd;
  if (!marked) {
    return { text: text.slice(0, headEnd) + text.slice(tailStart), cut: true, removedChars };
  }
  const head = text.slice(0, headEnd).trimEnd();
  const tail = text.slice(tailStart).trimStart();
  return { text: `${head}\n\n${cutMarker(removedChars)}\n\n${tail}`, cut: true, removedChars };
}

/** What a result says about the source it was judged on. */
export interface ContextNote {
  cut: boolean;
  removedChars: number;
  originalChars: number;
  /** Tokens the source was allowed (estimated). */
  budgetTokens: number;
}

/** Prompt text, instructions and answers the judge writes, kept free beside the source. */
export const PROMPT_RESERVE_TOKENS = 6000;

/**
 * The source's share of a context window: the window less the prompt reserve and twice the
 * summary (the summary, and claims or answers derived from it, travel with the source).
 */
export function sourceBudget(contextTokens: number, summary: string): number {
  return Math.max(500, contextTokens - PROMPT_RESERVE_TOKENS - 2 * estimateTokens(summary));
}

/** Fits the source for a case; one cut, shared by every call of the run. */
export function fitSource(
  source: string,
  summary: string,
  contextTokens: number,
): { text: string; note: ContextNote } {
  const budgetTokens = sourceBudget(contextTokens, summary);
  const fitted = fitMiddle(source, budgetTokens);
  return {
    text: fitted.text,
    note: {
      cut: fitted.cut,
      removedChars: fitted.removedChars,
      originalChars: source.length,
      budgetTokens,
    },
  };
}

/** One sentence for a result's notes, or undefined when nothing was cut. */
export function describeCut(note: ContextNote): MessageRef | undefined {
  if (!note.cut) return undefined;
  return ref('judgeMetrics.cut', {
    budget: note.budgetTokens,
    removed: note.removedChars,
    original: note.originalChars,
  });
}
