/**
 * The batch engine: a data-set run sent to a provider's batch API, one job per round (split at
 * the provider's limits).
 *
 * A round runs every row's judge metrics with the collecting judge (collect.ts): what the cache
 * or an earlier job answers comes back at once; every other request is written down and its row
 * stops there. The requests go up as jobs, are polled until the jobs end, and each answer line is
 * checked on its own: a line that errored, expired or cannot be read fails only the request it
 * names. The rows then run again: answered calls now come from the answers (and go into the
 * response cache under their interactive keys), and the next requests (claims → verdicts →
 * grades) make the next round's jobs. When a round asks nothing, the rows' results are final.
 *
 * Job ids are kept in a store (a file for the CLI) from submission until their answers are in
 * the cache, so a run that stops while a job is pending polls that job again instead of paying
 * for a second one.
 */
import { hostOf } from '../capabilities.ts';
import type { ResponseCache } from '../cache.ts';
import { DEFAULT_PRICE_TABLE, estimateCost, type PriceTable } from '../prices.ts';
import { defaultSleep, type Sleep } from '../transport.ts';
import type { Capabilities, Judge, ProviderConfig, ProviderKind } from '../types.ts';
import { BatchCollector } from './collect.ts';
import {
  splitJobs,
  type BatchLimits,
  type BatchLine,
  type BatchWire,
  type JobStatus,
  type LineResult,
} from './wire.ts';
import { openaiBatch } from './openai.ts';
import { anthropicBatch } from './anthropic.ts';
import { geminiBatch } from './gemini.ts';
import { BATCH_PRICE_FACTOR, isBatchKind, type BatchKind } from './kinds.ts';

export { BatchDeferredError, BatchLineError } from './collect.ts';
export type { BatchLimits, BatchWire, JobStatus } from './wire.ts';
export { BATCH_KINDS, BATCH_PRICE_FACTOR, isBatchKind, type BatchKind } from './kinds.ts';

export const BATCH_WIRES: Record<BatchKind, BatchWire> = {
  openai: openaiBatch,
  anthropic: anthropicBatch,
  gemini: geminiBatch,
};

export const DEFAULT_POLL_INTERVAL_MS = 30_000;

export interface BatchJobRecord {
  jobId: string;
  provider: ProviderKind;
  host: string;
  model: string;
  customIds: string[];
  submittedAt: string;
}

/** Where pending job ids survive the process (a file next to the CLI's cache; IndexedDB later). */
export interface BatchJobStore {
  list(): Promise<BatchJobRecord[]>;
  add(job: BatchJobRecord): Promise<void>;
  remove(jobId: string): Promise<void>;
}

export class MemoryBatchJobStore implements BatchJobStore {
  private readonly jobs = new Map<string, BatchJobRecord>();
  async list(): Promise<BatchJobRecord[]> {
    return [...this.jobs.values()].map((j) => structuredClone(j));
  }
  async add(job: BatchJobRecord): Promise<void> {
    this.jobs.set(job.jobId, structuredClone(job));
  }
  async remove(jobId: string): Promise<void> {
    this.jobs.delete(jobId);
  }
}

export interface BatchEstimate {
  requests: number;
  jobs: number;
  /** Upper bounds: the prompt by its length, the answer by its token budget. */
  inputTokens: number;
  outputTokens: number;
  /** USD at the batch rate; undefined when the price table does not know the model. */
  costUsd: number | undefined;
}

export type BatchEvent =
  | { type: 'round'; round: number; estimate: BatchEstimate }
  | { type: 'submitted'; round: number; jobId: string; requests: number }
  | { type: 'resumed'; round: number; jobId: string; requests: number }
  | { type: 'status'; round: number; jobId: string; status: JobStatus }
  | { type: 'downloaded'; round: number; jobId: string; answered: number; failed: number };

export interface BatchRunOptions<Row, Out> {
  config: ProviderConfig;
  cache: ResponseCache;
  jobs: BatchJobStore;
  rows: readonly Row[];
  /** Scores one row with this judge (the page and the CLI run their judge metrics here). */
  run(row: Row, judge: Judge): Promise<Out>;
  /** Default: the provider's wire (BATCH_WIRES). */
  wire?: BatchWire;
  fetch?: typeof fetch;
  sleep?: Sleep;
  pollIntervalMs?: number;
  /** Lower limits than the provider's (tests, or smaller jobs on purpose). */
  limits?: Partial<BatchLimits>;
  /** Rounds before giving up on rows that keep asking (the metrics need at most 3, repairs 1 more). */
  maxRounds?: number;
  /** Rows scored at once in a round (they only meet the cache, so this bounds memory, not calls). */
  concurrency?: number;
  /**
   * The capabilities the interactive judge will report (its probe, kept in its store), so that
   * the jobs ask what a later interactive run asks. Default: the traits table.
   */
  capabilities?: () => Promise<Capabilities>;
  priceTable?: PriceTable;
  onEvent?(event: BatchEvent): void;
  signal?: AbortSignal;
}

