/**
 * Porter stemmer, NLTK flavour: a port of `nltk.stem.porter.PorterStemmer` in its default
 * NLTK_EXTENSIONS mode (M. F. Porter 1980, "An algorithm for suffix stripping", plus the
 * departures NLTK made). Google's rouge_score 0.1.2 stems with exactly this class, so ROUGE with
 * `use_stemmer=True` only matches when every quirk below matches too:
 *
 * - a table of irregular forms ('dying' → 'die', 'skies' → 'sky', 'news' → 'news', ...);
 * - words of one or two letters are returned untouched;
 * - step 1a/1b map 'ies'/'ied' on four-letter words to 'ie' ('dies' → 'die', 'died' → 'die');
 * - step 1c turns y into i only after a consonant that is not the whole stem ('enjoy' stays);
 * - step 2 uses 'bli' → 'ble' (not 'abli'), tries 'alli' first and re-runs step 2 on success,
 *   and adds 'fulli' → 'ful' and 'logi' → 'log' (the 'l' counted with the stem);
 * - `*o` (cvc) also holds for a two-letter vowel-consonant stem.
 *
 * Rules are tried in NLTK's order and, as in NLTK, the first rule whose suffix matches ends the
 * step even when its condition fails.
 */

const IRREGULAR_FORMS: Readonly<Record<string, readonly string[]>> = {
  sky: ['sky', 'skies'],
  die: ['dying'],
  lie: ['lying'],
  tie: ['tying'],
  news: ['news'],
  inning: ['innings', 'inning'],
  outing: ['outings', 'outing'],
  canning: ['cannings', 'canning'],
  howe: ['howe'],
  proceed: ['proceed'],
  exceed: ['exceed'],
  succeed: ['succeed'],
};

const POOL: ReadonlyMap<string, string> = new Map(
  Object.entries(IRREGULAR_FORMS).flatMap(([stem, forms]) => forms.map((f) => [f, stem] as const)),
);

type Condition = ((stem: string) => boolean) | null;
/** [suffix, replacement, condition]; the suffix '*d' means "ends in a double consonant". */
type Rule = readonly [string, string, Condition];

function isVowelLetter(ch: string): boolean {
  return ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u';
}

function isConsonant(word: string, i: number): boolean {
  const ch = word[i];
  if (isVowelLetter(ch)) return false;
  if (ch === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const consonant = isConsonant(stem, i);
    if (consonant && prevVowel) m++;
    prevVowel = !consonant;
  }
  return m;
}

function hasPositiveMeasure(stem: string): boolean {
  return measure(stem) > 0;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Porter's *o, with NLTK's extra case of a two-letter vowel-consonant word. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (
    n >= 3 &&
    isConsonant(word, n - 3) &&
    !isConsonant(word, n - 2) &&
    isConsonant(word, n - 1) &&
    !'wxy'.includes(word[n - 1])
  ) {
    return true;
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

function dropSuffix(word: string, suffix: string): string {
  return suffix === '' ? word : word.slice(0, word.length - suffix.length);
}

function applyRuleList(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d' && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (word.endsWith(suffix)) {
      const stem = dropSuffix(word, suffix);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

function step1a(word: string): string {
  if (word.endsWith('ies') && word.length === 4) return dropSuffix(word, 'ies') + 'ie';
  return applyRuleList(word, [
    ['sses', 'ss', null],
    ['ies', 'i', null],
    ['ss', 'ss', null],
    ['s', '', null],
  ]);
}

function step1b(word: string): string {
  if (word.endsWith('ied')) {
    return dropSuffix(word, 'ied') + (word.length === 4 ? 'ie' : 'i');
  }
  if (word.endsWith('eed')) {
    const stem = dropSuffix(word, 'eed');
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let intermediate: string | null = null;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const candidate = dropSuffix(word, suffix);
      if (containsVowel(candidate)) {
        intermediate = candidate;
        break;
      }
    }
  }
  if (intermediate === null) return word;
  const last = intermediate[intermediate.length - 1];
  return applyRuleList(intermediate, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => last !== 'l' && last !== 's' && last !== 'z'],
    ['', 'e', (stem) => measure(stem) === 1 && endsCvc(stem)],
  ]);
}

