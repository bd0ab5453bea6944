/**
 * The page-side client and the worker-side host talk through the RPC layer over a fake channel, so ids,
 * per-metric results, cancellation and failures are tested without a browser.
 */
import { describe, expect, it } from 'vitest';
import { serveMetrics } from '../../../workers/host.ts';
import { MetricWorkerClient } from '../../../src/lib/workers/worker-client.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import type { SentenceEmbedder } from '../../../src/lib/metrics/semantic/backends.ts';
import type { OfflineBackends } from '../../../src/lib/metrics/offline.ts';
import { metricApi } from '../../../src/lib/workers/metric-api.ts';
import { connect as channel } from './_channel.ts';

function connect(backends: OfflineBackends, warmUp = async () => {}) {
  const { worker, sent } = channel(metricApi, (scope) =>
    serveMetrics({ backends: () => backends, warmUp }, scope),
  );
  return { client: new MetricWorkerClient('test', worker), posted: sent };
}

const input = {
  source: 'Source.',
  summary: 'The cat sat on the mat. The dog sat on the log. Birds sang all day.',
  reference: 'The cat sat on the mat.',
};

/** An embedder that waits until told, so a test can cancel mid-job. */
function slowEmbedder() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const embedder: SentenceEmbedder = {
    backend: 'fake',
    async embed(sentences) {
      await gate;
      return sentences.map((_, i) => Float32Array.from([1, i, 0]));
    },
  };
  return { embedder, release };
}

describe('worker protocol round trip', () => {
  it('streams each metric result for its job and then resolves', async () => {
    const { client } = connect({});
    const results: MetricResult[] = [];
    const outcome = await client.score(
      ['rouge-1', 'bleu'],
      input,
      DEFAULT_SETTINGS,
      DEFAULT_MODEL_SOURCE,
      {
        onResult: (r) => results.push(r),
      },
    );
    expect(outcome).toEqual({ cancelled: false });
    expect(results.map((r) => r.id)).toEqual(['rouge-1', 'bleu']);
    expect(results.every((r) => r.status === 'ok' && r.backend)).toBe(true);
  });

  it('cancels a running job by id and reports it as cancelled', async () => {
    const { embedder, release } = slowEmbedder();
    const { client, posted } = connect({ embedder: async () => embedder });
    const controller = new AbortController();
    const results: MetricResult[] = [];
    const job = client.score(['coherence'], input, DEFAULT_SETTINGS, DEFAULT_MODEL_SOURCE, {
      signal: controller.signal,
      onResult: (r) => results.push(r),
    });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await job).toEqual({ cancelled: true });
    expect(results).toEqual([]);
    const [score, cancel] = posted as { kind: string; id: string }[];
    expect(cancel).toEqual({ kind: 'cancel', id: score?.id });
  });

  it('turns a metric failure into an error result, not a rejected job', async () => {
    const broken: SentenceEmbedder = {
      backend: 'broken',
      embed: async () => {
        throw new Error('vectors are corrupt');
      },
    };
    const { client } = connect({ embedder: async () => broken });
    const results: MetricResult[] = [];
    await client.score(['coherence'], input, DEFAULT_SETTINGS, DEFAULT_MODEL_SOURCE, {
      onResult: (r) => results.push(r),
    });
    expect(results[0]).toMatchObject({ id: 'coherence', status: 'error' });
    expect(results[0]?.reason).toMatch(/vectors are corrupt/u);
  });

  it('rejects a load that fails, with the reason', async () => {
    const { client } = connect({}, async () => {
      throw new Error('asset missing');
    });
    await expect(client.load()).rejects.toThrow(/asset missing/u);
  });
});
