/**
 * Where the CLI scores the offline metrics of a row: in the main thread, one row at a time, or in
 * `node:worker_threads` workers, several rows at a time, with the same results in the same order
 * (score.ts writes rows in file order through in-order.ts, which also bounds the rows in flight).
 *
 * Rows of one source go to one worker (the first free one when the source is new), in file order:
 * its sentence vectors are then encoded once, and exactly as the serial run encodes them (see
 * offline-worker.ts). The main thread keeps the vector cache: it answers the workers' lookups and
 * is the only writer of the append-only file on disk.
 *
 * Workers × threads: one onnxruntime thread per worker. On the 600 SummEval dev rows (2 cores shared
 * with other jobs, so CPU time says more than wall time): 2 workers × 1 thread took 35-38 s of CPU
 * and 31 s of wall time, the main thread alone × 2 threads 41-51 s of CPU and 34 s (same load),
 * 2 workers × 2 threads 70 s of CPU. The encoder is under half of a row's time (compromise, the
 * fact check, the alignments are single-threaded JavaScript), so only workers spread a whole row;
 * a second intra-op thread per worker only competes with the other workers for the same cores.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { messageOf } from '../lib/errors.ts';
import { computeMetrics } from '../lib/metrics/offline.ts';
import { metricInfo } from '../lib/metrics/registry.ts';
import type { MetricSettings } from '../lib/metrics/settings.ts';
import type { CaseInput, MetricResult, OfflineMetricId } from '../lib/metrics/types.ts';
import type { UseDiskCache } from '../lib/node/use-disk-cache.ts';
import { loadCliEncoder, type EncoderConfig } from './encoder.ts';
import {
  buildGlove,
  loadGlove,
  offlineBackends,
  type EmbeddingChoice,
} from './offline-backends.ts';
import { fromWorkerSchema, type ToWorker, type WorkerSetup } from './offline-protocol.ts';

export interface OfflineScore {
  results: MetricResult[];
  /** The row's scoring time, wherever it ran. */
  ms: number;
}

export interface OfflineScorer {
  /**
   * Rows that may be in flight at once. 1 in the main thread: rows there share one encoder and one
   * cache, and two rows at once would batch their sentences otherwise than a serial run.
   */
  readonly window: number;
  score(input: CaseInput): Promise<OfflineScore>;
  close(): Promise<void>;
}

export interface OfflineScorerOptions {
  ids: readonly OfflineMetricId[];
  settings: MetricSettings;
  embedding: EmbeddingChoice;
  encoder: Omit<EncoderConfig, 'threads'>;
  /** The vector cache's folder; USE_DISK_CACHE_DIR unless told. */
  vectorCache?: string;
  /** Worker threads; 1 scores in the main thread. */
  workers: number;
  /** A line for stderr. */
  note: (line: string) => void;
}

/** Rows sent to a worker ahead of its results: enough that none waits for the main thread. */
const ROWS_AHEAD_PER_WORKER = 8;
/** Sources remembered for routing; one forgotten only loses the sticky worker, not a vector. */
const ROUTES_KEPT = 10_000;

/**
 * Workers when there are several and a metric needs a model: rows of lexical metrics alone take a
 * millisecond, less than starting a worker costs (about a second under tsx).
 */
export async function startOfflineScorer(options: OfflineScorerOptions): Promise<OfflineScorer> {
  const needs = new Set(options.ids.map((id) => metricInfo(id).needs));
  const needsModel = needs.has('embedding') || needs.has('ner');
  if (options.embedding === 'glove' && needs.has('embedding')) await buildGlove();
  if (options.workers <= 1 || !needsModel) return serialScorer(options);
  // The workers' vectors: the main thread keeps them, and alone appends new ones to the file.
  const cache =
    options.embedding === 'use-lite'
      ? (await import('../lib/node/use-disk-cache.ts')).openUseDiskCache(options.vectorCache, {
          precision: options.encoder.precision,
        })
      : undefined;
  return new WorkerPool(options, cache);
}

function serialScorer(options: OfflineScorerOptions): OfflineScorer {
  const encoder = {
    ...options.encoder,
    threads: availableParallelism(),
  };
  const backends = offlineBackends(async () =>
    options.embedding === 'glove'
      ? loadGlove()
      : loadCliEncoder(encoder, options.vectorCache ?? true, { warn: options.note }),
  );
  return {
    window: 1,
    async score(input) {
      const started = performance.now();
      const results: MetricResult[] = [];
      await computeMetrics(options.ids, input, options.settings, backends, (r) => results.push(r));
      return { results, ms: performance.now() - started };
    },
    close: async () => undefined,
  };
}

