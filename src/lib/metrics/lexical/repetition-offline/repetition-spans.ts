/**
 * What the repetition card highlights besides the repeats: where each repeated phrase was first
 * said, in a lighter mark. Highlights must not overlap, so a repeat always wins over a first
 * occurrence it touches ("very very very" copies itself), and of overlapping first occurrences
 * the earlier, longer one stays.
 */
import { ref } from '../../../i18n/message.ts';
import type { TextSpan } from '../../types.ts';
import type { RepeatOccurrence, RepetitionDetails } from './repetition.ts';

/** Label prefix of a first occurrence's span; a repeat's label starts with "said before". */
export const FIRST_SAID_LABEL = 'first said here';

/** "word 5" or "words 5, 9": 1-based word positions for labels and tooltips. */
export function wordList(occurrences: readonly Pick<RepeatOccurrence, 'word'>[]): string {
  const numbers = occurrences.map((o) => o.word + 1).join(', ');
  return `${occurrences.length === 1 ? 'word' : 'words'} ${numbers}`;
}

/** First occurrences as spans that overlap neither a repeat nor each other, in text order. */
export function firstOccurrenceSpans(
  details: Pick<RepetitionDetails, 'spans' | 'phrases'>,
  summary: string,
): TextSpan[] {
  // Both lists are walked in order, so thousands of repeats stay linear.
  const repeats = [...details.spans].sort((a, b) => a.start - b.start);
  const byStart = [...details.phrases].sort(
    (p, q) => p.first.start - q.first.start || q.first.end - p.first.end,
  );
  const out: TextSpan[] = [];
  let next = 0;
  let lastEnd = -1;
  for (const { first, repeats: again } of byStart) {
    // Repeats are disjoint, so once one ends before this start it ends before every later one.
    while (next < repeats.length && repeats[next].end <= first.start) next++;
    const hitsRepeat = next < repeats.length && repeats[next].start < first.end;
    if (hitsRepeat || first.start < lastEnd) continue;
    lastEnd = first.end;
    out.push({
      start: first.start,
      end: first.end,
      text: summary.slice(first.start, first.end),
      label: `${FIRST_SAID_LABEL} (word ${first.word + 1}), said again at ${wordList(again)}`,
      labelRef: ref('details.repetition.firstSaidAt', {
        word: first.word + 1,
        count: again.length,
        list: again.map((o) => o.word + 1).join(', '),
      }),
    });
  }
  return out;
}
