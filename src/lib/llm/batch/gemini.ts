/**
 * Gemini batch mode with inline requests: `POST /v1beta/models/{model}:batchGenerateContent` with
 * `{batch: {display_name, input_config: {requests: {requests: [{request, metadata}]}}}}` answers
 * with a long-running operation named `batches/{id}`, polled with `GET /v1beta/batches/{id}`
 * until its state (BATCH_STATE_* on REST, JOB_STATE_* in the SDKs) is final; the answers come
 * inline (`inlinedResponses`), in the order of the requests. Inline requests are for jobs of up
 * to 20 MB; larger ones would need the File API.
 */
import { isRecord, str } from '../errors.ts';
import { GEMINI_BASE_URL } from '../providers/gemini.ts';
import { joinUrl, num } from '../providers/shared.ts';
import type { ProviderConfig } from '../types.ts';
import {
  batchCall,
  inputTokenBound,
  type BatchLine,
  type BatchWire,
  type JobPhase,
  type JobStatus,
  type LineResult,
} from './wire.ts';

function url(config: ProviderConfig, rest: string): string {
  return joinUrl(config.baseUrl ?? GEMINI_BASE_URL, 'v1beta', rest);
}

function headers(config: ProviderConfig): Record<string, string> {
  return { 'x-goog-api-key': config.apiKey ?? '' };
}

function entry(line: BatchLine): string {
  return JSON.stringify({ request: line.body, metadata: { key: line.customId } });
}

const PHASES: Record<string, JobPhase> = {
  PENDING: 'pending',
  QUEUED: 'pending',
  RUNNING: 'running',
  SUCCEEDED: 'ended',
  PARTIALLY_SUCCEEDED: 'ended',
  FAILED: 'failed',
  CANCELLING: 'running',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
};

/** The batch resource inside an operation (its metadata) or the batch itself. */
function batchOf(json: unknown): Record<string, unknown> {
  if (!isRecord(json)) return {};
  return isRecord(json.metadata) ? json.metadata : json;
}

function inlined(json: unknown): unknown[] {
  const places = [
    isRecord(json) ? json.response : undefined,
    isRecord(json) && isRecord(json.metadata) ? json.metadata.output : undefined,
    isRecord(json) ? json.output : undefined,
  ];
  for (const place of places) {
    if (!isRecord(place)) continue;
    const holder = isRecord(place.inlinedResponses) ? place.inlinedResponses : place;
    if (Array.isArray(holder.inlinedResponses)) return holder.inlinedResponses;
  }
  return [];
}

export const geminiBatch: BatchWire = {
  kind: 'gemini',
  // [unverified] the docs give 20 MB for inline requests and no request count; 10,000 keeps a
  // job's inline answers to a size one poll can carry.
  limits: { maxRequests: 10_000, maxBytes: 20 * 1024 * 1024 },

  lineBytes(line) {
    return new TextEncoder().encode(entry(line)).length + 1;
  },

  async submit(lines, http) {
    const { config } = http;
    const model = config.model.replace(/^models\//, '');
    const { json, text } = await batchCall(
      http,
      url(config, `models/${encodeURIComponent(model)}:batchGenerateContent`),
      {
        method: 'POST',
        headers: { ...headers(config), 'content-type': 'application/json' },
        body: `{"batch":{"display_name":"sumlens","input_config":{"requests":{"requests":[${lines.map(entry).join(',')}]}}}}`,
      },
    );
    const name = isRecord(json) ? (str(json.name) ?? str(batchOf(json).name)) : undefined;
    if (!name)
      throw new Error(`Gemini batch creation answered without a name: ${text.slice(0, 200)}`);
    return name;
  },

  async poll(jobId, http): Promise<JobStatus> {
    const name = jobId.startsWith('batches/') ? jobId : `batches/${jobId}`;
    const { json } = await batchCall(http, url(http.config, name), {
      method: 'GET',
      headers: headers(http.config),
    });
    const batch = batchOf(json);
    const raw = str(batch.state) ?? 'unknown';
    const stats = isRecord(batch.batchStats) ? batch.batchStats : {};
    const error = isRecord(json) && isRecord(json.error) ? json.error : undefined;
    return {
      phase: PHASES[raw.replace(/^(BATCH|JOB)_STATE_/, '')] ?? 'running',
      raw,
      done: num(stats.successfulRequestCount) + num(stats.failedRequestCount),
      total: num(stats.requestCount),
      handle: inlined(json),
      ...(error ? { message: str(error.message) } : {}),
    };
  },

  async results(_jobId, status, lines) {
    const out = new Map<string, LineResult>();
    const answers = Array.isArray(status.handle) ? status.handle : [];
    answers.forEach((answer, i) => {
      if (!isRecord(answer)) return;
      // Answers come in request order; the metadata is not always sent back.
      const meta = isRecord(answer.metadata) ? answer.metadata : {};
      const id = str(meta.key) ?? lines[i];
      if (!id) return;
      if (isRecord(answer.response)) out.set(id, { status: 200, body: answer.response });
      else if (isRecord(answer.error))
        out.set(id, { status: num(answer.error.code) || 500, body: { error: answer.error } });
      else out.set(id, { failed: 'no response' });
    });
    return out;
  },

  placeholder(body) {
    const config = isRecord(body.generationConfig) ? body.generationConfig : {};
    const n = Math.max(1, num(config.candidateCount));
    return {
      candidates: Array.from({ length: n }, (_, index) => ({
        index,
        content: { role: 'model', parts: [{ text: '' }] },
        finishReason: 'STOP',
      })),
    };
  },

  tokenEstimate(body) {
    const config = isRecord(body.generationConfig) ? body.generationConfig : {};
    const n = Math.max(1, num(config.candidateCount));
    return {
      input: inputTokenBound([body.systemInstruction, body.contents]),
      output: (num(config.maxOutputTokens) || 1024) * n,
    };
  },
};