interface Pending {
  resolve: (score: OfflineScore) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  thread: Worker;
  pending: Map<number, Pending>;
  /** Why it stopped, once it has. */
  failure?: Error;
}

class WorkerPool implements OfflineScorer {
  readonly window: number;
  readonly #workers: PoolWorker[];
  readonly #cache: UseDiskCache | undefined;
  readonly #routes = new Map<string, PoolWorker>();
  readonly #said = new Set<string>();
  readonly #note: (line: string) => void;
  #nextId = 0;

  /** `cache`: the vectors the workers ask for, and the file their new ones are appended to. */
  constructor(options: OfflineScorerOptions, cache: UseDiskCache | undefined) {
    this.#note = options.note;
    this.#cache = cache;
    const setup: WorkerSetup = {
      ids: [...options.ids],
      settings: options.settings,
      embedding: options.embedding,
      encoder: { ...options.encoder, threads: 1 },
    };
    this.#workers = Array.from({ length: options.workers }, () => this.#start(setup));
    options.note(`Offline metrics: ${options.workers} worker threads.`);
    this.window = options.workers * ROWS_AHEAD_PER_WORKER;
  }

  score(input: CaseInput): Promise<OfflineScore> {
    const worker = this.#route(input.source);
    if (worker.failure) return Promise.reject(worker.failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      worker.thread.postMessage({ type: 'score', id, input } satisfies ToWorker);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.thread.terminate()));
  }

  #route(source: string): PoolWorker {
    const key = createHash('sha1').update(source).digest('base64');
    let worker = this.#routes.get(key);
    if (!worker) {
      worker = this.#workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      if (this.#routes.size >= ROUTES_KEPT) this.#routes.delete(this.#routes.keys().next().value!);
      this.#routes.set(key, worker);
    }
    return worker;
  }

  #start(setup: WorkerSetup): PoolWorker {
    const worker: PoolWorker = { thread: spawnWorker(setup), pending: new Map() };
    const fail = (error: Error) => {
      worker.failure ??= new Error(`An offline-metric worker stopped: ${error.message}`);
      for (const { reject } of worker.pending.values()) reject(worker.failure);
      worker.pending.clear();
    };
    worker.thread.on('error', fail);
    worker.thread.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    worker.thread.on('message', (raw: unknown) => {
      const parsed = fromWorkerSchema.safeParse(raw);
      if (!parsed.success) {
        fail(new Error(`unreadable message (${messageOf(parsed.error)})`));
        return;
      }
      const message = parsed.data;
      switch (message.type) {
        case 'scored':
        case 'failed': {
          const pending = worker.pending.get(message.id);
          worker.pending.delete(message.id);
          if (message.type === 'scored') pending?.resolve(message);
          else pending?.reject(new Error(message.message));
          break;
        }
        case 'lookup': {
          const entries = message.sentences.map((s) => this.#cache?.get('', s) ?? null);
          worker.thread.postMessage({
            type: 'vectors',
            id: message.id,
            entries,
          } satisfies ToWorker);
          break;
        }
        case 'store':
          // Two workers may encode the same sentence (rows of two sources): keep the first.
          if (this.#cache && !this.#cache.get('', message.sentence)) {
            this.#cache.set('', message.sentence, message.entry);
          }
          break;
        case 'note':
          if (!this.#said.has(message.message)) this.#note(message.message);
          this.#said.add(message.message);
          break;
        default:
          message satisfies never;
      }
    });
    return worker;
  }
}

function spawnWorker(setup: WorkerSetup): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // Node 20 does not pass `--import tsx` on to worker threads: the worker registers tsx itself
    // before it imports the TypeScript entry.
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const entry = JSON.stringify(new URL('./offline-worker.ts', here).href);
    const code = `import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`;
    return new Worker(code, { eval: true, workerData: setup });
  }
  // The bundled CLI: scripts/build-cli.ts writes offline-worker.js beside this chunk.
  return new Worker(new URL('./offline-worker.js', here), { workerData: setup });
}
