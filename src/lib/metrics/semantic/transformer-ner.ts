/**
 * Named entities from a transformers.js token-classification model (a BERT NER model such as
 * bert-base-NER: B-/I- tags over PER, ORG, LOC, MISC), as exact UTF-16 spans of the text.
 *
 * transformers.js 4 returns neither character offsets nor word-level groups (its "simple"
 * aggregation merges sub-words by tag only, so "Love" + "##lace" with different tags split a
 * name). So this module does what Hugging Face's Python pipeline does with
 * `aggregation_strategy="first"`:
 * 1. cut the text into chunks of whole sentences that fit the model's 512-token window (a longer
 *    sentence is cut at spaces), so no text is silently truncated;
 * 2. align every token back to the text (tokens are lower-cased and accent-stripped by uncased
 *    tokenizers, so alignment compares normalised forms; `[UNK]` covers the word it replaced);
 * 3. give each word the tag of its first sub-token, then merge B-X I-X… runs of words into one
 *    entity (an I-X with no open X starts one, as the Python pipeline does).
 * Labels map onto the built-in recogniser's names where they mean the same thing (PER → PERSON,
 * LOC → PLACE); a CoNLL model finds no dates or numbers, so densities are lower than with
 * compromise, one more reason never to compare scores across backends.
 */
import type { TextSpan } from '../types.ts';
import type { EntityRecognizer } from './backends.ts';
import { throwIfAborted } from './backends.ts';
import { splitSentences } from '../text/tokenize.ts';

/** What the recogniser needs from a tokenizer + token-classification model pair. */
export interface TokenClassifier {
  /** The model's tokens for `text`, special tokens included, in model order. */
  tokenize(text: string): string[];
  /** Per token (the same list as `tokenize`): the arg-max label and its softmax probability. */
  classify(text: string): Promise<{ tokens: string[]; labels: string[]; scores: number[] }>;
  /** Entity types the model can tag, without B-/I- prefixes ("PER", "ORG", …). */
  readonly entityTypes: readonly string[];
  /** Longest input in tokens, special tokens included. */
  readonly maxTokens: number;
  readonly specialTokens: ReadonlySet<string>;
  readonly unknownToken?: string;
  /** WordPiece marks a word's later pieces ("##lace"). */
  readonly continuationPrefix?: string;
  /** SentencePiece and byte-level BPE mark a word's first piece instead ("▁Paris", "ĠParis"). */
  readonly wordStartMarker?: string;
}

const LABEL_NAMES: Record<string, string> = {
  PER: 'PERSON',
  PERSON: 'PERSON',
  LOC: 'PLACE',
  GPE: 'PLACE',
  ORG: 'ORG',
  MISC: 'MISC',
  DATE: 'DATE',
};

export function entityLabelName(tag: string): string {
  const upper = tag.toUpperCase();
  return LABEL_NAMES[upper] ?? upper;
}

export interface AlignedToken {
  token: string;
  /** UTF-16 offsets into the text; null for special tokens and tokens that could not be placed. */
  start: number | null;
  end: number | null;
  /** True for the first piece of a word. */
  wordStart: boolean;
}

interface NormalisedText {
  text: string;
  /** For each UTF-16 unit of `text`: the original start and end offsets of the character. */
  origStart: number[];
  origEnd: number[];
}

function normaliseChar(char: string): string {
  return char
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase();
}

function normalise(text: string): NormalisedText {
  let out = '';
  const origStart: number[] = [];
  const origEnd: number[] = [];
  let offset = 0;
  for (const char of text) {
    const norm = normaliseChar(char);
    for (let i = 0; i < norm.length; i++) {
      origStart.push(offset);
      origEnd.push(offset + char.length);
    }
    out += norm;
    offset += char.length;
  }
  return { text: out, origStart, origEnd };
}

const WHITESPACE = /\s/u;
const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]/u;

/** How far ahead a token may be found before we call it unplaceable (skipped control chars…). */
const MAX_SKIP = 32;

/**
 * Places each token in `text`. Tokens are matched in order against the normalised text; a token
 * that cannot be found near the cursor is left unplaced rather than jumping ahead and
 * misaligning everything after it.
 */