export interface BatchRunSummary<Out> {
  /** The last round's output per row, in row order. */
  outputs: Out[];
  /** Rounds that submitted or resumed at least one job. */
  rounds: number;
  jobIds: string[];
  /** Requests sent in jobs, and those of them that came back without an answer. */
  requests: number;
  failedRequests: number;
}

async function pool<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>) {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
  return out;
}

export function estimateBatch(
  lines: readonly BatchLine[],
  jobs: number,
  config: ProviderConfig,
  wire: BatchWire,
  table: PriceTable = DEFAULT_PRICE_TABLE,
): BatchEstimate {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const line of lines) {
    const t = wire.tokenEstimate(line.body);
    inputTokens += t.input;
    outputTokens += t.output;
  }
  const full = estimateCost(
    { input: inputTokens, output: outputTokens },
    config.kind,
    config.model,
    table,
  );
  return {
    requests: lines.length,
    jobs,
    inputTokens,
    outputTokens,
    costUsd: full === undefined ? undefined : full * BATCH_PRICE_FACTOR,
  };
}

export async function runBatch<Row, Out>(
  options: BatchRunOptions<Row, Out>,
): Promise<BatchRunSummary<Out>> {
  const { config, cache, jobs: store, rows, signal } = options;
  if (!isBatchKind(config.kind)) {
    throw new Error(`${config.kind} has no batch API: use openai, anthropic or gemini.`);
  }
  const wire = options.wire ?? BATCH_WIRES[config.kind];
  const http = { config, fetch: options.fetch ?? ((i, init) => globalThis.fetch(i, init)) } as {
    config: ProviderConfig;
    fetch: typeof fetch;
  };
  const sleep = options.sleep ?? defaultSleep;
  const pollMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const limits: BatchLimits = { ...wire.limits, ...options.limits };
  const maxRounds = options.maxRounds ?? 6;
  const host = hostOf(config);
  const answers = new Map<string, LineResult>();
  const summary: BatchRunSummary<Out> = {
    outputs: [],
    rounds: 0,
    jobIds: [],
    requests: 0,
    failedRequests: 0,
  };
  // Jobs whose answers the next pass writes into the cache: forgotten once it has.
  let applied: string[] = [];

  for (let round = 1; ; round++) {
    signal?.throwIfAborted();
    const collector = new BatchCollector(config, wire, cache, answers, options.capabilities);
    const judge = collector.judge();
    summary.outputs = await pool(rows, options.concurrency ?? 16, (row) => options.run(row, judge));
    for (const jobId of applied) await store.remove(jobId);
    applied = [];
    if (collector.misses.size === 0 || round > maxRounds) return summary;

    const misses = new Map(collector.misses);
    const mine = (await store.list()).filter(
      (j) => j.provider === config.kind && j.host === host && j.model === config.model,
    );
    const resumed = mine.filter((j) => j.customIds.some((id) => misses.has(id)));
    for (const job of resumed) for (const id of job.customIds) misses.delete(id);
    const chunks = splitJobs([...misses.values()], limits, (line) => wire.lineBytes(line, config));
    options.onEvent?.({
      type: 'round',
      round,
      estimate: estimateBatch(
        [...misses.values()],
        chunks.length,
        config,
        wire,
        options.priceTable,
      ),
    });
    const active: Array<{ jobId: string; customIds: string[] }> = [];
    for (const job of resumed) {
      options.onEvent?.({
        type: 'resumed',
        round,
        jobId: job.jobId,
        requests: job.customIds.length,
      });
      active.push(job);
    }
    for (const chunk of chunks) {
      signal?.throwIfAborted();
      const jobId = await wire.submit(chunk, http);
      const customIds = chunk.map((l) => l.customId);
      await store.add({
        jobId,
        provider: config.kind,
        host,
        model: config.model,
        customIds,
        submittedAt: new Date().toISOString(),
      });
      options.onEvent?.({ type: 'submitted', round, jobId, requests: chunk.length });
      active.push({ jobId, customIds });
    }
    summary.rounds++;
    await Promise.all(
      active.map(async ({ jobId, customIds }) => {
        let status = await wire.poll(jobId, http);
        options.onEvent?.({ type: 'status', round, jobId, status });
        while (status.phase === 'pending' || status.phase === 'running') {
          await sleep(pollMs, signal);
          status = await wire.poll(jobId, http);
          options.onEvent?.({ type: 'status', round, jobId, status });
        }
        const got =
          status.phase === 'failed'
            ? new Map<string, LineResult>()
            : await wire.results(jobId, status, customIds, http);
        let failed = 0;
        for (const id of customIds) {
          const answer = got.get(id) ?? {
            failed: status.phase === 'ended' ? 'missing from the results' : status.raw,
          };
          if (!('status' in answer) || answer.status >= 400) failed++;
          answers.set(id, answer);
        }
        summary.requests += customIds.length;
        summary.failedRequests += failed;
        summary.jobIds.push(jobId);
        options.onEvent?.({
          type: 'downloaded',
          round,
          jobId,
          answered: customIds.length - failed,
          failed,
        });
        applied.push(jobId);
      }),
    );
  }
}
