/**
 * Anthropic Message Batches: `POST /v1/messages/batches` with `{requests: [{custom_id, params}]}`
 * (params: a Messages API body), polled with `GET /v1/messages/batches/{id}` until
 * `processing_status` is `ended`; `results_url` then streams JSONL lines `{custom_id, result}`,
 * the result `succeeded` (with the message), `errored` (with the error body), `canceled` or
 * `expired`. A batch holds at most 100,000 requests and 256 MB.
 */
import { isRecord, str } from '../errors.ts';
import { ANTHROPIC_BASE_URL, ANTHROPIC_VERSION } from '../providers/anthropic.ts';
import { joinUrl, num } from '../providers/shared.ts';
import type { ProviderConfig } from '../types.ts';
import {
  batchCall,
  inputTokenBound,
  jsonLines,
  type BatchLine,
  type BatchWire,
  type JobStatus,
  type LineResult,
} from './wire.ts';

function url(config: ProviderConfig, rest: string): string {
  return joinUrl(config.baseUrl ?? ANTHROPIC_BASE_URL, 'v1', rest);
}

function headers(config: ProviderConfig): Record<string, string> {
  return {
    'x-api-key': config.apiKey ?? '',
    'anthropic-version': ANTHROPIC_VERSION,
    // Asked for so a page can use it where the API allows; the batch endpoints did not answer
    // browser preflights when this was written (README → provider batch engines).
    'anthropic-dangerous-direct-browser-access': 'true',
  };
}

function entry(line: BatchLine): string {
  return JSON.stringify({ custom_id: line.customId, params: line.body });
}

/** An errored request's error type as the HTTP status an interactive call would have met. */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function readLine(value: unknown, into: Map<string, LineResult>): void {
  if (!isRecord(value)) return;
  const id = str(value.custom_id);
  if (!id) return;
  const result = isRecord(value.result) ? value.result : {};
  const type = str(result.type) ?? 'unknown';
  if (type === 'succeeded' && isRecord(result.message)) {
    into.set(id, { status: 200, body: result.message });
  } else if (type === 'errored' && isRecord(result.error)) {
    const body = result.error;
    const inner = isRecord(body.error) ? body.error : body;
    into.set(id, { status: ERROR_STATUS[str(inner.type) ?? ''] ?? 500, body });
  } else {
    into.set(id, { failed: type });
  }
}

export const anthropicBatch: BatchWire = {
  kind: 'anthropic',
  limits: { maxRequests: 100_000, maxBytes: 256 * 1024 * 1024 },

  lineBytes(line) {
    return new TextEncoder().encode(entry(line)).length + 1;
  },

  async submit(lines, http) {
    const { config } = http;
    const { json, text } = await batchCall(http, url(config, 'messages/batches'), {
      method: 'POST',
      headers: { ...headers(config), 'content-type': 'application/json' },
      body: `{"requests":[${lines.map(entry).join(',')}]}`,
    });
    const id = isRecord(json) ? str(json.id) : undefined;
    if (!id)
      throw new Error(`Anthropic batch creation answered without an id: ${text.slice(0, 200)}`);
    return id;
  },

  async poll(jobId, http): Promise<JobStatus> {
    const { json } = await batchCall(
      http,
      url(http.config, `messages/batches/${encodeURIComponent(jobId)}`),
      { method: 'GET', headers: headers(http.config) },
    );
    const job = isRecord(json) ? json : {};
    const raw = str(job.processing_status) ?? 'unknown';
    const counts = isRecord(job.request_counts) ? job.request_counts : {};
    const finished =
      num(counts.succeeded) + num(counts.errored) + num(counts.canceled) + num(counts.expired);
    return {
      // An ended batch may hold only canceled or expired requests: its lines say so one by one.
      phase: raw === 'ended' ? 'ended' : 'running',
      raw,
      done: finished,
      total: finished + num(counts.processing),
      handle: str(job.results_url),
    };
  },

  async results(jobId, status, _lines, http) {
    const out = new Map<string, LineResult>();
    const resultsUrl =
      typeof status.handle === 'string'
        ? status.handle
        : url(http.config, `messages/batches/${encodeURIComponent(jobId)}/results`);
    const { text } = await batchCall(http, resultsUrl, {
      method: 'GET',
      headers: headers(http.config),
    });
    for (const value of jsonLines(text)) readLine(value, out);
    return out;
  },

  placeholder() {
    return {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: '' }],
      stop_reason: 'end_turn',
    };
  },

  tokenEstimate(body) {
    return {
      input: inputTokenBound([body.system, body.messages, body.tools]),
      output: num(body.max_tokens) || 1024,
    };
  },
};
