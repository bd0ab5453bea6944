import { describe, expect, it } from 'vitest';
import {
  findRepeats,
  MAX_PAIR_SENTENCES,
  REPETITION_BACKEND,
  scoreRepetition,
} from '../../../../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import {
  firstOccurrenceSpans,
  wordList,
} from '../../../../src/lib/metrics/lexical/repetition-offline/repetition-spans.ts';
import type { SentenceEmbedder } from '../../../../src/lib/metrics/semantic/backends.ts';
import { throwIfAborted } from '../../../../src/lib/metrics/semantic/backends.ts';
import { splitWords } from '../../../../src/lib/metrics/text/tokenize.ts';
import { scored } from '../scored.ts';
import { loadWords } from '../../../../src/lib/datasets/export/words.ts';
import { englishRef } from '../../../../src/lib/i18n/message.ts';

const ru = await loadWords('ru');

/** Word keys the way the metric builds them: lower-cased words. */
const keysOf = (text: string) => splitWords(text).map((w) => w.text.toLowerCase());

/**
 * A toy embedder: one dimension per topic, where "cat" and "kitten" are the same topic, so two
 * sentences can be alike without sharing a word. A sentence without a topic word gets the zero
 * vector, as GloVe gives a sentence without known words.
 */
class TopicEmbedder implements SentenceEmbedder {
  readonly backend = 'topic-test';
  static readonly topics = [['cat', 'kitten'], ['market'], ['rain']];
  seen: string[][] = [];
  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    this.seen.push([...sentences]);
    return sentences.map((s) => {
      const words = s.toLowerCase().split(/\W+/u);
      return Float32Array.from(
        TopicEmbedder.topics.map((topic) => words.filter((w) => topic.includes(w)).length),
      );
    });
  }
}

describe('findRepeats (the greedy parse)', () => {
  it('takes, at each word, the longest earlier run of two or more words', () => {
    expect(findRepeats(keysOf('the cat sat. the cat sat.'))).toEqual([
      { at: 3, from: 0, length: 3 },
    ]);
    expect(findRepeats(keysOf('a single word is never a repeat'))).toEqual([]);
  });

  it('breaks a tie in length by the earliest start, the first time it was said', () => {
    // At word 6 "red apple" matches both word 0 and word 3 for two words.
    expect(findRepeats(keysOf('red apple and red apple or red apple'))).toEqual([
      { at: 3, from: 0, length: 2 },
      { at: 6, from: 0, length: 2 },
    ]);
  });

  it('prefers a longer later run over a shorter earlier one', () => {
    expect(findRepeats(keysOf('a b x a b c y a b c'))).toEqual([
      { at: 3, from: 0, length: 2 },
      { at: 7, from: 3, length: 3 },
    ]);
  });

  it('lets a repeat copy itself while it runs ("very very very very")', () => {
    // Word 1 onwards equals word 0 onwards for three words: only the first "very" is new.
    expect(findRepeats(['very', 'very', 'very', 'very'])).toEqual([{ at: 1, from: 0, length: 3 }]);
    expect(findRepeats(['very', 'very'])).toEqual([]);
  });
});

