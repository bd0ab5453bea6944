/**
 * What the batch engine (engine.ts) needs from a provider's batch API: submit many chat requests
 * as one job, read the job's state, download its answers line by line. Each provider module
 * (openai.ts, anthropic.ts, gemini.ts) speaks its own wire; the chat request bodies inside a job
 * are exactly those the interactive client builds (providers/*.ts), so an answer read back from a
 * job goes through the same parsing, checks and cache as an interactive one.
 */
import { safeJson, type ErrorContext } from '../errors.ts';
import { currentTraits } from '../capabilities.ts';
import { adapterFor } from '../providers/index.ts';
import { literalRedactor } from '../redact.ts';
import type { LlmError, ProviderConfig, ProviderKind } from '../types.ts';

/** One chat request of a job: the provider body the interactive client would have sent. */
export interface BatchLine {
  /** Stable across runs (engine.ts), `[A-Za-z0-9_-]{1,64}` as Anthropic requires. */
  customId: string;
  body: Record<string, unknown>;
}

/** How one line of a job ended. */
export type LineResult =
  /** The provider's HTTP status and JSON body for this request, as an interactive call gets it. */
  | { status: number; body: unknown }
  /** No answer: errored without a body, expired, cancelled, missing or unreadable. */
  | { failed: string };

/** Our reading of a job's state; `raw` is the provider's own word (shown while polling). */
export type JobPhase = 'pending' | 'running' | 'ended' | 'failed' | 'expired' | 'cancelled';

export interface JobStatus {
  phase: JobPhase;
  raw: string;
  /** Requests finished so far / in all, where the provider says. */
  done?: number;
  total?: number;
  /** Whatever the provider needs to fetch the results (file ids, a results URL, inline answers). */
  handle?: unknown;
  /** The provider's reason for a failed job. */
  message?: string;
}

export interface BatchLimits {
  maxRequests: number;
  /** Bytes of one job's upload (the JSONL file or the request body). */
  maxBytes: number;
}

export interface BatchHttp {
  config: ProviderConfig;
  fetch: typeof fetch;
}

export interface BatchWire {
  readonly kind: ProviderKind;
  readonly limits: BatchLimits;
  /** Bytes this line adds to a job's upload. */
  lineBytes(line: BatchLine, config: ProviderConfig): number;
  /** Creates the job; resolves with its id. */
  submit(lines: BatchLine[], http: BatchHttp): Promise<string>;
  poll(jobId: string, http: BatchHttp): Promise<JobStatus>;
  /** The answers of an ended (or expired, cancelled) job, by custom id; absent ids had none. */
  results(
    jobId: string,
    status: JobStatus,
    lines: readonly string[],
    http: BatchHttp,
  ): Promise<Map<string, LineResult>>;
  /**
   * A well-formed reply with empty text for this body: what the collecting judge hands the
   * client for a request that goes into the next job, so that every sample of a request is asked
   * for before the call gives up (an error would cancel its siblings).
   */
  placeholder(body: Record<string, unknown>): unknown;
  /** Upper bounds of the tokens one line may cost, for the price shown before submitting. */
  tokenEstimate(body: Record<string, unknown>): { input: number; output: number };
}

function errorContext(config: ProviderConfig): ErrorContext {
  const traits = currentTraits(config);
  return { provider: config.kind, name: traits.name, model: config.model, local: traits.local };
}

/**
 * One call to a batch endpoint with the provider's headers; a non-2xx answer becomes the same
 * LlmError the interactive client would raise for it (a dead key, an exhausted quota …). The
 * key is taken out of every body first, as the interactive transport does: a results file is
 * answers that go into the cache, and a failed line's words into the row's error.
 */
export async function batchCall(
  http: BatchHttp,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: BodyInit },
): Promise<{ text: string; json: unknown }> {
  const res = await http.fetch(url, init);
  const text = literalRedactor([http.config.apiKey])(await res.text());
  if (!res.ok) {
    const error: LlmError = adapterFor(http.config.kind).classifyError(
      res.status,
      text,
      errorContext(http.config),
      res.headers,
    );
    throw error;
  }
  return { text, json: safeJson(text.trim()) };
}

/** JSON Lines into values; a line that is not JSON is skipped (its request counts as missing). */
export function jsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const value = safeJson(trimmed);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** A rough upper bound of a body's prompt tokens: 4 characters a token, the JSON included. */
export function inputTokenBound(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

/**
 * Packs lines into jobs that keep within the provider's limits, in order, one line at a time (a
 * round's lines are read from a spool, never held together).
 */
export class JobPacker {
  /** Jobs opened so far. */
  jobs = 0;
  private count = 0;
  private bytes = 0;

  constructor(private readonly limits: BatchLimits) {}

  /** Places a line of `size` bytes; true when it opens a new job. */
  place(size: number): boolean {
    const opens =
      this.count === 0 ||
      this.count >= this.limits.maxRequests ||
      this.bytes + size > this.limits.maxBytes;
    if (opens) {
      this.jobs++;
      this.count = 0;
      this.bytes = 0;
    }
    this.count++;
    this.bytes += size;
    return opens;
  }
}
