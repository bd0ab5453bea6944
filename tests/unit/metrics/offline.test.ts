import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/lib/metrics/offline.ts';
import type { OfflineBackends } from '../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { MetricSettings } from '../../../src/lib/metrics/settings.ts';
import { OFFLINE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import { CompromiseRecognizer } from '../../../src/lib/metrics/semantic/compromise-ner.ts';
import type { RougeDetails } from '../../../src/lib/metrics/lexical/reference/reference-metrics.ts';
import type { RepetitionDetails } from '../../../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import type { SentenceEmbedder } from '../../../src/lib/metrics/semantic/backends.ts';
import { loadGloveEmbedder } from '../../../src/lib/node/load-glove.ts';
import { ensureEmbeddingAsset } from '../../../src/lib/node/embedding-asset.ts';

const input: CaseInput = {
  // A real source: the alignment metrics (source order, support) compare the summary with it.
  source:
    'Leeds city council on Monday approved plans for a new park beside the river. Building work starts next spring and the park is due to open in 2027. Residents who campaigned for years said they were delighted with the plan.',
  summary:
    'Leeds council approved a new park on Monday. The park will open in 2027. Residents said they were delighted with the plan.',
  reference:
    'A new park was approved in Leeds. It opens in 2027. Residents are happy about the plan.',
};

async function run(settings: MetricSettings = DEFAULT_SETTINGS, caseInput = input) {
  ensureEmbeddingAsset();
  const backends: OfflineBackends = {
    embedder: async () => loadGloveEmbedder(),
    recognizer: async () => new CompromiseRecognizer(),
  };
  const results: MetricResult[] = [];
  await computeMetrics([...OFFLINE_METRIC_IDS], caseInput, settings, backends, (r) =>
    results.push(r),
  );
  return new Map(results.map((r) => [r.id, r]));
}

describe('computeMetrics (the offline pass)', () => {
  it('returns one result per metric, each with a backend and a time', async () => {
    const results = await run();
    expect([...results.keys()].sort()).toEqual([...OFFLINE_METRIC_IDS].sort());
    for (const r of results.values()) {
      expect(r.status, `${r.id}: ${r.reason}`).toBe('ok');
      expect(r.backend).toBeTruthy();
      expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('marks reference metrics n/a without a reference and still runs the others', async () => {
    const results = await run(DEFAULT_SETTINGS, { source: 's', summary: input.summary });
    expect(results.get('rouge-1')).toMatchObject({ status: 'n/a', score: null });
    expect(results.get('entity-density')?.status).toBe('ok');
  });

  it('passes the user settings to the metrics', async () => {
    const base = await run();
    const moved = await run({
      density: { target: 0.3, width: 0.3 },
      rouge: { useStemmer: false, lsumSplitSentences: true, tokenizer: 'auto' },
      backends: DEFAULT_SETTINGS.backends,
    });
    expect(moved.get('entity-density')?.raw).toBe(base.get('entity-density')?.raw);
    expect(moved.get('entity-density')?.score).not.toBe(base.get('entity-density')?.score);
    expect(base.get('rouge-1')?.backend).toMatch(/porter/u);
    expect(moved.get('rouge-1')?.backend).not.toMatch(/porter/u);
    // Without line breaks rouge_score's Lsum equals L; split into sentences it does not.
    expect(base.get('rouge-lsum')?.score).toBe(base.get('rouge-l')?.score);
    const lsum = moved.get('rouge-lsum');
    expect((lsum?.details as RougeDetails).sentenceSplit).toBe('intl-segmenter');
    expect((lsum?.details as RougeDetails).summarySentences).toBe(3);
  });
});

describe('repetition in the offline pass', () => {
  const repeating: CaseInput = {
    source: 's',
    summary:
      'The council approved the new park on Monday. Residents welcomed it. The council approved the new park after a long debate.',
  };

  it('adds the embedding pair, embedding the sentences once for coherence and repetition', async () => {
    ensureEmbeddingAsset();
    const glove = loadGloveEmbedder();
    const calls: string[][] = [];
    const counting: SentenceEmbedder = {
      backend: glove.backend,
      embed: (sentences, signal) => {
        calls.push([...sentences]);
        return glove.embed(sentences, signal);
      },
    };
    const results: MetricResult[] = [];
    await computeMetrics(
      ['coherence', 'repetition-offline'],
      repeating,
      DEFAULT_SETTINGS,
      { embedder: async () => counting },
      (r) => results.push(r),
    );
    const [coherence, repetition] = results;
    expect(coherence.status).toBe('ok');
    expect(repetition.status).toBe('ok');
    // "the council approved the new park" (6 of 21 words) is said again.
    expect(repetition.score).toBeCloseTo(1 - 6 / 21, 12);
    const details = repetition.details as RepetitionDetails;
    expect(details.embeddingPair).toMatchObject({ a: 0, b: 2, backend: glove.backend });
    expect(calls).toHaveLength(1);
  });

  it('keeps the repetition score when the embedding backend fails to load', async () => {
    const results: MetricResult[] = [];
    await computeMetrics(
      ['coherence', 'repetition-offline'],
      repeating,
      DEFAULT_SETTINGS,
      { embedder: () => Promise.reject(new Error('model file missing')) },
      (r) => results.push(r),
    );
    const [coherence, repetition] = results;
    expect(coherence).toMatchObject({ status: 'error', reason: 'model file missing' });
    expect(repetition).toMatchObject({ status: 'ok', score: expect.closeTo(1 - 6 / 21, 12) });
    expect((repetition.details as RepetitionDetails).embeddingPair).toBeNull();
    expect(repetition.notes).toEqual([
      'No embedding pair: the embedding backend did not load (model file missing).',
    ]);
  });
});

describe('the ROUGE/BLEU tokenizer setting', () => {
  it('keeps accented words whole when the segmenter is chosen', async () => {
    const french: CaseInput = {
      source: 's',
      summary: "L'élève a étudié à l'école pendant l'été.",
      reference: "L'élève étudie à l'école.",
    };
    const auto = await run(DEFAULT_SETTINGS, french);
    const words = await run(
      { ...DEFAULT_SETTINGS, rouge: { ...DEFAULT_SETTINGS.rouge, tokenizer: 'intl-segmenter' } },
      french,
    );
    expect((auto.get('rouge-1')?.details as RougeDetails).tokenizer).toBe('rouge_score');
    expect((words.get('rouge-1')?.details as RougeDetails).tokenizer).toBe('intl-segmenter');
    expect(words.get('rouge-1')?.score).not.toBe(auto.get('rouge-1')?.score);
  });
});
