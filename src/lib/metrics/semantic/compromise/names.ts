/**
 * Name spans: PERSON, ORG, PLACE and NORP from compromise's people, organisations, places and
 * demonyms, and MISC for the capitalised proper nouns and acronyms none of them claimed.
 */
import {
  breaksAfter,
  charSpan,
  has,
  hasUpper,
  isPossessive,
  noUpper,
  ranges,
  splitAtPunctuation,
  trim,
  type Candidate,
  type EntityLabel,
  type TermIndex,
  type Tok,
  type View,
} from './terms.ts';

const ORG_HEADS = new Set(
  (
    'council committee commission ministry department university college school institute ' +
    'agency authority bank party club association federation union company corporation group ' +
    'foundation court parliament senate assembly police service services office board trust ' +
    'league team fc'
  ).split(' '),
);
const PLACE_ACRONYMS = new Set(['u.s.', 'us', 'u.s', 'usa', 'u.s.a.', 'uk', 'u.k.', 'eu', 'uae']);

export function nameSpans(
  toks: Tok[],
  index: TermIndex,
  view: View,
  label: EntityLabel,
  text: string,
  out: Candidate[],
): void {
  for (const [a, b] of ranges(view, index)) {
    for (const [p, q] of splitAtPunctuation(toks, a, b)) {
      const r = trim(
        toks,
        p,
        q,
        (t, i) =>
          noUpper(t) ||
          has(t, 'Preposition', 'Conjunction', 'Determiner') ||
          (has(t, 'Honorific') && i < q),
        (t) => noUpper(t) || has(t, 'Preposition', 'Conjunction', 'Determiner'),
      );
      if (!r) continue;
      let l = label;
      if (l === 'PLACE' && ORG_HEADS.has(toks[r[1]].normal)) l = 'ORG';
      // compromise calls "Argentine" or "Pakistani" an organisation at times.
      if (toks.slice(r[0], r[1] + 1).every((t) => t.text === '' || has(t, 'Demonym'))) l = 'NORP';
      // A lone title ("President") or a lone honorific is not a person.
      if (l === 'PERSON' && r[0] === r[1] && has(toks[r[0]], 'Honorific')) continue;
      const c = charSpan(toks, r[0], r[1], text, l);
      if (c) out.push(c);
    }
  }
}

// Leftovers: proper nouns and acronyms

const NOT_MISC_ACRONYMS = new Set(
  'CEO CFO COO CTO TV AM PM OK ID PC PR HR IT AI UFO DIY FAQ PS'.split(' '),
);

export function leftoverSpans(
  toks: Tok[],
  covered: (i: number) => boolean,
  text: string,
  out: Candidate[],
): void {
  const placeAcronym = (t: Tok) => t.tags.has('Acronym') && PLACE_ACRONYMS.has(t.normal);
  const isName = (t: Tok, i: number) =>
    !covered(i) &&
    t.text !== '' &&
    hasUpper(t) &&
    (t.tags.has('ProperNoun') || (t.tags.has('Acronym') && /^\p{Lu}{2,}$/u.test(t.text))) &&
    // Titles ("President", "Brother") are not names on their own.
    !has(t, 'Date', 'Value', 'Pronoun', 'Honorific', 'Actor');
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (!covered(i) && hasUpper(t) && placeAcronym(t)) {
      const c = charSpan(toks, i, i, text, 'PLACE');
      if (c) out.push(c);
      continue;
    }
    if (!isName(t, i)) continue;
    let j = i;
    while (
      j + 1 < toks.length &&
      toks[j + 1].sentence === t.sentence &&
      !breaksAfter(toks[j]) &&
      !isPossessive(toks[j]) &&
      !placeAcronym(toks[j + 1]) &&
      isName(toks[j + 1], j + 1)
    )
      j++;
    // "Chamber of Commerce", "Department of Justice": one name, not two.
    while (
      j + 2 < toks.length &&
      toks[j + 1].normal === 'of' &&
      toks[j + 1].text === 'of' &&
      toks[j + 2].sentence === t.sentence &&
      !breaksAfter(toks[j]) &&
      !breaksAfter(toks[j + 1]) &&
      isName(toks[j + 2], j + 2)
    ) {
      j += 2;
      while (
        j + 1 < toks.length &&
        toks[j + 1].sentence === t.sentence &&
        !breaksAfter(toks[j]) &&
        isName(toks[j + 1], j + 1)
      )
        j++;
    }
    if (!(i === j && NOT_MISC_ACRONYMS.has(t.text))) {
      const c = charSpan(toks, i, j, text, 'MISC');
      if (c) out.push(c);
    }
    i = j;
  }
}
