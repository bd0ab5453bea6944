import { describe, expect, it } from 'vitest';
import {
  alignSentences,
  alignSourceToSummary,
  contentStemsOf,
} from '../../../../src/lib/metrics/text/aligner.ts';
import { caseTokenizer } from '../../../../src/lib/metrics/text/case-tokenizer.ts';
import { splitSentences, type Segment } from '../../../../src/lib/metrics/text/tokenize.ts';

/** A fake encoder: the cosine of each (summary, source) pair from a table, by source index. */
const cosines =
  (rows: readonly (readonly number[])[]) =>
  (i: number, j: number): number | null =>
    rows[i]?.[j] ?? null;

describe('contentStemsOf', () => {
  it('drops stop words, stems English and keeps numbers', () => {
    expect(contentStemsOf('Save the Children fears 400 migrants could be missing.')).toEqual([
      'save',
      'children',
      'fear',
      '400',
      'migrant',
      'miss',
    ]);
  });

  it('gives one stem for Russian inflections and drops function words', () => {
    const ru = caseTokenizer('ru');
    expect(contentStemsOf('Москва', ru)).toEqual(contentStemsOf('в Москве', ru));
    expect(contentStemsOf('мигрантов', ru)).toEqual(contentStemsOf('мигранты', ru));
    expect(contentStemsOf('и не на что', ru)).toEqual([]);
  });

  it('keeps CJK content words and drops kana particles', () => {
    const stems = contentStemsOf('東京都は新しい公園を来年開く予定だ。', caseTokenizer('ja'));
    expect(stems).toContain('公園');
    expect(stems).not.toContain('は');
    expect(stems).not.toContain('を');
  });
});

