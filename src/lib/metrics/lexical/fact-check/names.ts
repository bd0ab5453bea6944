/** Capitalised names, acronyms and initials: the name candidates of the fact check. */
import { isContentWord } from '../source-coverage/source-coverage.ts';

// Letters of scripts with capitals only: a Latin acronym in Chinese text ends at the first Han
// character ("IOM说" is "IOM").
const CAP_WORD = "\\p{Lu}[\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\p{M}\\p{N}'’-]*";
const CONNECTOR = '(?:of|the|for|de|del|della|di|da|du|des|la|le|van|von|der|den|al|el|bin|ibn|y)';
const NAME_RE = new RegExp(
  `(?<![\\p{L}\\p{M}\\p{N}])${CAP_WORD}(?:[ \\u00a0](?:${CONNECTOR}[ \\u00a0])*${CAP_WORD})*`,
  'gu',
);
export const ACRONYM = /^[\p{Lu}][\p{Lu}\p{N}&]{1,9}$/u;
const RU_FUNCTION = new Set(
  'в во на по и но это как после для при из за от к с у о об а же не что этот эта эти тот та те когда где'.split(
    ' ',
  ),
);
const TITLES = new Set(
  'mr mrs ms miss dr prof sir dame lord lady president minister senator governor general gen col capt lt sgt king queen prince princess pope rev st saint'.split(
    ' ',
  ),
);
const MONTH_OR_DAY =
  /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/u;

export interface NameSpan {
  start: number;
  end: number;
  text: string;
  words: number;
}

function isFunctionWord(word: string): boolean {
  const key = word.toLowerCase().replace(/[’']s$/u, '');
  if (RU_FUNCTION.has(key)) return true;
  if (/^\p{Script=Latin}+$/u.test(key))
    return !isContentWord(key) || TITLES.has(key.replace(/\.$/u, ''));
  return false;
}

/** Capitalised runs of `text` from `from` to `to`, leading function words and titles dropped. */
export function nameSpans(text: string, from = 0, to = text.length): NameSpan[] {
  const out: NameSpan[] = [];
  NAME_RE.lastIndex = from;
  for (let m = NAME_RE.exec(text); m && m.index < to; m = NAME_RE.exec(text)) {
    let start = m.index;
    let body = m[0];
    // Drop leading function words and titles ("The IOM", "In Libya", "President Obama").
    for (;;) {
      const first = /^(\S+)[ \u00a0]+/u.exec(body);
      if (!first || !isFunctionWord(first[1].replace(/\.$/u, ''))) break;
      start += first[0].length;
      body = body.slice(first[0].length);
      // A lower-case connector left at the front is no name either.
      const connector = new RegExp(`^(?:${CONNECTOR}[ \\u00a0])+`, 'u').exec(body);
      if (connector) {
        start += connector[0].length;
        body = body.slice(connector[0].length);
      }
    }
    body = body.replace(/['’-]+$/u, '').replace(/['’]s$/u, '');
    if (body.length === 0 || isFunctionWord(body) || MONTH_OR_DAY.test(body)) continue;
    if (!/\p{L}/u.test(body)) continue;
    out.push({
      start,
      end: start + body.length,
      text: body,
      words: body.split(/[ \u00a0]+/u).length,
    });
  }
  return out;
}

/** Upper-case initials of a name's capitalised words ("International Organization for Migration" → "IOM"). */
export function initialsOf(name: string): string[] {
  const words = name.split(/[ \u00a0-]+/u).filter((w) => w.length > 0);
  if (words.length < 2) return [];
  const caps = words.filter((w) => /^\p{Lu}/u.test(w)).map((w) => w[0]);
  const all = words.map((w) => w[0].toUpperCase());
  return [...new Set([caps.join(''), all.join('')])].filter((s) => s.length >= 2);
}

export function atSentenceStart(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && /[\s"“”«»„'‘’([—–•*-]/u.test(text[i])) {
    if (text[i] === '\n') return true;
    i--;
  }
  return i < 0 || /[.!?…:;。！？]/u.test(text[i]);
}