describe('scoreRepetition', () => {
  it('counts a sentence said twice: half of the words repeat', async () => {
    const text = 'The council approved the new park. The council approved the new park.';
    const r = scored(await scoreRepetition(text));
    expect(r).toMatchObject({
      id: 'repetition-offline',
      status: 'ok',
      backend: REPETITION_BACKEND,
    });
    expect(r.details.words).toBe(12);
    expect(r.details.repeatedWords).toBe(6);
    expect(r.score).toBe(0.5);
    expect(r.raw).toBe(0.5);
    const second = text.indexOf('The council', 1);
    expect(r.details.phrases).toEqual([
      {
        text: 'The council approved the new park',
        words: 6,
        first: { start: 0, end: 33, word: 0 },
        repeats: [{ start: second, end: second + 33, word: 6 }],
      },
    ]);
    expect(r.details.spans.map(({ labelRef: _, ...span }) => span)).toEqual([
      {
        start: second,
        end: second + 33,
        text: 'The council approved the new park',
        label: 'said before, at word 1',
      },
    ]);
    // The tooltip's words come from the ref: the English matches the label, Russian is Russian.
    const labelRef = r.details.spans[0].labelRef!;
    expect(englishRef(labelRef)).toBe('said before, at word 1');
    expect(ru(labelRef.key, labelRef.values)).toBe('уже сказано, на слове 1');
    expect(r.explanation).toBe(
      '6 of 12 words (50%) repeat a phrase said earlier: “The council approved the new park” ×2.',
    );
  });

  it('is case-insensitive, and its spans slice the summary to the repeated words as written', async () => {
    const text = 'Prices rose sharply in May. Analysts said PRICES rose Sharply again.';
    const r = scored(await scoreRepetition(text));
    expect(r.details.repeatedWords).toBe(3);
    expect(r.score).toBeCloseTo(1 - 3 / 11, 12);
    expect(r.details.phrases[0].text).toBe('Prices rose sharply');
    expect(r.details.spans.map((s) => text.slice(s.start, s.end))).toEqual(['PRICES rose Sharply']);
    expect(r.details.spans[0].text).toBe('PRICES rose Sharply');
    const phrase = r.details.phrases[0];
    expect(text.slice(phrase.first.start, phrase.first.end)).toBe(phrase.text);
  });

  it('"the cat sat. the cat sat." repeats 3 of 6 words', async () => {
    const r = scored(await scoreRepetition('the cat sat. the cat sat.'));
    expect(r.details.words).toBe(6);
    expect(r.details.repeatedWords).toBe(3);
    expect(r.score).toBe(0.5);
  });

  it('counts the overlapping run of "very very very very" as 3 of 4 words', async () => {
    const text = 'very very very very';
    const r = scored(await scoreRepetition(text));
    expect(r.details.repeatedWords).toBe(3);
    expect(r.score).toBe(0.25);
    expect(r.details.phrases).toEqual([
      {
        text: 'very very very',
        words: 3,
        first: { start: 0, end: 14, word: 0 },
        repeats: [{ start: 5, end: 19, word: 1 }],
      },
    ]);
    expect(r.details.spans.map((s) => text.slice(s.start, s.end))).toEqual(['very very very']);
  });

  it('orders phrases by the words they repeat, and lists every occurrence', async () => {
    const text =
      'Big red dog ran. Big red dog sat. One small cat ran. Two small cat sat. Three small cat ate.';
    const r = scored(await scoreRepetition(text));
    // "big red dog" again once (3 words), "small cat" again twice (2 × 2 words).
    expect(r.details.words).toBe(20);
    expect(r.details.repeatedWords).toBe(7);
    expect(r.score).toBeCloseTo(1 - 7 / 20, 12);
    expect(r.details.phrases.map((p) => [p.text, p.words, p.first.word])).toEqual([
      ['small cat', 2, 9],
      ['Big red dog', 3, 0],
    ]);
    expect(r.details.phrases[0].repeats.map((o) => o.word)).toEqual([13, 17]);
    expect(r.details.spans.map((s) => [text.slice(s.start, s.end), s.label])).toEqual([
      ['Big red dog', 'said before, at word 1'],
      ['small cat', 'said before, at word 10'],
      ['small cat', 'said before, at word 10'],
    ]);
    expect(r.explanation).toBe(
      '7 of 20 words (35%) repeat a phrase said earlier: “small cat” ×3, “Big red dog” ×2.',
    );
  });

  it('chains a repeat across a sentence end when the words run on', async () => {
    // At word 13 "sat small cat" was said at word 7, one word longer than "small cat".
    const r = scored(
      await scoreRepetition(
        'Big red dog ran. Big red dog sat. Small cat ran. Small cat sat. Small cat ate.',
      ),
    );
    expect(r.details.repeatedWords).toBe(8);
    expect(r.details.phrases.map((p) => p.text)).toEqual([
      'Big red dog',
      'sat. Small cat',
      'Small cat',
    ]);
  });

  it('scores 1 when nothing repeats', async () => {
    const r = scored(await scoreRepetition('Leeds council approved a new park on Monday.'));
    expect(r.status).toBe('ok');
    expect(r.score).toBe(1);
    expect(r.details).toMatchObject({ words: 8, repeatedWords: 0, phrases: [], spans: [] });
    expect(r.explanation).toBe(
      'None of the 8 words repeats a phrase of two or more words said earlier.',
    );
  });

  it('is n/a for an empty summary and for a single word', async () => {
    for (const text of ['', '  \n', '… — !']) {
      const r = await scoreRepetition(text);
      expect(r).toMatchObject({ status: 'n/a', score: null, reason: 'the summary has no words' });
      expect(r.details).toHaveProperty('words', 0);
    }
    const one = await scoreRepetition('Hello.');
    expect(one).toMatchObject({
      status: 'n/a',
      score: null,
      reason: 'needs at least two words to find a repeated phrase',
    });
    expect(one.details).toHaveProperty('distinct.0', { n: 1, distinct: 1, total: 1, ratio: 1 });
  });

  it('finds repeats in Chinese, where words have no spaces between them', async () => {
    const text = '浙江大学位于杭州。浙江大学位于杭州。学校的学生很多。';
    const words = splitWords(text).length;
    const phraseWords = splitWords('浙江大学位于杭州').length;
    // Words, not characters and not whole sentences.
    expect(phraseWords).toBeGreaterThan(1);
    expect(phraseWords).toBeLessThan(8);
    const r = scored(await scoreRepetition(text));
    expect(r.details.words).toBe(words);
    expect(r.details.repeatedWords).toBe(phraseWords);
    expect(r.score).toBeCloseTo(1 - phraseWords / words, 12);
    expect(r.details.phrases.map((p) => p.text)).toEqual(['浙江大学位于杭州']);
    expect(r.details.spans.map((s) => [s.start, s.end, text.slice(s.start, s.end)])).toEqual([
      [9, 17, '浙江大学位于杭州'],
    ]);
  });

  it('finds repeats in Japanese, and a shorter later repeat goes back to its first saying', async () => {
    const text = '私は猫が好きです。私は猫が好きです。犬も好きです。';
    const sentenceWords = splitWords('私は猫が好きです').length;
    const tailWords = splitWords('好きです').length;
    expect(tailWords).toBeGreaterThanOrEqual(2);
    const r = scored(await scoreRepetition(text));
    expect(r.details.repeatedWords).toBe(sentenceWords + tailWords);
    expect(r.details.spans.map((s) => text.slice(s.start, s.end))).toEqual([
      '私は猫が好きです',
      '好きです',
    ]);
    // "好きです" ties between its first and second saying: the first (word 5) is named.
    const tail = r.details.phrases.find((p) => p.text === '好きです');
    expect(tail?.first).toEqual({ start: 4, end: 8, word: sentenceWords - tailWords });
  });

  it('reports distinct-1..3 ratios, null where the summary is too short', async () => {
    const r = scored(await scoreRepetition('The cat sat and the cat ran.'));
    expect(r.details.distinct).toEqual([
      { n: 1, distinct: 5, total: 7, ratio: 5 / 7 },
      { n: 2, distinct: 5, total: 6, ratio: 5 / 6 },
      { n: 3, distinct: 5, total: 5, ratio: 1 },
    ]);
    const short = scored(await scoreRepetition('Hello hello'));
    expect(short.score).toBe(1);
    expect(short.details.distinct).toEqual([
      { n: 1, distinct: 1, total: 2, ratio: 0.5 },
      { n: 2, distinct: 1, total: 1, ratio: 1 },
      { n: 3, distinct: 0, total: 0, ratio: null },
    ]);
  });

  it('finishes a pathological 20,000-word text quickly and counts it right', async () => {
    const pairs = Array.from({ length: 10_000 }, () => 'to be').join(' ');
    const started = performance.now();
    const r = scored(await scoreRepetition(pairs));
    // Loose on purpose: most of this time is Intl.Segmenter, which Node 20's V8 runs in time
    // quadratic in the text's length (fixed in later V8); the parse itself is timed below.
    expect(performance.now() - started).toBeLessThan(10_000);
    // Everything after the first "to be" copies what came before it.
    expect(r.details.words).toBe(20_000);
    expect(r.details.repeatedWords).toBe(19_998);
    expect(r.score).toBeCloseTo(2 / 20_000, 12);
    expect(r.details.phrases).toHaveLength(1);
    expect(r.details.phrases[0]).toMatchObject({ words: 19_998, first: { word: 0 } });
  });

  it('parses 300,000 words with a pair said 100,000 times in linear time', () => {
    // A common pair between unique words: each time, 100,000 earlier starts to choose from.
    const keys = Array.from({ length: 100_000 }, (_, k) => ['the', 'cat', `item${k}`]).flat();
    const started = performance.now();
    const repeats = findRepeats(keys);
    // About half a second here; comparing every earlier start would take minutes.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(repeats).toHaveLength(99_999);
    expect(repeats.every((r, k) => r.at === 3 * (k + 1) && r.length === 2)).toBe(true);
    // Only the latest starts are examined, so the earliest of them is named.
    expect(repeats[0].from).toBe(0);
    expect(repeats[99_998].from).toBe(3 * (99_999 - 64));
  });

  it('names the two sentences that share the most words, with the shared words', async () => {
    const text =
      'The council approved the park. Rain fell all day. The council approved the budget.';
    const r = scored(await scoreRepetition(text));
    expect(r.details.sentences).toHaveLength(3);
    expect(r.details.overlapPair).toEqual({
      a: 0,
      b: 2,
      value: 3 / 5,
      shared: ['the', 'council', 'approved'],
    });
    // Without an embedder there is no embedding pair, and nothing to excuse.
    expect(r.details.embeddingPair).toBeNull();
    expect(r.details.embeddingNote).toBeUndefined();
  });

  it('has no sentence pair for a single sentence, and does not call the embedder', async () => {
    const embedder = new TopicEmbedder();
    const r = scored(await scoreRepetition('The cat sat on the cat mat', embedder));
    expect(r.details.overlapPair).toBeNull();
    expect(r.details.embeddingPair).toBeNull();
    expect(embedder.seen).toEqual([]);
  });

  it('finds the most alike sentences by embedding, even when they share no word', async () => {
    const text = 'A cat purred loudly. Markets fell sharply today. The kitten slept.';
    const embedder = new TopicEmbedder();
    const r = scored(await scoreRepetition(text, embedder));
    expect(embedder.seen).toEqual([
      ['A cat purred loudly.', 'Markets fell sharply today.', 'The kitten slept.'],
    ]);
    expect(r.details.overlapPair).toBeNull();
    expect(r.details.embeddingPair).toEqual({
      a: 0,
      b: 2,
      value: expect.closeTo(1, 9),
      backend: 'topic-test',
    });
    expect(r.notes).toBeUndefined();
  });

  it('keeps the score when the embedder fails, and says why there is no pair', async () => {
    const text = 'The council approved the park. The council approved the park again.';
    const plain = scored(await scoreRepetition(text));
    const broken: SentenceEmbedder = {
      backend: 'broken-test',
      embed: () => Promise.reject(new Error('model exploded')),
    };
    const r = scored(await scoreRepetition(text, broken));
    expect(r.status).toBe('ok');
    expect(r.score).toBe(plain.score);
    expect(r.details.embeddingPair).toBeNull();
    expect(r.details.embeddingNote).toBe('No embedding pair (broken-test): model exploded.');
    expect(r.notes).toEqual([r.details.embeddingNote]);

    // Sentences without a known word give zero vectors: no cosine to compare.
    const unknown = scored(await scoreRepetition('Xq zv. Zv xq.', new TopicEmbedder()));
    expect(unknown.status).toBe('ok');
    expect(unknown.details.embeddingNote).toMatch(/no two sentences have words the embedding/u);

    const short: SentenceEmbedder = { backend: 'short-test', embed: async () => [] };
    const s = scored(await scoreRepetition(text, short));
    expect(s.details.embeddingNote).toBe(
      'No embedding pair (short-test): 0 vectors for 2 sentences.',
    );
  });

  it('skips the sentence pairs above the sentence cap, saying so', async () => {
    const embedder = new TopicEmbedder();
    const count = MAX_PAIR_SENTENCES + 1;
    const r = scored(
      await scoreRepetition(
        Array.from({ length: count }, (_, k) => `Line ${k} ends.`).join(' '),
        embedder,
      ),
    );
    expect(r.details.sentences).toHaveLength(count);
    expect(r.details.overlapPair).toBeNull();
    expect(r.details.embeddingPair).toBeNull();
    expect(r.details.embeddingNote).toBe(
      `Sentence pairs are not compared above ${MAX_PAIR_SENTENCES} sentences (this text has ${count}).`,
    );
    expect(embedder.seen).toEqual([]);
  });

  it('rejects with AbortError when cancelled, before or during the embedding', async () => {
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(
      scoreRepetition('to be or not to be', undefined, cancelled.signal),
    ).rejects.toMatchObject({ name: 'AbortError' });

    const during = new AbortController();
    const aborting: SentenceEmbedder = {
      backend: 'aborting-test',
      async embed(_sentences, signal) {
        during.abort();
        throwIfAborted(signal);
        return [];
      },
    };
    await expect(
      scoreRepetition('The cat sat. The cat ran.', aborting, during.signal),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('firstOccurrenceSpans (the lighter highlights)', () => {
  it('marks where each repeated phrase was first said, labelled with its repeats', async () => {
    const text =
      'Big red dog ran. Big red dog sat. One small cat ran. Two small cat sat. Three small cat ate.';
    const r = scored(await scoreRepetition(text));
    const spans = firstOccurrenceSpans(r.details, text);
    expect(spans.map((s) => englishRef(s.labelRef!))).toEqual(spans.map((s) => s.label));
    expect(ru(spans[1].labelRef!.key, spans[1].labelRef!.values)).toBe(
      'впервые сказано здесь (слово 10), снова на словах 14, 18',
    );
    expect(spans.map(({ labelRef: _, ...span }) => span)).toEqual([
      {
        start: 0,
        end: 11,
        text: 'Big red dog',
        label: 'first said here (word 1), said again at word 5',
      },
      {
        start: text.indexOf('small cat'),
        end: text.indexOf('small cat') + 9,
        text: 'small cat',
        label: 'first said here (word 10), said again at words 14, 18',
      },
    ]);
  });

  it('leaves out a first occurrence that overlaps a repeat or a longer earlier one', async () => {
    const very = 'very very very very';
    expect(firstOccurrenceSpans(scored(await scoreRepetition(very)).details, very)).toEqual([]);

    // "red fox" was first said inside the first "the red fox": only the longer one is marked.
    const fox = 'the red fox ran. the red fox sat. red fox.';
    const r = scored(await scoreRepetition(fox));
    expect(r.details.phrases.map((p) => [p.text, p.first.word])).toEqual([
      ['the red fox', 0],
      ['red fox', 1],
    ]);
    const spans = firstOccurrenceSpans(r.details, fox);
    expect(spans.map((s) => s.text)).toEqual(['the red fox']);
    // Together with the repeats, no two highlights overlap.
    const all = [...r.details.spans, ...spans].sort((a, b) => a.start - b.start);
    for (let i = 1; i < all.length; i++)
      expect(all[i].start).toBeGreaterThanOrEqual(all[i - 1].end);
  });

  it('writes word positions 1-based, singular or plural', () => {
    expect(wordList([{ word: 4 }])).toBe('word 5');
    expect(wordList([{ word: 4 }, { word: 10 }])).toBe('words 5, 11');
  });
});
