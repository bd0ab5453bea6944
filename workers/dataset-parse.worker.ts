/// <reference lib="webworker" />
/**
 * Reads an imported data set off the main thread (methods: src/lib/workers/parse-api.ts): the File
 * as a stream (`file.stream()`, decoded across chunk boundaries as its first bytes say: UTF-8 or
 * UTF-16; a binary file fails at the first chunk), fed through src/lib/datasets/parse/parser.ts.
 * `import` writes the rows to IndexedDB here, under the import's Web Lock (start-up cleaning
 * leaves a held one alone), and posts progress, bad rows and the summary only. Memory holds one
 * chunk, one write batch and the current record, so a 50 MB file loads without freezing the page.
 * A `detect` job stops once the first records are recognised and answers with them as a sample.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { DatasetParser } from '../src/lib/datasets/parse/parser.ts';
import {
  DatasetParseError,
  type ParseBatch,
  type ParseSummary,
} from '../src/lib/datasets/parse/types.ts';
import type { DatasetDescription, DatasetRow, RowProblem } from '../src/lib/rows/formats.ts';
import { buildSample } from '../src/lib/datasets/mapping/sample.ts';
import { exclusively } from '../src/lib/datasets/lanes.ts';
import {
  importLockName,
  listDatasets,
  saveDataset,
  summarizeProblems,
} from '../src/lib/storage/datasets.ts';
import { uniqueName } from '../src/lib/datasets/names.ts';
import { parseApi, PROGRESS_EVERY_BYTES } from '../src/lib/workers/parse-api.ts';
import { serve, type RpcScope } from '../src/lib/workers/rpc.ts';

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function nameOf(file: Blob, fileName: string | undefined): string | undefined {
  return fileName ?? (file instanceof File ? file.name : undefined);
}

function noRowsMessage(fileName: string, problems: readonly RowProblem[]): string {
  return `No row of ${fileName} could be read${problems[0] ? `: ${problems[0].reason}` : '.'}`;
}

export function serveDatasetParse(scope: RpcScope): void {
  serve(
    parseApi,
    {
      async import(request, { signal, progress }) {
        const { file } = request;
        const fileName = nameOf(file, request.fileName) ?? 'the file';
        const parser = new DatasetParser({
          totalBytes: file.size,
          fileName,
          ...(request.format ? { format: request.format } : {}),
          ...(request.kind ? { kind: request.kind } : {}),
          ...(request.mapping ? { mapping: request.mapping } : {}),
          ...(request.maxRowChars ? { maxRowChars: request.maxRowChars } : {}),
        });
        const problems: RowProblem[] = [];
        let summary: ParseSummary | undefined;
        const deliver = (batch: ParseBatch): DatasetRow[] => {
          if (batch.detected) progress({ type: 'detected', detected: batch.detected });
          if (batch.problems.length > 0) {
            problems.push(...batch.problems);
            progress({ type: 'problems', problems: batch.problems });
          }
          return batch.rows;
        };
        async function* rows(): AsyncGenerator<DatasetRow> {
          const reader = file.stream().getReader();
          let lastProgress = 0;
          try {
            for (;;) {
              signal.throwIfAborted();
              const { done, value } = await reader.read();
              if (done) break;
              const batch = parser.push(value);
              yield* deliver(batch);
              if (batch.bytes - lastProgress >= PROGRESS_EVERY_BYTES) {
                lastProgress = batch.bytes;
                progress({ type: 'bytes', bytes: batch.bytes, total: file.size });
              }
              await nextTask(); // let a cancel in
            }
            const last = parser.end();
            yield* deliver(last);
            summary = last.summary;
            progress({ type: 'bytes', bytes: last.bytes, total: file.size });
          } finally {
            void reader.cancel().catch(() => undefined);
          }
        }
        const id = crypto.randomUUID();
        const name =
          request.name ??
          uniqueName(
            fileName.replace(/\.(jsonl|json|csv)$/iu, ''),
            (await listDatasets()).map((d) => d.name),
          );
        const fallbackKind = request.mapping?.kind ?? request.kind ?? 'case';
        const dataset = await exclusively(
          importLockName(id),
          'This import is already running.',
          () =>
            saveDataset(
              {
                id,
                name,
                createdAt: Date.now(),
                // Known once the file is read (see `complete`).
                kind: fallbackKind,
                format: request.format ?? 'jsonl',
                mapping: request.mapping ?? { kind: fallbackKind },
                ...(request.task ? { task: request.task } : {}),
                problems: summarizeProblems([]),
                fileName,
                bytes: file.size,
              },
              rows(),
              {
                ...(request.batchSize ? { batchSize: request.batchSize } : {}),
                onProgress: (saved) => progress({ type: 'stored', rows: saved }),
                complete: (saved) => {
                  if (saved === 0 || !summary) throw new Error(noRowsMessage(fileName, problems));
                  const mapping = request.mapping ?? summary.detected.mapping;
                  return {
                    kind: mapping.kind,
                    format: summary.format,
                    mapping,
                    problems: summarizeProblems(problems),
                  };
                },
              },
            ),
        );
        const read = summary ?? parser.end().summary;
        return {
          datasetId: dataset.id,
          detected: read.detected,
          rows: read.rows,
          problems: read.problems,
          bytes: read.bytes,
          ...(read.encoding ? { encoding: read.encoding } : {}),
          warnings: read.warnings,
        };
      },

      /**
       * Reads until detection has its records (or the file ends) and answers with them as a
       * sample. A mapping that cannot work is no error here: the sample is how the user fixes it.
       */
      async detect(request, { signal, progress }) {
        const { file } = request;
        const fileName = nameOf(file, request.fileName);
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
          for (;;) {
            signal.throwIfAborted();
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
            progress({ type: 'bytes', bytes: batch.bytes, total: file.size });
            // A file read whole in this chunk goes on to the end, for its full row count.
            if (batch.detected && batch.bytes < file.size) {
              detected = batch.detected;
              break;
            }
            await nextTask(); // let a cancel in
          }
        } catch (error) {
          if (!(error instanceof DatasetParseError && error.detected)) throw error;
          detected = error.detected;
        } finally {
          if (!complete) void reader.cancel().catch(() => undefined);
        }
        return {
          detected,
          sample: buildSample(parser.sampled, detected.columns, {
            ...(complete ? { fileRecords: parser.recordsRead } : {}),
            problems,
          }),
        };
      },
    },
    scope,
  );
}

// In a worker (not when a test imports this file), serve the page.
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  serveDatasetParse(self);
}