function step1c(word: string): string {
  return applyRuleList(word, [
    ['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)],
  ]);
}

function step2(word: string): string {
  if (word.endsWith('alli') && hasPositiveMeasure(dropSuffix(word, 'alli'))) {
    return step2(dropSuffix(word, 'alli') + 'al');
  }
  const pos = hasPositiveMeasure;
  return applyRuleList(word, [
    ['ational', 'ate', pos],
    ['tional', 'tion', pos],
    ['enci', 'ence', pos],
    ['anci', 'ance', pos],
    ['izer', 'ize', pos],
    ['bli', 'ble', pos],
    ['alli', 'al', pos],
    ['entli', 'ent', pos],
    ['eli', 'e', pos],
    ['ousli', 'ous', pos],
    ['ization', 'ize', pos],
    ['ation', 'ate', pos],
    ['ator', 'ate', pos],
    ['alism', 'al', pos],
    ['iveness', 'ive', pos],
    ['fulness', 'ful', pos],
    ['ousness', 'ous', pos],
    ['aliti', 'al', pos],
    ['iviti', 'ive', pos],
    ['biliti', 'ble', pos],
    ['fulli', 'ful', pos],
    // NLTK keeps the 'l' with the stem so that 'geo'/'theo' behave like 'archaeo'/'philo'.
    ['logi', 'log', () => hasPositiveMeasure(word.slice(0, -3))],
  ]);
}

function step3(word: string): string {
  const pos = hasPositiveMeasure;
  return applyRuleList(word, [
    ['icate', 'ic', pos],
    ['ative', '', pos],
    ['alize', 'al', pos],
    ['iciti', 'ic', pos],
    ['ical', 'ic', pos],
    ['ful', '', pos],
    ['ness', '', pos],
  ]);
}

function step4(word: string): string {
  const gt1 = (stem: string): boolean => measure(stem) > 1;
  return applyRuleList(word, [
    ['al', '', gt1],
    ['ance', '', gt1],
    ['ence', '', gt1],
    ['er', '', gt1],
    ['ic', '', gt1],
    ['able', '', gt1],
    ['ible', '', gt1],
    ['ant', '', gt1],
    ['ement', '', gt1],
    ['ment', '', gt1],
    ['ent', '', gt1],
    ['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))],
    ['ou', '', gt1],
    ['ism', '', gt1],
    ['ate', '', gt1],
    ['iti', '', gt1],
    ['ous', '', gt1],
    ['ive', '', gt1],
    ['ize', '', gt1],
  ]);
}

/** Step 5a tries both of its conditions (which a rule list cannot), as NLTK does. */
function step5a(word: string): string {
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1) return stem;
    if (m === 1 && !endsCvc(stem)) return stem;
  }
  return word;
}

function step5b(word: string): string {
  return applyRuleList(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/**
 * Stem one word as `PorterStemmer().stem(word)` does in NLTK (lower-cases first). Expects a
 * single token; it is applied to ASCII [a-z0-9] tokens by the ROUGE tokenizer.
 */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  // NLTK looks the irregular forms up before lower-casing ('Dying' is not in its table).
  const irregular = POOL.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return lower;
  let stem = step1a(lower);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem);
  stem = step5b(stem);
  return stem;
}

/** A memoising stemmer: ROUGE stems the same few thousand words over and over. */
export function createPorterStemmer(maxEntries = 50_000): (word: string) => string {
  const cache = new Map<string, string>();
  return (word: string): string => {
    let stem = cache.get(word);
    if (stem === undefined) {
      stem = porterStem(word);
      if (cache.size >= maxEntries) cache.clear();
      cache.set(word, stem);
    }
    return stem;
  };
}
