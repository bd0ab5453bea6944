/**
 * One model: plans its files (required, optional, the weights of each dtype with their external
 * data), downloads them, explains each failure in words, and writes the manifest `--verify` reads.
 */
import { messageOf } from '../../errors.ts';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import {
  DEFAULT_DTYPES,
  DEFAULT_ENDPOINT,
  DEFAULT_REVISION,
  DTYPE_WEIGHTS,
  MANIFEST_NAME,
  OPTIONAL_FILES,
  REQUIRED_FILES,
  UsageError,
  formatBytes,
  formatSeconds,
  modelIdProblem,
  normaliseEndpoint,
  parseDtypes,
  repoFileProblem,
} from './options.ts';
import type { FetchManifest, FetchOptions, ModelResult, Reporter } from './types.ts';
import { DownloadError, download, type RequestContext } from './download.ts';

type FileRole = 'required' | 'optional' | 'weight' | 'external data' | 'maybe external data';

interface PlannedFile {
  path: string;
  role: FileRole;
  dtype?: string;
}

/**
 * How many external-data chunks transformers.js will load for a weight file, from
 * `transformers.js_config.use_external_data_format` (same rules as its resolveExternalDataFormat):
 * undefined when the config does not say, in which case `<file>_data` is tried anyway.
 */
export function externalDataChunks(config: unknown, weightPath: string): number | undefined {
  const jsConfig = (config as Record<string, unknown> | null)?.['transformers.js_config'];
  const setting = (jsConfig as Record<string, unknown> | undefined)?.use_external_data_format;
  if (setting === undefined || setting === null) return undefined;
  if (typeof setting === 'object') {
    const fullName = weightPath.slice(weightPath.lastIndexOf('/') + 1);
    const baseName = fullName.replace(/(_[a-z0-9]+)?\.onnx$/, '');
    const map = setting as Record<string, unknown>;
    const value = map[fullName] ?? map[baseName];
    return value === undefined ? 0 : Number(value) || 0;
  }
  return Number(setting) || 0;
}

export function externalDataNames(weightPath: string, chunks: number): string[] {
  return Array.from({ length: chunks }, (_, i) => `${weightPath}_data${i === 0 ? '' : `_${i}`}`);
}

function explain(
  error: unknown,
  planned: PlannedFile,
  modelId: string,
  revision: string,
  ctx: RequestContext,
): string {
  const prefix = `${modelId}: ${planned.path}`;
  if (!(error instanceof DownloadError)) {
    return `${prefix}: ${messageOf(error)}`;
  }
  if (error.kind !== 'http') return `${prefix}: ${error.message}`;
  const status = error.status ?? 0;
  const hub = error.hubMessage ? ` (hub: ${error.hubMessage})` : '';
  const at = `HTTP ${status} for ${error.url}`;
  const tokenHint = ctx.token
    ? 'the HF_TOKEN given was refused or cannot read this model'
    : 'set HF_TOKEN to a token of an account that can read it';
  switch (true) {
    case status === 401:
      return `${prefix}: ${at}: unauthorised: the model is private or gated, or does not exist (the hub answers 401 for unknown models too); ${tokenHint}${hub}`;
    case status === 403:
      return `${prefix}: ${at}: forbidden: the model is gated or private; accept its conditions on ${ctx.endpoint.origin}/${modelId} and ${ctx.token ? 'check the HF_TOKEN given' : 'set HF_TOKEN'}${hub}`;
    case status === 404 && error.errorCode === 'RevisionNotFound':
      return `${prefix}: ${at}: revision ${JSON.stringify(revision)} not found${hub}`;
    case status === 404 && error.errorCode === 'RepoNotFound':
      return `${prefix}: ${at}: model not found: check the id${hub}`;
    case status === 404 && planned.role === 'weight':
      return `${prefix}: ${at}: the repository has no ${planned.dtype} weights (${planned.path}); pick another --dtype${hub}`;
    case status === 404:
      return `${prefix}: ${at}: not found (unknown model, or the repository lacks this file)${hub}`;
    case status === 429:
      return `${prefix}: ${at}: rate limited; try again later${ctx.token ? '' : ' or set HF_TOKEN'}${hub}`;
    case status >= 500:
      return `${prefix}: ${at}: server error; try again later${hub}`;
    default:
      return `${prefix}: ${at}${hub}`;
  }
}

/** The folder a model goes to; the id must be valid. */
export function modelDir(outDir: string, modelId: string): string {
  const dir = resolve(outDir, ...modelId.split('/'));
  if (!dir.startsWith(resolve(outDir) + sep)) throw new UsageError(`${modelId} escapes ${outDir}`);
  return dir;
}

/**
 * Fetches one model. Throws UsageError for bad arguments; hub and network failures are reported in
 * the result (`ok: false`, one message per failed file) so a caller can go on with other models.
 */