export function alignTokens(
  text: string,
  tokens: readonly string[],
  classifier: Pick<
    TokenClassifier,
    'specialTokens' | 'unknownToken' | 'continuationPrefix' | 'wordStartMarker'
  >,
): AlignedToken[] {
  const norm = normalise(text);
  const aligned: AlignedToken[] = [];
  let cursor = 0;
  const skipSpace = (at: number) => {
    while (at < norm.text.length && WHITESPACE.test(norm.text[at]!)) at++;
    return at;
  };
  for (const token of tokens) {
    if (classifier.specialTokens.has(token) && token !== classifier.unknownToken) {
      aligned.push({ token, start: null, end: null, wordStart: false });
      continue;
    }
    let piece = token;
    let wordStart = true;
    const prefix = classifier.continuationPrefix;
    const marker = classifier.wordStartMarker;
    if (prefix && piece.startsWith(prefix) && piece.length > prefix.length) {
      piece = piece.slice(prefix.length);
      wordStart = false;
    } else if (marker) {
      wordStart = piece.startsWith(marker);
      if (wordStart) piece = piece.slice(marker.length);
    }
    const from = skipSpace(cursor);

    if (token === classifier.unknownToken) {
      // WordPiece emits [UNK] for a whole pre-token: one punctuation mark or a run of letters.
      let end = from;
      if (end < norm.text.length && PUNCTUATION_OR_SYMBOL.test(norm.text[end]!)) end++;
      else {
        while (
          end < norm.text.length &&
          !WHITESPACE.test(norm.text[end]!) &&
          !PUNCTUATION_OR_SYMBOL.test(norm.text[end]!)
        )
          end++;
      }
      if (end > from) {
        aligned.push({
          token,
          start: norm.origStart[from]!,
          end: norm.origEnd[end - 1]!,
          wordStart: true,
        });
        cursor = end;
      } else aligned.push({ token, start: null, end: null, wordStart: true });
      continue;
    }

    const needle = normaliseChar(piece);
    if (needle === '') {
      aligned.push({ token, start: null, end: null, wordStart });
      continue;
    }
    let at = norm.text.startsWith(needle, from) ? from : norm.text.indexOf(needle, from);
    if (at !== -1 && at - from > MAX_SKIP) at = -1;
    if (at === -1) {
      aligned.push({ token, start: null, end: null, wordStart });
      continue;
    }
    aligned.push({
      token,
      start: norm.origStart[at]!,
      end: norm.origEnd[at + needle.length - 1]!,
      wordStart,
    });
    cursor = at + needle.length;
  }
  return aligned;
}

interface Word {
  start: number;
  end: number;
  tag: string;
  score: number;
}

