/**
 * A loopback stand-in for the providers' batch engines, one wire format per server:
 *
 *   openai     POST /v1/files (multipart, purpose=batch) · POST /v1/batches · GET /v1/batches/{id}
 *              · GET /v1/files/{id}/content
 *   anthropic  POST /v1/messages/batches · GET /v1/messages/batches/{id} · GET …/{id}/results
 *   gemini     POST /v1beta/models/{model}:batchGenerateContent · GET /v1beta/batches/{id}
 *
 * Each request line is answered by the same sensible judge the interactive fake uses
 * (judge-oracle.ts), in the provider's result shape. Tests choose what goes wrong: single lines
 * that error or come back unreadable, or a whole job that expires or is cancelled part way. The
 * interactive endpoints answer too and are counted, so a test can prove a later interactive run
 * made no call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oracleHandler } from './judge-oracle.ts';
import type { Json, RecordedRequest, Wire } from './fake-llm.ts';

export type LineFault = 'error' | 'malformed';
export type JobEnd = 'completed' | 'expired' | 'cancelled';

export interface FakeBatchOptions {
  wire: Wire;
  port?: number;
  /** Polls a job answers "in progress" before it ends (default 1). */
  pollsBeforeEnd?: number;
  /** How the n-th job (0-based) ends: by default every job completes. */
  jobEnd?: (jobIndex: number) => JobEnd;
  /** A fault for one line of a job, by its place in the job and its request body. */
  lineFault?: (index: number, body: Json) => LineFault | undefined;
  /**
   * Let go of a job's uploaded file and bodies once its answers are downloaded (OpenAI's wire),
   * so a bench can send 10⁵ rows through one server; tests that read `bodies` leave it off.
   */
  forgetDownloaded?: boolean;
}

export interface FakeJob {
  id: string;
  customIds: string[];
  bodies: Json[];
  polls: number;
  end: JobEnd;
}