export async function fetchModel(modelId: string, options: FetchOptions): Promise<ModelResult> {
  const idProblem = modelIdProblem(modelId);
  if (idProblem) throw new UsageError(idProblem);
  const revision = options.revision ?? DEFAULT_REVISION;
  if (!revision || revision === '.' || revision.includes('..')) {
    throw new UsageError(`invalid revision ${JSON.stringify(revision)}`);
  }
  const dtypes = parseDtypes(options.dtypes ?? DEFAULT_DTYPES);
  for (const file of options.extraFiles ?? []) {
    const problem = repoFileProblem(file);
    if (problem) throw new UsageError(problem);
  }
  const endpoint = normaliseEndpoint(options.endpoint ?? DEFAULT_ENDPOINT);
  const token = options.token || undefined;
  const ctx: RequestContext = { endpoint, token, idleTimeoutMs: options.idleTimeoutMs ?? 60_000 };
  const settings = {
    force: options.force ?? false,
    retries: options.retries ?? 2,
    retryDelayMs: options.retryDelayMs ?? 1000,
  };
  // Nothing we print should contain the token, but a hub message could echo it back.
  const redact = (text: string): string => (token ? text.split(token).join('***') : text);
  const outer = options.reporter;
  const reporter: Reporter | undefined = outer && {
    line: (text) => outer.line(redact(text)),
    progress: outer.progress?.bind(outer),
  };

  const dir = modelDir(options.outDir, modelId);
  const base = new URL(
    `${modelId.split('/').map(encodeURIComponent).join('/')}/resolve/${encodeURIComponent(revision)}/`,
    endpoint,
  );
  const result: ModelResult = { modelId, dir, ok: false, files: [], absent: [], errors: [] };
  let commit: string | undefined;

  const queue: PlannedFile[] = [
    ...REQUIRED_FILES.map((path) => ({ path, role: 'required' as const })),
    ...OPTIONAL_FILES.map((path) => ({ path, role: 'optional' as const })),
    ...dtypes.map((dtype) => ({ path: DTYPE_WEIGHTS[dtype], role: 'weight' as const, dtype })),
    ...(options.extraFiles ?? []).map((path) => ({ path, role: 'required' as const })),
  ];
  const seen = new Set<string>();
  let config: unknown;

  reporter?.line(`${modelId} @ ${revision} -> ${relative(process.cwd(), dir) || '.'}`);
  while (queue.length > 0) {
    const planned = queue.shift()!;
    if (seen.has(planned.path)) continue;
    seen.add(planned.path);
    const url = new URL(planned.path.split('/').map(encodeURIComponent).join('/'), base);
    const dest = resolve(dir, ...planned.path.split('/'));
    const started = Date.now();
    try {
      const fetched = await download(ctx, url, dest, planned.path, settings, reporter);
      commit ??= fetched.commit;
      result.files.push({
        path: planned.path,
        outcome: fetched.outcome,
        size: fetched.size,
        sha256: fetched.sha256,
      });
      const size =
        fetched.outcome === 'downloaded'
          ? `${formatBytes(fetched.size)}/${formatBytes(fetched.size)} in ${formatSeconds(Date.now() - started)}`
          : formatBytes(fetched.size);
      reporter?.line(`  ${fetched.outcome.padEnd(10)}  ${planned.path}  ${size}`);
    } catch (error) {
      const notFound =
        error instanceof DownloadError && error.kind === 'http' && error.status === 404;
      if (notFound && planned.role === 'maybe external data') {
        result.absent.push(planned.path);
        continue;
      }
      if (notFound && planned.role === 'optional') {
        result.absent.push(planned.path);
        reporter?.line(`  absent      ${planned.path} (optional; the repository has none)`);
        continue;
      }
      const message = redact(explain(error, planned, modelId, revision, ctx));
      result.errors.push(message);
      reporter?.line(`  FAILED      ${message}`);
      // Without config.json the model is unusable, and the other files would fail the same way.
      if (planned.path === 'config.json') break;
      continue;
    }

    if (planned.path === 'config.json') {
      try {
        config = JSON.parse(readFileSync(dest, 'utf8'));
      } catch {
        result.errors.push(`${modelId}: config.json is not valid JSON`);
        break;
      }
    }
    if (planned.role === 'weight') {
      const chunks = externalDataChunks(config, planned.path);
      const names = externalDataNames(planned.path, chunks ?? 1);
      // Right after its weight file, so that a model is fetched file by file in a stable order.
      queue.unshift(
        ...names.map((path) => ({
          path,
          role:
            chunks === undefined ? ('maybe external data' as const) : ('external data' as const),
          dtype: planned.dtype,
        })),
      );
    }
  }

  if (result.errors.length === 0) {
    const manifest: FetchManifest = {
      schema: 1,
      modelId,
      revision,
      ...(commit ? { commit } : {}),
      endpointHost: endpoint.host,
      fetchedAt: new Date().toISOString(),
      dtypes,
      files: result.files.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
      absent: result.absent,
    };
    await mkdir(dir, { recursive: true });
    await writeFile(resolve(dir, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
    result.manifest = manifest;
    result.ok = true;
  }
  return result;
}
