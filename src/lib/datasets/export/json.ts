/**
 * The JSON run export: everything a run is, re-importable elsewhere. Never an API key: none is
 * stored with a run, and the export also drops credential-named fields and redacts the keys in use
 * and well-formed key shapes (src/lib/llm/redact.ts).
 */
import { messageOf } from '../../errors.ts';
import { englishRef, ref } from '../../i18n/message.ts';
import { SaidError } from '../../i18n/said-error.ts';
import { zodIssueRef } from '../../i18n/zod-issue.ts';
import { z } from 'zod';
import { METRIC_IDS } from '../../metrics/registry.ts';
import { AUTH_HEADERS, redactValue } from '../../llm/redact.ts';
import { listDatasets, saveDataset } from '../../storage/datasets.ts';
import { restoreRun } from '../../storage/runs.ts';
import type { StoredDataset, StoredRun, StoredRunResult } from '../../storage/schema.ts';
import { RUN_STATUSES } from '../../storage/schema.ts';
import { DATASET_KINDS, type DatasetRow } from '../../rows/formats.ts';
import type { RunData } from '../run-data.ts';
import { nextRunName, uniqueName } from '../names.ts';

export const RUN_EXPORT_FORMAT = 'sumlens-run';
export const RUN_EXPORT_VERSION = 1;

/** Everything a run is: enough to rebuild its data set, its record and its results elsewhere. */
export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  version: typeof RUN_EXPORT_VERSION;
  exportedAt: string;
  appVersion: string;
  dataset: StoredDataset;
  rows: DatasetRow[];
  run: StoredRun;
  results: StoredRunResult[];
}

const CREDENTIAL_FIELD = new RegExp(
  `^(?:api[-_]?key|apikey|secret|password|access[-_]?token|${AUTH_HEADERS.join('|')})$`,
  'iu',
);

/** A deep copy without credential-named fields, key-shaped strings redacted. */
function scrub<T>(value: T, secrets: readonly string[]): T {
  const drop = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(drop);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) {
        if (!CREDENTIAL_FIELD.test(k)) out[k] = drop(inner);
      }
      return out;
    }
    return v;
  };
  return redactValue(drop(value), secrets) as T;
}

export interface JsonExportOptions {
  appVersion?: string;
  /**
   * Literal secrets to redact wherever they appear: the keys the page holds (`KeyStore.held()`).
   * Besides these, only well-formed key shapes are redacted (src/lib/llm/redact.ts), so claims and
   * quotes that mention "sk-learn" or "bearer bonds" export as written.
   */
  secrets?: readonly string[];
  now?: Date;
}

/** The export object; rows are the user's data and are kept as they are. */
export function runExport(data: RunData, options: JsonExportOptions = {}): RunExport {
  const secrets = options.secrets ?? [];
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    exportedAt: (options.now ?? new Date()).toISOString(),
    appVersion: options.appVersion ?? data.run.appVersion,
    dataset: scrub(data.dataset, secrets),
    rows: data.rows,
    run: scrub(data.run, secrets),
    results: scrub(data.results, secrets),
  };
}

export function runToJson(data: RunData, options: JsonExportOptions = {}): string {
  return JSON.stringify(runExport(data, options));
}

const metricResultSchema = z.looseObject({
  id: z.enum(METRIC_IDS),
  status: z.enum(['ok', 'n/a', 'error']),
  score: z.number().nullable(),
  explanation: z.string(),
  backend: z.string(),
  details: z.unknown(),
});

const rowSchema = z.looseObject({
  row: z.number().int(),
  kind: z.enum(DATASET_KINDS),
  input: z.looseObject({}),
  human: z.record(z.string(), z.number()),
  group: z.string().optional(),
});

const runResultSchema = z.looseObject({
  row: z.number().int(),
  status: z.enum(['done', 'failed']),
  results: z.array(metricResultSchema),
  finishedAt: z.number(),
  elapsedMs: z.number(),
});