const EDGE_PUNCTUATION = /[\s,;:!?"'“”‘’()[\]{}]/u;

function splitTag(label: string): { prefix: 'B' | 'I' | 'E' | 'S' | 'O'; type: string } {
  if (label === 'O' || label === '') return { prefix: 'O', type: '' };
  const match = /^([BIES])[-_](.+)$/u.exec(label);
  if (match) return { prefix: match[1] as 'B' | 'I' | 'E' | 'S', type: match[2]! };
  return { prefix: 'I', type: label };
}

/** Words with the tag of their first piece ("first" aggregation), then B/I runs into entities. */
export function mergeEntities(
  text: string,
  aligned: readonly AlignedToken[],
  labels: readonly string[],
  scores: readonly number[],
): TextSpan[] {
  const words: Word[] = [];
  aligned.forEach((token, i) => {
    if (token.start === null || token.end === null) return;
    const last = words.at(-1);
    // A continuation piece joins its word only if it touches it: "Love" "##lace" but never across
    // a space (a tokenizer quirk must not glue two words).
    if (!token.wordStart && last && last.end === token.start) {
      last.end = token.end;
      return;
    }
    words.push({
      start: token.start,
      end: token.end,
      tag: labels[i] ?? 'O',
      score: scores[i] ?? 0,
    });
  });

  const entities: Array<TextSpan & { scores: number[] }> = [];
  let open: (TextSpan & { scores: number[] }) | undefined;
  for (const word of words) {
    const { prefix, type } = splitTag(word.tag);
    if (prefix === 'O') {
      open = undefined;
      continue;
    }
    const label = entityLabelName(type);
    if ((prefix === 'I' || prefix === 'E') && open && open.label === label) {
      open.end = word.end;
      open.scores.push(word.score);
    } else {
      open = { start: word.start, end: word.end, text: '', label, scores: [word.score] };
      entities.push(open);
    }
    if (prefix === 'E' || prefix === 'S') open = undefined;
  }
  return entities.flatMap(({ start, end, label }) => {
    // SentencePiece glues "Paris" and "," into one word; the comma is not part of the name.
    while (end > start && EDGE_PUNCTUATION.test(text[end - 1]!)) end--;
    while (end > start && EDGE_PUNCTUATION.test(text[start]!)) start++;
    return end > start ? [{ start, end, label, text: text.slice(start, end) }] : [];
  });
}

interface Chunk {
  text: string;
  offset: number;
}

/**
 * Whole sentences packed into chunks of at most `budget` tokens; a sentence over the budget is
 * cut at spaces. Keeps every character in some chunk, so nothing past 512 tokens goes unread.
 */
export function chunkForModel(
  text: string,
  countTokens: (text: string) => number,
  budget: number,
): Chunk[] {
  const pieces: Chunk[] = [];
  for (const sentence of splitSentences(text)) {
    if (countTokens(sentence.text) <= budget) {
      pieces.push({ text: sentence.text, offset: sentence.start });
      continue;
    }
    let start = 0;
    const words = [...sentence.text.matchAll(/\S+/gu)];
    let count = 0;
    for (const word of words) {
      const n = countTokens(word[0]);
      const wordStart = word.index;
      if (count > 0 && count + n > budget) {
        pieces.push({
          text: sentence.text.slice(start, wordStart),
          offset: sentence.start + start,
        });
        start = wordStart;
        count = 0;
      }
      // A single "word" over the budget (a URL, a base64 blob) is left to the model's truncation.
      count += n;
    }
    pieces.push({ text: sentence.text.slice(start), offset: sentence.start + start });
  }

  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  let currentTokens = 0;
  for (const piece of pieces) {
    const n = countTokens(piece.text);
    if (current && currentTokens + n <= budget) {
      current.text = text.slice(current.offset, piece.offset + piece.text.length);
      currentTokens += n;
    } else {
      current = { ...piece };
      chunks.push(current);
      currentTokens = n;
    }
  }
  return chunks.filter((c) => c.text.trim() !== '');
}

/**
 * What a user must know about a model's label set: a CoNLL-style model tags names only, while the
 * 0.15 entities/token target was measured with spaCy entities that include dates and numbers.
 */
export function labelCoverageNote(entityTypes: readonly string[]): string | undefined {
  const names = new Set(entityTypes.map(entityLabelName));
  const missing = ['DATE', 'CARDINAL', 'MONEY', 'PERCENT'].filter((l) => !names.has(l));
  if (missing.length === 0) return undefined;
  return `This model tags ${[...names].join(', ')} only (no ${missing.map((m) => m.toLowerCase()).join(', ')}), so its densities run lower than spaCy's, against which the 0.15 target was set.`;
}

export class TransformerRecognizer implements EntityRecognizer {
  readonly backend: string;
  readonly #classifier: TokenClassifier;

  constructor(backend: string, classifier: TokenClassifier) {
    this.backend = backend;
    this.#classifier = classifier;
  }

  async recognize(text: string, signal?: AbortSignal): Promise<TextSpan[]> {
    const classifier = this.#classifier;
    const countTokens = (t: string) =>
      classifier.tokenize(t).filter((tok) => !classifier.specialTokens.has(tok)).length;
    // Headroom for the special tokens and for a tokenizer that counts a joined chunk differently.
    const budget = Math.max(16, Math.min(classifier.maxTokens, 512) - 8);
    const spans: TextSpan[] = [];
    for (const chunk of chunkForModel(text, countTokens, budget)) {
      throwIfAborted(signal);
      const { tokens, labels, scores } = await classifier.classify(chunk.text);
      const aligned = alignTokens(chunk.text, tokens, classifier);
      for (const span of mergeEntities(chunk.text, aligned, labels, scores)) {
        spans.push({ ...span, start: span.start + chunk.offset, end: span.end + chunk.offset });
      }
    }
    return spans;
  }
}
