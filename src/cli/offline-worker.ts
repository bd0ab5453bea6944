/**
 * A worker thread of the CLI's offline metrics (offline-pool.ts starts it): scores the rows it is
 * sent with the same computeMetrics and backends as a serial run, one row at a time, in the order
 * sent. One at a time because the encoder's batches change a vector's last bits: a row must miss
 * the same sentences, in the same calls, as it would in the serial run, and the pool sends all
 * rows of a source to one worker, in file order.
 *
 * Its vectors come from the main thread, which alone reads and appends the disk cache: each embed
 * call asks for the vectors known of its sentences, encodes the rest here, and sends them back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '../lib/errors.ts';
import { computeMetrics } from '../lib/metrics/offline.ts';
import type { SentenceEmbedder } from '../lib/metrics/semantic/backends.ts';
import {
  cachedEmbedding,
  type CachedVector,
  type VectorStore,
} from '../lib/metrics/semantic/vector-cache.ts';
import type { CaseInput, MetricResult } from '../lib/metrics/types.ts';
import type { NodeUseLiteEmbedder } from '../lib/node/load-use.ts';
import { loadCliEncoder } from './encoder.ts';
import { loadGlove, offlineBackends } from './offline-backends.ts';
import { toWorkerSchema, workerSetupSchema, type FromWorker } from './offline-protocol.ts';

const port = parentPort!;
const setup = workerSetupSchema.parse(workerData);
const send = (message: FromWorker) => port.postMessage(message);

let lookupId = 0;
const lookups = new Map<number, (entries: (CachedVector | null)[]) => void>();

function lookup(sentences: readonly string[]): Promise<Map<string, CachedVector>> {
  const id = lookupId++;
  send({ type: 'lookup', id, sentences: [...sentences] });
  return new Promise((resolve) =>
    lookups.set(id, (entries) => {
      const known = new Map<string, CachedVector>();
      entries.forEach((entry, i) => entry && known.set(sentences[i]!, entry));
      resolve(known);
    }),
  );
}

/**
 * The serial run's `cachedEmbedding` over the main thread's answer, so that the encoder gets the
 * same missing sentences in the same order. The answer lives for one call: the worker keeps no
 * vectors of its own, whatever the length of the run.
 */
function throughMainThread(embedder: NodeUseLiteEmbedder): SentenceEmbedder {
  return {
    backend: embedder.backend,
    ...(embedder.languages ? { languages: embedder.languages } : {}),
    async embed(sentences, signal) {
      const known = await lookup(sentences);
      const view: VectorStore = {
        get: (_backend, sentence) => known.get(sentence),
        set: (_backend, sentence, entry) => {
          known.set(sentence, entry);
          send({ type: 'store', sentence, entry });
        },
      };
      const embed = cachedEmbedding(view, embedder.backend, (missing, s) =>
        embedder.embedCounting(missing, s),
      );
      return (await embed(sentences, signal)).vectors;
    },
  };
}

const backends = offlineBackends(async () =>
  setup.embedding === 'glove'
    ? loadGlove()
    : throughMainThread(
        await loadCliEncoder(setup.encoder, false, {
          warn: (message) => send({ type: 'note', message }),
        }),
      ),
);

async function score(id: number, input: CaseInput): Promise<void> {
  const started = performance.now();
  const results: MetricResult[] = [];
  try {
    await computeMetrics(setup.ids, input, setup.settings, backends, (r) => results.push(r));
    send({ type: 'scored', id, results, ms: performance.now() - started });
  } catch (error) {
    send({ type: 'failed', id, message: messageOf(error) });
  }
}

let rows: Promise<void> = Promise.resolve();
port.on('message', (raw: unknown) => {
  // A message this file cannot read is a bug of the pool's: the 'error' event fails the run.
  const message = toWorkerSchema.parse(raw);
  switch (message.type) {
    case 'score': {
      const input = message.input as CaseInput;
      rows = rows.then(() => score(message.id, input));
      break;
    }
    case 'vectors':
      lookups.get(message.id)?.(message.entries);
      lookups.delete(message.id);
      break;
    default:
      message satisfies never;
  }
});
