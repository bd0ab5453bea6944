/// <reference lib="webworker" />
/**
 * Parses an imported data set off the main thread: reads the File as a stream (`file.stream()`,
 * decoded across chunk boundaries as its first bytes say: UTF-8 or UTF-16; a binary file is an
 * `error` at the first chunk), feeds it through src/lib/datasets/parse.ts and posts
 * progress, the detection, rows in batches, bad rows and the end (protocol:
 * src/lib/datasets/parse-protocol.ts). Memory holds one chunk, one row batch and the current
 * record, so a 50 MB file loads without freezing the page. Jobs are cancelled by id. A `detect`
 * job stops once the first records are recognised and sends them as a sample.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import { messageOf } from '../src/lib/errors.ts';
import '../src/lib/zod-config.ts';
import { DatasetParseError, DatasetParser, type ParseBatch } from '../src/lib/datasets/parse.ts';
import type { DatasetDescription, DatasetRow, RowProblem } from '../src/lib/rows/formats.ts';
import { buildSample } from '../src/lib/datasets/mapping.ts';
import {
  DEFAULT_ROW_BATCH,
  parseRequestSchema,
  PROGRESS_EVERY_BYTES,
  type ParseReply,
} from '../src/lib/datasets/parse-protocol.ts';

/** The two calls of a worker's global scope this worker uses (a test passes a fake). */
export interface ParseWorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  postMessage(message: ParseReply): void;
}

type ParseRequestData = ReturnType<typeof parseRequestSchema.parse>;

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function serveDatasetParse(scope: ParseWorkerScope): void {
  const cancelled = new Set<string>();
  const running = new Set<string>();
  const post = (reply: ParseReply) => scope.postMessage(reply);

  scope.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = parseRequestSchema.safeParse(event.data);
    if (!parsed.success) {
      const id = (event.data as { id?: unknown } | null)?.id;
      const issue = parsed.error.issues[0];
      post({
        type: 'error',
        id: typeof id === 'string' ? id : '',
        message:
          `Malformed request to the parse worker: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'unknown'}`.trim(),
      });
      return;
    }
    const request = parsed.data;
    if (request.type === 'cancel') {
      if (running.has(request.id)) cancelled.add(request.id);
      return;
    }
    running.add(request.id);
    const job = request.type === 'detect' ? detect(request) : run(request);
    void job.finally(() => {
      running.delete(request.id);
      cancelled.delete(request.id);
    });
  });

  async function run(request: Extract<ParseRequestData, { type: 'parse' }>): Promise<void> {
    const { id, file } = request;
    const fileName = request.fileName ?? (file as File).name;
    const total = file.size;
    const batchSize = request.batchSize ?? DEFAULT_ROW_BATCH;
    const parser = new DatasetParser({
      totalBytes: total,
      ...(fileName ? { fileName } : {}),
      ...(request.format ? { format: request.format } : {}),
      ...(request.kind ? { kind: request.kind } : {}),
      ...(request.mapping ? { mapping: request.mapping } : {}),
      ...(request.maxRowChars ? { maxRowChars: request.maxRowChars } : {}),
    });
    let rows: DatasetRow[] = [];
    let lastProgress = 0;
    const flushRows = (all: boolean) => {
      while (rows.length >= batchSize || (all && rows.length > 0)) {
        post({ type: 'rows', id, rows: rows.slice(0, batchSize) });
        rows = rows.slice(batchSize);
      }
    };
    const deliver = (batch: ParseBatch) => {
      if (batch.detected) post({ type: 'detected', id, detected: batch.detected });
      for (const r of batch.rows) rows.push(r);
      if (batch.problems.length > 0) post({ type: 'problems', id, problems: batch.problems });
      flushRows(false);
    };
    const reader = file.stream().getReader();
    try {
      for (;;) {
        if (cancelled.has(id)) {
          await reader.cancel();
          post({ type: 'done', id, cancelled: true });
          return;
        }
        const { done, value } = await reader.read();
        if (done) break;
        const batch = parser.push(value);
        deliver(batch);
        if (batch.bytes - lastProgress >= PROGRESS_EVERY_BYTES) {
          lastProgress = batch.bytes;
          post({ type: 'progress', id, bytes: batch.bytes, total });
        }
        await nextTask(); // let a `cancel` message in
      }
      const last = parser.end();
      deliver(last);
      flushRows(true);
      post({ type: 'progress', id, bytes: last.bytes, total });
      post({ type: 'done', id, cancelled: false, summary: last.summary });
    } catch (error) {
      void reader.cancel().catch(() => {});
      post({
        type: 'error',
        id,
        message: messageOf(error),
        ...(error instanceof DatasetParseError && error.detected
          ? { detected: error.detected }
          : {}),
      });
    }
  }

  /**
   * Reads until detection has its records (or the file ends) and sends them as a sample. A mapping
   * that cannot work is no error here: the sample is how the user gets to fix it.
   */
  async function detect(request: Extract<ParseRequestData, { type: 'detect' }>): Promise<void> {
    const { id, file } = request;
    const fileName = request.fileName ?? (file as File).name;
    const parser = new DatasetParser({
      totalBytes: file.size,
      ...(fileName ? { fileName } : {}),
      ...(request.format ? { format: request.format } : {}),
      ...(request.maxRowChars ? { maxRowChars: request.maxRowChars } : {}),
    });
    const problems: RowProblem[] = [];
    let detected: DatasetDescription | undefined;
    let complete = false;
    const reader = file.stream().getReader();
    try {
      try {
        for (;;) {
          if (cancelled.has(id)) {
            await reader.cancel();
            post({ type: 'done', id, cancelled: true });
            return;
          }
          const { done, value } = await reader.read();
          if (done) {
            complete = true;
            const last = parser.end();
            problems.push(...last.problems);
            detected = last.summary.detected;
            break;
          }
          const batch = parser.push(value);
          problems.push(...batch.problems);
          post({ type: 'progress', id, bytes: batch.bytes, total: file.size });
          // A file read whole in this chunk goes on to the end, for its full row count.
          if (batch.detected && batch.bytes < file.size) {
            detected = batch.detected;
            break;
          }
          await nextTask(); // let a `cancel` message in
        }
      } catch (error) {
        if (!(error instanceof DatasetParseError && error.detected)) throw error;
        detected = error.detected;
      }
      if (!complete) void reader.cancel().catch(() => {});
      post({
        type: 'sample',
        id,
        detected,
        sample: buildSample(parser.sampled, detected.columns, {
          ...(complete ? { fileRecords: parser.recordsRead } : {}),
          problems,
        }),
      });
    } catch (error) {
      void reader.cancel().catch(() => {});
      post({ type: 'error', id, message: messageOf(error) });
    }
  }
}

// In a worker (not when a test imports this file), serve the page.
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  serveDatasetParse(self as unknown as ParseWorkerScope);
}