export const runExportSchema = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(RUN_EXPORT_VERSION),
  exportedAt: z.string(),
  appVersion: z.string(),
  dataset: z.looseObject({
    id: z.string().min(1),
    name: z.string(),
    createdAt: z.number(),
    kind: z.enum(DATASET_KINDS),
    mapping: z.looseObject({}),
    rowCount: z.number().int().min(0),
    humanColumns: z.array(z.string()),
    problems: z.looseObject({ count: z.number().int().min(0), examples: z.array(z.unknown()) }),
  }),
  rows: z.array(rowSchema),
  run: z.looseObject({
    id: z.string().min(1),
    datasetId: z.string().min(1),
    datasetName: z.string(),
    name: z.string().optional(),
    createdAt: z.number(),
    updatedAt: z.number(),
    metrics: z.array(z.enum(METRIC_IDS)),
    settings: z.looseObject({ metrics: z.looseObject({}) }),
    backends: z.looseObject({ perMetric: z.record(z.string(), z.array(z.string())) }),
    status: z.enum(RUN_STATUSES),
    counts: z.object({
      total: z.number().int().min(0),
      done: z.number().int().min(0),
      failed: z.number().int().min(0),
    }),
    appVersion: z.string(),
  }),
  results: z.array(runResultSchema),
});

/** Parses and checks an export file; throws with the first problem in words. */
export function parseRunExport(text: string): RunExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SaidError(ref('exports.import.notJson', { error: messageOf(error) }), {
      cause: error,
    });
  }
  if ((json as { format?: unknown } | null)?.format !== RUN_EXPORT_FORMAT) {
    throw new SaidError(ref('exports.import.notRunExport', { format: RUN_EXPORT_FORMAT }));
  }
  const parsed = runExportSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new SaidError(
      ref('exports.import.invalid', {
        path: path === '' ? ref('exports.import.theFile') : path,
        issue: issue ? zodIssueRef(issue) : ref('common.issue.invalid'),
      }),
    );
  }
  const data = parsed.data as unknown as RunExport;
  const rowNumbers = new Set(data.rows.map((r) => r.row));
  const orphan = data.results.find((r) => !rowNumbers.has(r.row));
  if (orphan) throw new SaidError(ref('exports.import.orphan', { row: orphan.row }));
  return data;
}

export interface ImportOptions {
  /** New ids for the data set and the run (default), or the exported ones (which must be free). */
  keepIds?: boolean;
  newId?: () => string;
}

/**
 * An exported run that was running comes in paused, saying so: the page resumes "running" runs
 * on load, and a file must never spend the user's key without a click on Resume. (A paused run
 * keeps its own reason.)
 */
function importedStatus(
  run: StoredRun,
): Partial<Pick<StoredRun, 'status' | 'message' | 'messageRef'>> {
  if (run.status !== 'running') return {};
  const messageRef = ref('runs.import.paused');
  return { status: 'paused', message: englishRef(messageRef), messageRef };
}

/** Stores an export as a new data set with its run and results; returns the stored records. */
export async function importRunExport(
  data: RunExport,
  options: ImportOptions = {},
): Promise<{ dataset: StoredDataset; run: StoredRun }> {
  const newId = options.newId ?? (() => crypto.randomUUID());
  const datasetId = options.keepIds ? data.dataset.id : newId();
  const runId = options.keepIds ? data.run.id : newId();
  const { rowCount: _rowCount, ...meta } = data.dataset;
  // Imported again, the data set and its run get names of their own ("dev (2)").
  const name = uniqueName(
    meta.name,
    (await listDatasets()).map((d) => d.name),
  );
  const dataset = await saveDataset({ ...meta, id: datasetId, name }, data.rows);
  const run = await restoreRun(
    {
      ...data.run,
      id: runId,
      datasetId,
      datasetName: name,
      name: name === meta.name && data.run.name ? data.run.name : nextRunName(name, []),
      ...importedStatus(data.run),
    },
    data.results.map((r) => ({ ...r, runId })),
  );
  return { dataset, run };
}