describe('alignSentences', () => {
  // The user's case: the encoder put this summary sentence with the IOM sentence (cosine 0.59).
  const SOURCE = [
    'The International Organization for Migration (IOM) said hundreds of migrants were rescued off the coast of Libya on Sunday.',
    'Save the Children fears 400 migrants could be missing after their boat capsized.',
    'Italian coastguard ships continued the search overnight.',
  ].join(' ');
  const SUMMARY = 'Save the Children fears 400 migrants could be missing.';

  it('aligns to the sentence holding the words, not to the encoder’s favourite', () => {
    const source = splitSentences(SOURCE);
    expect(source).toHaveLength(3);
    const [a] = alignSentences(splitSentences(SUMMARY), source, {
      cosine: cosines([[0.59, 0.45, 0.2]]),
    });
    expect(a).toMatchObject({ index: 1, lexical: 1, cosine: 0.45 });
    expect(a!.score).toBeGreaterThan(0);
  });

  it('aligns by the words alone without an encoder', () => {
    const [a] = alignSentences(splitSentences(SUMMARY), splitSentences(SOURCE));
    expect(a).toMatchObject({ index: 1, lexical: 1, cosine: null });
  });

  it('lets the encoder decide when no words are shared', () => {
    const summary = splitSentences('Rescuers kept looking through the night.');
    const source = splitSentences(SOURCE);
    expect(alignSentences(summary, source)[0]).toMatchObject({ index: -1, lexical: 0 });
    const [a] = alignSentences(summary, source, { cosine: cosines([[0.1, 0.2, 0.7]]) });
    expect(a).toMatchObject({ index: 2, cosine: 0.7 });
  });

  it('aligns Japanese by the tokenizer’s words', () => {
    const ja = caseTokenizer('ja');
    const source = splitSentences(
      '政府は昨日、新しい経済対策を発表した。東京都は来年、大きな公園を開く予定だ。専門家は効果に疑問を示している。',
    );
    expect(source).toHaveLength(3);
    const summary = splitSentences('東京都は来年公園を開く。');
    const [a] = alignSentences(summary, source, {
      tokenizer: ja,
      cosine: cosines([[0.8, 0.5, 0.3]]),
    });
    expect(a!.index).toBe(1);
    expect(a!.lexical).toBeGreaterThanOrEqual(0.6);
  });

  it('aligns Chinese by the tokenizer’s words', () => {
    const zh = caseTokenizer('zh');
    const source = splitSentences(
      '政府昨天公布了新的经济计划。北京市明年将开放一座大型公园。专家对计划的效果表示怀疑。',
    );
    expect(source).toHaveLength(3);
    const summary = splitSentences('北京市明年开放大型公园。');
    const [a] = alignSentences(summary, source, {
      tokenizer: zh,
      cosine: cosines([[0.8, 0.5, 0.3]]),
    });
    expect(a!.index).toBe(1);
    expect(a!.lexical).toBeGreaterThanOrEqual(0.6);
  });

  it('aligns Russian across inflections', () => {
    const ru = caseTokenizer('ru');
    const source = splitSentences(
      'Правительство вчера объявило о новых мерах поддержки экономики. ' +
        'Мэр Москвы сообщил, что в следующем году в городе откроется большой парк. ' +
        'Эксперты сомневаются в эффективности этих мер.',
    );
    expect(source).toHaveLength(3);
    const summary = splitSentences('В Москве в следующем году откроют большой парк.');
    const [a] = alignSentences(summary, source, {
      tokenizer: ru,
      cosine: cosines([[0.7, 0.5, 0.3]]),
    });
    expect(a!.index).toBe(1);
  });

  it('counts numbers as content words', () => {
    const source = splitSentences(
      'The toll rose to 312 on Monday. The toll rose to 450 on Tuesday.',
    );
    const [a] = alignSentences(splitSentences('The toll reached 450.'), source);
    expect(a!.index).toBe(1);
  });

  it('prefers the earlier sentence on equal scores', () => {
    const source = splitSentences('Rain fell in Paris. Rain fell in Paris.');
    const [a] = alignSentences(splitSentences('Rain in Paris.'), source);
    expect(a!.index).toBe(0);
  });

  it('handles a text without sentence ends (one long sentence each)', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `token${i % 700} filler`).join(' ');
    const source: Segment[] = [{ text: words, start: 0, end: words.length }];
    const summary = splitSentences('token5 token17 token640 without any full stop');
    expect(summary).toHaveLength(1);
    const [a] = alignSentences(summary, source);
    expect(a!.index).toBe(0);
    expect(a!.lexical).toBeGreaterThan(0);
    const reverse = alignSourceToSummary(summary, source);
    expect(reverse).toHaveLength(1);
    expect(reverse[0]!.index).toBe(0);
  });

  it('completes on a 300,000-word source', () => {
    const sentences: string[] = [];
    for (let i = 0; sentences.length * 10 < 300_000; i++) {
      sentences.push(
        `Report ${i} says harbour${i % 3001} crews moved cargo${i % 577} past the lighthouse${i % 89} today.`,
      );
    }
    const text = sentences.join(' ');
    let at = 0;
    const source: Segment[] = sentences.map((s) => {
      const seg = { text: s, start: at, end: at + s.length };
      at += s.length + 1;
      return seg;
    });
    const summary = splitSentences(
      'Crews moved cargo12 past lighthouse5. Report 12 names harbour12.',
    );
    const started = performance.now();
    const result = alignSentences(summary, source);
    const elapsed = performance.now() - started;
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(result).toHaveLength(2);
    expect(result[1]!.index).toBe(12);
    expect(elapsed).toBeGreaterThanOrEqual(0);
    // A single giant sentence of the same words.
    const giant = alignSentences(summary, [{ text, start: 0, end: text.length }]);
    expect(giant.map((a) => a.index)).toEqual([0, 0]);
  });
});

describe('alignSourceToSummary', () => {
  it('finds, for each source sentence, the summary sentence using its words', () => {
    const source = splitSentences(
      'Floods hit the northern city of Leeds. Schools stayed closed on Monday. The mayor praised volunteers.',
    );
    const summary = splitSentences('The mayor praised the volunteers. Leeds was hit by floods.');
    const result = alignSourceToSummary(summary, source);
    expect(result.map((a) => a.index)).toEqual([1, -1, 0]);
    expect(result[0]!.lexical).toBeCloseTo(3 / 5);
    expect(result[2]!.lexical).toBe(1);
  });

  it('passes the cosine with the summary index first', () => {
    const source = splitSentences('Alpha beta. Gamma delta.');
    const summary = splitSentences('Something else. Another thing.');
    const seen: Array<[number, number]> = [];
    alignSourceToSummary(summary, source, {
      cosine: (i, j) => {
        seen.push([i, j]);
        return i === j ? 0.9 : 0.1;
      },
    });
    expect(seen).toContainEqual([1, 0]);
    expect(seen.every(([i, j]) => i < 2 && j < 2)).toBe(true);
  });
});
