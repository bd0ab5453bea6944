/**
 * OpenAI Batch API: the requests go up as a JSONL file (`POST /v1/files`, purpose `batch`), one
 * `POST /v1/batches` job per file (endpoint `/v1/chat/completions`, window `24h`), polled with
 * `GET /v1/batches/{id}`; answers and per-request errors come back as two JSONL files
 * (`output_file_id`, `error_file_id`) read with `GET /v1/files/{id}/content`. A file holds at
 * most 50,000 requests and 200 MB.
 */
import { isRecord, str } from '../errors.ts';
import { OPENAI_BASE_URL } from '../providers/openai.ts';
import { joinUrl, num } from '../providers/shared.ts';
import type { ProviderConfig } from '../types.ts';
import {
  batchCall,
  inputTokenBound,
  jsonLines,
  type BatchHttp,
  type BatchLine,
  type BatchWire,
  type JobPhase,
  type JobStatus,
  type LineResult,
} from './wire.ts';

const ENDPOINT = '/v1/chat/completions';

function url(config: ProviderConfig, rest: string): string {
  return joinUrl(config.baseUrl ?? OPENAI_BASE_URL, 'v1', rest);
}

function auth(config: ProviderConfig): Record<string, string> {
  return { authorization: `Bearer ${config.apiKey ?? ''}` };
}

function jsonlLine(line: BatchLine): string {
  return JSON.stringify({
    custom_id: line.customId,
    method: 'POST',
    url: ENDPOINT,
    body: line.body,
  });
}

const PHASES: Record<string, JobPhase> = {
  validating: 'pending',
  in_progress: 'running',
  finalizing: 'running',
  cancelling: 'running',
  completed: 'ended',
  failed: 'failed',
  expired: 'expired',
  cancelled: 'cancelled',
};

function readLine(value: unknown, into: Map<string, LineResult>): void {
  if (!isRecord(value)) return;
  const id = str(value.custom_id);
  if (!id) return;
  const response = isRecord(value.response) ? value.response : undefined;
  if (response && typeof response.status_code === 'number') {
    into.set(id, { status: response.status_code, body: response.body });
    return;
  }
  const error = isRecord(value.error) ? value.error : {};
  const reason = [str(error.code), str(error.message)].filter(Boolean).join(': ');
  into.set(id, { failed: reason || 'no response' });
}

export const openaiBatch: BatchWire = {
  kind: 'openai',
  limits: { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 },

  lineBytes(line) {
    return new TextEncoder().encode(jsonlLine(line)).length + 1;
  },

  async submit(lines: BatchLine[], http: BatchHttp): Promise<string> {
    const { config } = http;
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append(
      'file',
      // Line by line: a 200 MB job is never also one 200 MB string.
      new Blob(
        lines.map((line) => jsonlLine(line) + '\n'),
        { type: 'application/jsonl' },
      ),
      'sumlens-batch.jsonl',
    );
    const file = await batchCall(http, url(config, 'files'), {
      method: 'POST',
      headers: auth(config),
      body: form,
    });
    const fileId = isRecord(file.json) ? str(file.json.id) : undefined;
    if (!fileId)
      throw new Error(`OpenAI file upload answered without an id: ${file.text.slice(0, 200)}`);
    const job = await batchCall(http, url(config, 'batches'), {
      method: 'POST',
      headers: { ...auth(config), 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: fileId, endpoint: ENDPOINT, completion_window: '24h' }),
    });
    const id = isRecord(job.json) ? str(job.json.id) : undefined;
    if (!id)
      throw new Error(`OpenAI batch creation answered without an id: ${job.text.slice(0, 200)}`);
    return id;
  },

  async poll(jobId, http): Promise<JobStatus> {
    const { json } = await batchCall(
      http,
      url(http.config, `batches/${encodeURIComponent(jobId)}`),
      {
        method: 'GET',
        headers: auth(http.config),
      },
    );
    const job = isRecord(json) ? json : {};
    const raw = str(job.status) ?? 'unknown';
    const counts = isRecord(job.request_counts) ? job.request_counts : {};
    const errors = isRecord(job.errors) && Array.isArray(job.errors.data) ? job.errors.data : [];
    const first = errors.find(isRecord);
    return {
      phase: PHASES[raw] ?? 'running',
      raw,
      done: num(counts.completed) + num(counts.failed),
      total: num(counts.total),
      handle: { output: str(job.output_file_id), errors: str(job.error_file_id) },
      ...(first ? { message: str(first.message) } : {}),
    };
  },

  async results(_jobId, status, _lines, http) {
    const out = new Map<string, LineResult>();
    const handle = isRecord(status.handle) ? status.handle : {};
    for (const fileId of [str(handle.errors), str(handle.output)]) {
      if (!fileId) continue;
      const { text } = await batchCall(
        http,
        url(http.config, `files/${encodeURIComponent(fileId)}/content`),
        { method: 'GET', headers: auth(http.config) },
      );
      for (const value of jsonLines(text)) readLine(value, out);
    }
    return out;
  },

  placeholder(body) {
    const n = Math.max(1, num(body.n));
    return {
      object: 'chat.completion',
      choices: Array.from({ length: n }, (_, index) => ({
        index,
        message: { role: 'assistant', content: '' },
        finish_reason: 'stop',
      })),
    };
  },

  tokenEstimate(body) {
    const n = Math.max(1, num(body.n));
    const output = num(body.max_completion_tokens) || num(body.max_tokens) || 1024;
    return { input: inputTokenBound(body.messages), output: output * n };
  },
};
