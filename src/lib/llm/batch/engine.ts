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
import { defaultSleep, type Sleep } from '../backoff.ts';
import type { Capabilities, Judge, ProviderConfig, ProviderKind } from '../types.ts';
import { BatchCollector, MemoryMissSpool, type MissSpool, type RowTrack } from './collect.ts';
import {
  JobPacker,
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

export { MemoryMissSpool, type MissSpool } from './collect.ts';

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
   * Keep each row's last output in the summary (default true). A caller that scores its rows
   * again from the cache once the jobs are done (the page, the CLI) says false, so a run of 10⁵
   * rows holds no results.
   */
  keepOutputs?: boolean;
  /** Where a round's unanswered requests wait until they go up as jobs (default: memory). */
  spool?: MissSpool;
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
  /** Each row's output from the round that finished it, in row order (empty without keepOutputs). */
  outputs: Out[];
  /** The lines of this run's jobs that came back without an answer, by custom id. */
  failures: Map<string, LineResult>;
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

function batchEstimate(
  requests: number,
  jobs: number,
  tokens: { input: number; output: number },
  config: ProviderConfig,
  table: PriceTable = DEFAULT_PRICE_TABLE,
): BatchEstimate {
  const full = estimateCost(tokens, config.kind, config.model, table);
  return {
    requests,
    jobs,
    inputTokens: tokens.input,
    outputTokens: tokens.output,
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
  const keepOutputs = options.keepOutputs ?? true;
  const spool = options.spool ?? new MemoryMissSpool();
  const bytesOf = (line: BatchLine) => wire.lineBytes(line, config);
  const summary: BatchRunSummary<Out> = {
    outputs: [],
    failures: new Map(),
    rounds: 0,
    jobIds: [],
    requests: 0,
    failedRequests: 0,
  };
  // Jobs whose answers the next pass writes into the cache: forgotten once it has.
  let applied: string[] = [];
  // A row whose calls were all answered (or failed for good) is final: later rounds skip it.
  let waiting = rows.map((_, i) => i);

  try {
    return await rounds();
  } finally {
    // A stopped or failed run leaves no spool file behind; the next run collects again.
    await spool.clear();
  }

  async function rounds(): Promise<BatchRunSummary<Out>> {
    for (let round = 1; ; round++) {
      signal?.throwIfAborted();
      await spool.clear();
      const collector = new BatchCollector(
        config,
        wire,
        cache,
        answers,
        options.capabilities,
        spool,
      );
      const stillWaiting: number[] = [];
      await pool(waiting, options.concurrency ?? 16, async (i) => {
        const track: RowTrack = { deferred: false };
        const out = await options.run(rows[i]!, collector.judge(track));
        if (keepOutputs) summary.outputs[i] = out;
        if (track.deferred) stillWaiting.push(i);
      });
      waiting = stillWaiting.sort((a, b) => a - b);
      for (const id of collector.settled) answers.delete(id);
      for (const jobId of applied) await store.remove(jobId);
      applied = [];
      if (spool.size === 0 || round > maxRounds) {
        await spool.clear();
        return summary;
      }

      const mine = (await store.list()).filter(
        (j) => j.provider === config.kind && j.host === host && j.model === config.model,
      );
      const resumed = mine.filter((j) => j.customIds.some((id) => spool.has(id)));
      const inResumed = new Set(resumed.flatMap((j) => j.customIds));
      const fresh = async function* () {
        for await (const line of spool.lines()) if (!inResumed.has(line.customId)) yield line;
      };
      // Priced first (the spool read once), then submitted job by job: one job's lines in memory.
      const counting = new JobPacker(limits);
      const tokens = { input: 0, output: 0 };
      let requests = 0;
      for await (const line of fresh()) {
        counting.place(bytesOf(line));
        const t = wire.tokenEstimate(line.body);
        tokens.input += t.input;
        tokens.output += t.output;
        requests++;
      }
      options.onEvent?.({
        type: 'round',
        round,
        estimate: batchEstimate(requests, counting.jobs, tokens, config, options.priceTable),
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
      const submit = async (chunk: BatchLine[]) => {
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
      };
      const packing = new JobPacker(limits);
      let chunk: BatchLine[] = [];
      for await (const line of fresh()) {
        if (packing.place(bytesOf(line)) && chunk.length > 0) {
          await submit(chunk);
          chunk = [];
        }
        chunk.push(line);
      }
      if (chunk.length > 0) await submit(chunk);
      // The last job's bodies are not kept for the hours of polling.
      chunk.length = 0;
      await spool.clear();
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
            if (!('status' in answer) || answer.status >= 400) {
              failed++;
              summary.failures.set(id, answer);
            }
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
}