export interface FakeBatch {
  url: string;
  jobs: FakeJob[];
  /** Every request, `METHOD /path`. */
  requests: string[];
  /** Calls to the interactive chat endpoint. */
  interactiveCalls: number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The JSONL file inside a multipart/form-data upload (the one part with a filename). */
function uploadedFile(raw: Buffer, contentType: string): { purpose?: string; text: string } {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/u.exec(contentType);
  const marker = `--${boundary?.[1] ?? boundary?.[2] ?? ''}`;
  let purpose: string | undefined;
  let text = '';
  for (const part of raw.toString('utf8').split(marker)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const content = part.slice(split + 4).replace(/\r\n$/u, '');
    if (/name="purpose"/u.test(head)) purpose = content.trim();
    if (/filename=/u.test(head)) text = content;
  }
  return { purpose, text };
}

const ANSWER = oracleHandler(4);

async function answerFor(wire: Wire, body: Json): Promise<Json> {
  const req: RecordedRequest = {
    method: 'POST',
    path: '',
    query: '',
    wire,
    headers: {},
    authorized: true,
    body,
    model: body?.model,
  };
  return (await ANSWER(req)).body;
}

export async function startFakeBatch(options: FakeBatchOptions): Promise<FakeBatch> {
  const { wire } = options;
  const pollsBeforeEnd = options.pollsBeforeEnd ?? 1;
  const jobs: FakeJob[] = [];
  const files = new Map<string, string>();
  const state = { interactiveCalls: 0, files: 0 };
  const requests: string[] = [];
  let base = '';

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'application/jsonl' : 'application/json',
      'access-control-allow-origin': '*',
    });
    res.end(text);
  };

  const newJob = (customIds: string[], bodies: Json[]): FakeJob => {
    const job: FakeJob = {
      id: `${wire === 'anthropic' ? 'msgbatch_' : 'batch_'}${jobs.length + 1}`,
      customIds,
      bodies,
      polls: 0,
      end: options.jobEnd?.(jobs.length) ?? 'completed',
    };
    jobs.push(job);
    return job;
  };
  const ended = (job: FakeJob) => job.polls > pollsBeforeEnd;
  /** Lines a job that expires or is cancelled still got to: the first half. */
  const reached = (job: FakeJob, i: number) =>
    job.end === 'completed' || i < Math.floor(job.customIds.length / 2);

  const openaiContent = async (job: FakeJob, kind: 'output' | 'errors') => {
    const out: string[] = [];
    for (const [i, id] of job.customIds.entries()) {
      const fault = options.lineFault?.(i, job.bodies[i]);
      if (!reached(job, i)) {
        if (kind === 'errors' && job.end === 'expired') {
          out.push(
            JSON.stringify({
              id: `req_${i}`,
              custom_id: id,
              response: null,
              error: {
                code: 'batch_expired',
                message: 'This request could not be executed before the completion window expired.',
              },
            }),
          );
        }
        continue;
      }
      if (fault === 'error' && kind === 'errors') {
        out.push(
          JSON.stringify({
            id: `req_${i}`,
            custom_id: id,
            response: {
              status_code: 400,
              request_id: `r${i}`,
              body: {
                error: {
                  message: 'Invalid value for max_tokens.',
                  type: 'invalid_request_error',
                  code: null,
                },
              },
            },
            error: null,
          }),
        );
      } else if (fault === 'malformed' && kind === 'output') {
        out.push(
          JSON.stringify({
            id: `req_${i}`,
            custom_id: id,
            response: { status_code: 200, body: 'garbage' },
          }),
        );
      } else if (!fault && kind === 'output') {
        out.push(
          JSON.stringify({
            id: `req_${i}`,
            custom_id: id,
            response: {
              status_code: 200,
              request_id: `r${i}`,
              body: await answerFor(wire, job.bodies[i]),
            },
            error: null,
          }),
        );
      }
    }
    return out.length ? out.join('\n') + '\n' : '';
  };

  const anthropicResults = async (job: FakeJob) => {
    const out: string[] = [];
    for (const [i, id] of job.customIds.entries()) {
      const fault = options.lineFault?.(i, job.bodies[i]);
      let result: Json;
      if (!reached(job, i)) result = { type: job.end === 'expired' ? 'expired' : 'canceled' };
      else if (fault === 'error')
        result = {
          type: 'errored',
          error: {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'max_tokens: too large' },
          },
        };
      else if (fault === 'malformed')
        result = { type: 'succeeded', message: { content: 'garbage' } };
      else result = { type: 'succeeded', message: await answerFor(wire, job.bodies[i]) };
      out.push(JSON.stringify({ custom_id: id, result }));
    }
    return out.join('\n') + '\n';
  };

  const openaiBatch = (job: FakeJob) => {
    const done = ended(job);
    const status = !done
      ? job.polls === 0
        ? 'validating'
        : 'in_progress'
      : job.end === 'completed'
        ? 'completed'
        : job.end;
    return {
      id: job.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      status,
      request_counts: {
        total: job.customIds.length,
        completed: done ? job.customIds.length : 0,
        failed: 0,
      },
      output_file_id: done ? `file-out-${job.id}` : null,
      error_file_id: done ? `file-err-${job.id}` : null,
    };
  };

  const anthropicBatch = (job: FakeJob) => {
    const done = ended(job);
    return {
      id: job.id,
      type: 'message_batch',
      processing_status: done
        ? 'ended'
        : job.end === 'cancelled' && job.polls > 0
          ? 'canceling'
          : 'in_progress',
      request_counts: {
        processing: done ? 0 : job.customIds.length,
        succeeded: done ? job.customIds.length : 0,
        errored: 0,
        canceled: 0,
        expired: 0,
      },
      results_url: done ? `${base}/v1/messages/batches/${job.id}/results` : null,
    };
  };

  const geminiOperation = async (job: FakeJob) => {
    const done = ended(job);
    const state = !done
      ? job.polls === 0
        ? 'BATCH_STATE_PENDING'
        : 'BATCH_STATE_RUNNING'
      : {
          completed: 'BATCH_STATE_SUCCEEDED',
          expired: 'BATCH_STATE_EXPIRED',
          cancelled: 'BATCH_STATE_CANCELLED',
        }[job.end];
    const metadata: Json = {
      '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
      name: `batches/${job.id}`,
      state,
      batchStats: { requestCount: String(job.customIds.length) },
    };
    const op: Json = { name: `batches/${job.id}`, metadata, done };
    if (done && job.end === 'completed') {
      const inlined: Json[] = [];
      for (const [i, id] of job.customIds.entries()) {
        const fault = options.lineFault?.(i, job.bodies[i]);
        // Like the real service, some answers come back without their metadata (matched by order).
        const meta = i % 2 === 0 ? { metadata: { key: id } } : {};
        if (fault === 'error')
          inlined.push({
            error: {
              code: 400,
              message: 'Request contains an invalid argument.',
              status: 'INVALID_ARGUMENT',
            },
            ...meta,
          });
        else if (fault === 'malformed') inlined.push({ response: 'garbage', ...meta });
        else inlined.push({ response: await answerFor(wire, job.bodies[i]), ...meta });
      }
      op.response = {
        '@type':
          'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput',
        inlinedResponses: { inlinedResponses: inlined },
      };
    }
    return op;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    const method = req.method ?? 'GET';
    requests.push(`${method} ${path}`);
    if (method === 'OPTIONS') {
      // A page's preflight: OpenAI's and Gemini's fakes let a page's origin in; Anthropic's batch
      // endpoints answer without CORS headers, as the real ones do, so a page cannot use them.
      res.writeHead(
        204,
        wire === 'anthropic'
          ? {}
          : {
              'access-control-allow-origin': '*',
              'access-control-allow-methods': 'GET, POST, OPTIONS',
              'access-control-allow-headers': 'authorization, content-type, x-goog-api-key',
              'access-control-max-age': '600',
            },
      );
      res.end();
      return;
    }
    const raw = await readBody(req);
    const authorized =
      wire === 'openai'
        ? /^Bearer \S+/u.test(req.headers.authorization ?? '')
        : wire === 'anthropic'
          ? !!req.headers['x-api-key'] && !!req.headers['anthropic-version']
          : !!req.headers['x-goog-api-key'];
    if (!authorized)
      return send(res, 401, {
        error: { message: 'missing credentials', type: 'authentication_error' },
      });
    const json = () => JSON.parse(raw.toString('utf8')) as Json;

    // Interactive endpoints: answered, and counted.
    if (
      path === '/v1/chat/completions' ||
      path === '/v1/messages' ||
      /:generateContent$/u.test(path)
    ) {
      state.interactiveCalls++;
      return send(res, 200, await answerFor(wire, json()));
    }

    if (wire === 'openai') {
      if (method === 'POST' && path === '/v1/files') {
        const { purpose, text } = uploadedFile(raw, req.headers['content-type'] ?? '');
        if (purpose !== 'batch')
          return send(res, 400, { error: { message: 'purpose must be batch' } });
        const id = `file-in-${++state.files}`;
        files.set(id, text);
        return send(res, 200, { id, object: 'file', purpose: 'batch', bytes: text.length });
      }
      if (method === 'POST' && path === '/v1/batches') {
        const body = json();
        const text = files.get(body.input_file_id);
        if (
          text === undefined ||
          body.endpoint !== '/v1/chat/completions' ||
          body.completion_window !== '24h'
        )
          return send(res, 400, {
            error: { message: 'bad batch request', type: 'invalid_request_error' },
          });
        const lines = text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Json);
        if (
          lines.some((l) => l.method !== 'POST' || l.url !== '/v1/chat/completions' || !l.custom_id)
        )
          return send(res, 400, { error: { message: 'bad line', type: 'invalid_request_error' } });
        const job = newJob(
          lines.map((l) => l.custom_id),
          lines.map((l) => l.body),
        );
        if (options.forgetDownloaded) files.delete(body.input_file_id);
        return send(res, 200, openaiBatch(job));
      }
      const batch = /^\/v1\/batches\/([^/]+)$/u.exec(path);
      if (method === 'GET' && batch) {
        const job = jobs.find((j) => j.id === batch[1]);
        if (!job) return send(res, 404, { error: { message: 'No batch found' } });
        job.polls++;
        return send(res, 200, openaiBatch(job));
      }
      const content = /^\/v1\/files\/file-(out|err)-([^/]+)\/content$/u.exec(path);
      if (method === 'GET' && content) {
        const job = jobs.find((j) => j.id === content[2]);
        if (!job) return send(res, 404, { error: { message: 'No file' } });
        const text = await openaiContent(job, content[1] === 'out' ? 'output' : 'errors');
        if (options.forgetDownloaded && content[1] === 'out') job.bodies = [];
        return send(res, 200, text);
      }
    }

    if (wire === 'anthropic') {
      if (method === 'POST' && path === '/v1/messages/batches') {
        const body = json();
        const list = body.requests as Json[];
        if (
          !Array.isArray(list) ||
          list.some((r) => !/^[a-zA-Z0-9_-]{1,64}$/u.test(r.custom_id) || !r.params?.max_tokens)
        )
          return send(res, 400, {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'requests: invalid' },
          });
        const job = newJob(
          list.map((r) => r.custom_id),
          list.map((r) => r.params),
        );
        return send(res, 200, anthropicBatch(job));
      }
      const results = /^\/v1\/messages\/batches\/([^/]+)\/results$/u.exec(path);
      if (method === 'GET' && results) {
        const job = jobs.find((j) => j.id === results[1]);
        if (!job || !ended(job))
          return send(res, 404, {
            type: 'error',
            error: { type: 'not_found_error', message: 'no results' },
          });
        return send(res, 200, await anthropicResults(job));
      }
      const batch = /^\/v1\/messages\/batches\/([^/]+)$/u.exec(path);
      if (method === 'GET' && batch) {
        const job = jobs.find((j) => j.id === batch[1]);
        if (!job)
          return send(res, 404, {
            type: 'error',
            error: { type: 'not_found_error', message: 'no batch' },
          });
        job.polls++;
        return send(res, 200, anthropicBatch(job));
      }
    }

    if (wire === 'gemini') {
      if (method === 'POST' && /^\/v1beta\/models\/[^/]+:batchGenerateContent$/u.exec(path)) {
        const list = json()?.batch?.input_config?.requests?.requests as Json[] | undefined;
        if (!Array.isArray(list) || list.some((r) => !Array.isArray(r.request?.contents)))
          return send(res, 400, {
            error: { code: 400, message: 'invalid batch', status: 'INVALID_ARGUMENT' },
          });
        const job = newJob(
          list.map((r) => r.metadata?.key as string),
          list.map((r) => r.request),
        );
        return send(res, 200, await geminiOperation(job));
      }
      const batch = /^\/v1beta\/batches\/([^/]+)$/u.exec(path);
      if (method === 'GET' && batch) {
        const job = jobs.find((j) => j.id === batch[1]);
        if (!job)
          return send(res, 404, {
            error: { code: 404, message: 'not found', status: 'NOT_FOUND' },
          });
        job.polls++;
        return send(res, 200, await geminiOperation(job));
      }
    }
    send(res, 404, { error: { message: `fake-batch: no route ${method} ${path}` } });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, { error: { message: String(e) } }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    jobs,
    requests,
    get interactiveCalls() {
      return state.interactiveCalls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
