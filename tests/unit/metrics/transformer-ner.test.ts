/**
 * Placing a token-classification model's tags back into the text: alignment (lower-cased,
 * accent-stripped WordPiece; SentencePiece markers; [UNK]), word-level "first" aggregation, B/I
 * merging and sentence chunking, on hand-made token lists first and then on the generated tiny
 * NER model through transformers.js.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alignTokens,
  chunkForModel,
  mergeEntities,
  TransformerRecognizer,
} from '../../../src/lib/metrics/semantic/transformer-ner.ts';
import { tokenClassifier } from '../../../src/lib/metrics/semantic/transformers-adapters.ts';
import { scoreEntityDensity } from '../../../src/lib/metrics/semantic/entity-density/entity-density.ts';
import { tinyNerPipeline } from '../../helpers/tiny-models.ts';

const WORDPIECE = {
  specialTokens: new Set(['[CLS]', '[SEP]', '[PAD]', '[UNK]']),
  unknownToken: '[UNK]',
  continuationPrefix: '##',
};

function spans(text: string, tokens: string[], opts = WORDPIECE) {
  return alignTokens(text, tokens, opts).map((t) =>
    t.start === null ? null : text.slice(t.start, t.end ?? t.start),
  );
}

describe('alignTokens', () => {
  it('places lower-cased, accent-stripped WordPiece tokens on the original characters', () => {
    const text = 'Zoë Lovelace visited Pécs.';
    const tokens = ['[CLS]', 'zoe', 'love', '##lace', 'visited', 'pe', '##cs', '.', '[SEP]'];
    expect(spans(text, tokens)).toEqual([
      null,
      'Zoë',
      'Love',
      'lace',
      'visited',
      'Pé',
      'cs',
      '.',
      null,
    ]);
  });

  it('gives [UNK] the word it replaced and keeps later tokens aligned', () => {
    // BERT's pre-tokenizer splits at punctuation but not at symbols: "🦄unicorn" is one word,
    // and WordPiece turns a word with an unknown character into a single [UNK].
    const text = 'Ada met 🦄unicorn Xy in Paris';
    const tokens = ['[CLS]', 'ada', 'met', '[UNK]', 'xy', 'in', 'paris', '[SEP]'];
    expect(spans(text, tokens)).toEqual([
      null,
      'Ada',
      'met',
      '🦄unicorn',
      'Xy',
      'in',
      'Paris',
      null,
    ]);
  });

  it('reads SentencePiece word-start markers', () => {
    const text = 'Angela Merkel, Berlin';
    const aligned = alignTokens(text, ['<s>', '▁Angela', '▁Mer', 'kel', ',', '▁Berlin', '</s>'], {
      specialTokens: new Set(['<s>', '</s>']),
      wordStartMarker: '▁',
    });
    expect(aligned.map((t) => t.wordStart)).toEqual([false, true, true, false, false, true, false]);
    expect(aligned[3]).toMatchObject({ start: 10, end: 13 });
  });

  it('leaves a token it cannot find unplaced instead of jumping ahead', () => {
    const text = 'one two three';
    expect(spans(text, ['one', 'zzz', 'two', 'three'])).toEqual(['one', null, 'two', 'three']);
  });

  it('keeps UTF-16 offsets right past astral characters', () => {
    const text = '𝒳 Ada Lovelace';
    const aligned = alignTokens(text, ['[UNK]', 'ada', 'lovelace'], WORDPIECE);
    expect(text.slice(aligned[2]!.start!, aligned[2]!.end!)).toBe('Lovelace');
  });
});

describe('mergeEntities', () => {
  const text = 'Ada Lovelace met Grace Hopper at Acme Corp in New York.';
  const tokens = [
    'ada',
    'love',
    '##lace',
    'met',
    'grace',
    'hopper',
    'at',
    'acme',
    'corp',
    'in',
    'new',
    'york',
    '.',
  ];
  const aligned = alignTokens(text, tokens, WORDPIECE);

  it('takes a word’s tag from its first piece and merges B/I runs', () => {
    const labels = [
      'B-PER',
      'I-PER',
      'O',
      'O',
      'B-PER',
      'I-PER',
      'O',
      'B-ORG',
      'I-ORG',
      'O',
      'B-LOC',
      'I-LOC',
      'O',
    ];
    const entities = mergeEntities(
      text,
      aligned,
      labels,
      labels.map(() => 0.9),
    );
    expect(entities.map((e) => [e.text, e.label])).toEqual([
      ['Ada Lovelace', 'PERSON'],
      ['Grace Hopper', 'PERSON'],
      ['Acme Corp', 'ORG'],
      ['New York', 'PLACE'],
    ]);
    for (const e of entities) expect(text.slice(e.start, e.end)).toBe(e.text);
  });

  it('starts a new entity at B- and at an I- of another type; an orphan I- starts one', () => {
    const labels = [
      'I-PER',
      'I-PER',
      'O',
      'O',
      'B-PER',
      'B-PER',
      'O',
      'I-ORG',
      'I-LOC',
      'O',
      'O',
      'O',
      'O',
    ];
    const entities = mergeEntities(
      text,
      aligned,
      labels,
      labels.map(() => 0.9),
    );
    expect(entities.map((e) => [e.text, e.label])).toEqual([
      ['Ada Lovelace', 'PERSON'],
      ['Grace', 'PERSON'],
      ['Hopper', 'PERSON'],
      ['Acme', 'ORG'],
      ['Corp', 'PLACE'],
    ]);
  });

  it('reads BIOES tags and plain labels', () => {
    const labels = [
      'B-PER',
      'E-PER',
      'O',
      'O',
      'B-PER',
      'E-PER',
      'O',
      'ORG',
      'ORG',
      'O',
      'O',
      'O',
      'O',
    ];
    const entities = mergeEntities(
      text,
      aligned,
      labels,
      labels.map(() => 0.9),
    );
    expect(entities.map((e) => e.text)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Acme Corp']);
  });

  it('trims punctuation a SentencePiece word carries', () => {
    const t = 'Merkel, Berlin';
    const al = alignTokens(t, ['▁Merkel', ',', '▁Berlin'], {
      specialTokens: new Set(),
      wordStartMarker: '▁',
    });
    const entities = mergeEntities(t, al, ['B-PER', 'I-PER', 'B-LOC'], [1, 1, 1]);
    expect(entities.map((e) => e.text)).toEqual(['Merkel', 'Berlin']);
  });
});

describe('chunkForModel', () => {
  const countWords = (t: string) => t.split(/\s+/u).filter(Boolean).length;

  it('packs whole sentences up to the budget and covers all the text', () => {
    const text = 'One two three. Four five six. Seven eight nine ten eleven.';
    const chunks = chunkForModel(text, countWords, 6);
    expect(chunks.map((c) => c.text.trim())).toEqual([
      'One two three. Four five six.',
      'Seven eight nine ten eleven.',
    ]);
    for (const c of chunks) expect(text.slice(c.offset, c.offset + c.text.length)).toBe(c.text);
  });

  it('cuts a sentence longer than the budget at spaces', () => {
    const text = Array.from({ length: 25 }, (_, i) => `w${i}`).join(' ') + '.';
    const chunks = chunkForModel(text, countWords, 10);
    expect(chunks.length).toBe(3);
    expect(chunks.every((c) => countWords(c.text) <= 10)).toBe(true);
    expect(chunks.map((c) => c.text).join('')).toBe(text);
  });
});

describe('TransformerRecognizer on the tiny generated NER model (transformers.js, Node)', () => {
  let pipe: Awaited<ReturnType<typeof tinyNerPipeline>>;
  let recognizer: TransformerRecognizer;

  beforeAll(async () => {
    pipe = await tinyNerPipeline('fp32');
    recognizer = new TransformerRecognizer('tiny-ner test', tokenClassifier(pipe));
  });
  afterAll(async () => pipe?.dispose());

  it('finds people, organisations and places with exact offsets', async () => {
    const text = 'Ada Lovelace met Grace Hopper in London at Acme Corporation.';
    const entities = await recognizer.recognize(text);
    expect(entities.map((e) => [e.text, e.label])).toEqual([
      ['Ada Lovelace', 'PERSON'],
      ['Grace Hopper', 'PERSON'],
      ['London', 'PLACE'],
      ['Acme Corporation', 'ORG'],
    ]);
    for (const e of entities) expect(text.slice(e.start, e.end)).toBe(e.text);
  });

  it('reads a text far beyond the 512-token window, chunk by chunk, offsets intact', async () => {
    const sentence = 'Ada Lovelace met Grace Hopper in London at Acme Corporation. ';
    const text = sentence.repeat(120);
    const entities = await recognizer.recognize(text);
    expect(entities.length).toBe(4 * 120);
    for (const e of entities) expect(text.slice(e.start, e.end)).toBe(e.text);
    expect(entities.at(-1)?.start).toBeGreaterThan(text.length - sentence.length);
  });

  it('keeps capitals and accents of the original text in the spans', async () => {
    const text = 'In PARIS, Ada Lovelace  met grace hopper.';
    const entities = await recognizer.recognize(text);
    expect(entities.map((e) => e.text)).toEqual(['PARIS', 'Ada Lovelace', 'grace hopper']);
  });

  it('drives entity density, which records the model backend', async () => {
    const result = await scoreEntityDensity(
      'Ada Lovelace met Grace Hopper in London at Acme Corporation.',
      recognizer,
      {},
    );
    expect(result.status).toBe('ok');
    expect(result.backend).toBe('tiny-ner test');
    const details = result.details as { entityCount: number; tokenCount: number };
    expect(details.entityCount).toBe(4);
    expect(result.raw).toBeCloseTo(4 / details.tokenCount, 12);
  });

  it('stops between chunks when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(recognizer.recognize('Ada Lovelace.', controller.signal)).rejects.toThrow(
      /cancelled/u,
    );
  });
});
