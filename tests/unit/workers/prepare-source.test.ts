/**
 * `prepare`: the page asks the embedding worker to embed a case (source and summary) ahead of
 * Score. The worker's hook gets both texts and the settings and its count comes back; a worker without the hook answers 0; a
 * newer request cancels an older one through its signal.
 */
import { describe, expect, it } from 'vitest';
import { serveMetrics, type WorkerBackendFactory } from '../../../workers/host.ts';
import { MetricWorkerClient } from '../../../src/lib/workers/worker-client.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';
import { metricApi } from '../../../src/lib/workers/metric-api.ts';
import { connect } from './_channel.ts';

function client(prepare?: WorkerBackendFactory['prepare']) {
  const { worker } = connect(metricApi, (scope) =>
    serveMetrics(
      { backends: () => ({}), warmUp: async () => {}, ...(prepare ? { prepare } : {}) },
      scope,
    ),
  );
  return new MetricWorkerClient('test', worker);
}

describe('prepare', () => {
  it('passes the source and summary to the worker and returns how many sentences it embedded', async () => {
    const seen: string[] = [];
    const worker = client(async ({ source, summary }, settings) => {
      seen.push(`${source}|${summary}|${settings.backends.embedding.kind}`);
      return 4;
    });
    const texts = { source: 'A. B. C.', summary: 'D.' };
    expect(await worker.prepare(texts, DEFAULT_SETTINGS, DEFAULT_MODEL_SOURCE)).toBe(4);
    expect(seen).toEqual(['A. B. C.|D.|use-lite']);
  });

  it('answers 0 from a worker that has nothing to prepare', async () => {
    expect(
      await client().prepare({ source: 'A.', summary: '' }, DEFAULT_SETTINGS, DEFAULT_MODEL_SOURCE),
    ).toBe(0);
  });

  it('aborts the worker side when the page cancels', async () => {
    let aborted = false;
    const worker = client(
      (_source, _settings, _models, signal) =>
        new Promise<number>((_, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new DOMException('cancelled', 'AbortError'));
          }),
        ),
    );
    const controller = new AbortController();
    const pending = worker.prepare(
      { source: 'A.', summary: 'B.' },
      DEFAULT_SETTINGS,
      DEFAULT_MODEL_SOURCE,
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => aborted).toBe(true);
  });
});
