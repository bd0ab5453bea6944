/**
 * Downloads transformers.js models from the Hugging Face hub (or a mirror) into
 * `public/models/<owner>/<name>/`, so the app can run them with no network: on a machine that has
 * internet, before an offline demo or a deployment to a static host.
 *
 * Per model: config.json, tokenizer.json and tokenizer_config.json (required), the optional JSON
 * files transformers.js reads when present, and the ONNX weights of each dtype asked for, with their
 * external-data files. Files stream into `<file>.part` and are renamed when complete and checked, so
 * an interrupted run never leaves a truncated file under the real name. A file whose local copy
 * already has the size (and, for weights, the SHA-256) the hub announces is not downloaded again.
 * Each model folder gets `.sumlens-fetch.json` (sizes, SHA-256, revision, commit) so a host with no
 * network can check its copy with `--verify`.
 *
 * Usage: see USAGE below, or `npm run models:fetch -- --help`.
 */
import { messageOf } from '../src/lib/errors.ts';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const DEFAULT_ENDPOINT = 'https://huggingface.co';
export const DEFAULT_REVISION = 'main';
export const DEFAULT_DTYPES: readonly string[] = ['fp32', 'q8'];
export const DEFAULT_OUT_DIR = resolve(repoRoot, 'public/models');
export const MANIFEST_NAME = '.sumlens-fetch.json';

/** The weight file transformers.js loads for each dtype (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
export const DTYPE_WEIGHTS: Readonly<Record<string, string>> = {
  fp32: 'onnx/model.onnx',
  fp16: 'onnx/model_fp16.onnx',
  q8: 'onnx/model_quantized.onnx',
  int8: 'onnx/model_int8.onnx',
  uint8: 'onnx/model_uint8.onnx',
  q4: 'onnx/model_q4.onnx',
  q4f16: 'onnx/model_q4f16.onnx',
  bnb4: 'onnx/model_bnb4.onnx',
};

export const REQUIRED_FILES: readonly string[] = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
];

/** Read by transformers.js when present; most text models have only the first. */
export const OPTIONAL_FILES: readonly string[] = [
  'special_tokens_map.json',
  'preprocessor_config.json',
  'generation_config.json',
];

const USER_AGENT = 'sumlens-models-fetch/1';
const MAX_REDIRECTS = 10;

export const USAGE = `Usage: npm run models:fetch -- <owner/name>... [options]

Downloads transformers.js models from the Hugging Face hub into <out>/<owner>/<name>/ so that
SumLens can run them with no network (self-hosted under /models/).

Options:
  --dtype LIST      weights to fetch, comma-separated or repeated (default: ${DEFAULT_DTYPES.join(',')})
                    ${Object.entries(DTYPE_WEIGHTS)
                      .map(([d, f]) => `${d}=${f.slice('onnx/'.length)}`)
                      .join(' ')}
  --out DIR         destination folder (default: public/models)
  --revision REV    branch, tag or commit (default: ${DEFAULT_REVISION})
  --endpoint URL    hub or mirror (default: $HF_ENDPOINT or ${DEFAULT_ENDPOINT})
  --file PATH       also fetch this file of the repository (required; repeatable)
  --force           download again even when the local copy is complete
  --verify          check local copies against their ${MANIFEST_NAME}; no network
  -h, --help        show this help

Environment:
  HF_TOKEN          access token for gated or private models (sent only to the endpoint's host)
  HF_ENDPOINT       hub or mirror URL, overridden by --endpoint

Exit status: 0 when every model is complete, 1 when any failed, 2 on a usage error.

Example:
  npm run models:fetch -- Xenova/all-MiniLM-L6-v2 Xenova/bert-base-NER --dtype q8
`;

// ---------------------------------------------------------------------------------------------
// Validation

/** An error in what was asked (model id, dtype, endpoint…), as opposed to what the hub answered. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const ID_PART = /^[A-Za-z0-9][\w.-]*$/;

/**
 * `owner/name` in the hub's alphabet: the same rule as the app's `isValidModelId`, so that anything
 * the app accepts can be fetched, and nothing fetched can land outside the output folder.
 */
export function modelIdProblem(id: string): string | undefined {
  const parts = id.split('/');
  if (parts.length !== 2 || !parts.every((p) => ID_PART.test(p)) || id.includes('..')) {
    return `invalid model id ${JSON.stringify(id)}: expected owner/name (letters, digits, '.', '_', '-'), e.g. Xenova/all-MiniLM-L6-v2`;
  }
  if (parts.some((p) => p.length > 96)) return `invalid model id ${JSON.stringify(id)}: too long`;
  return undefined;
}

/** A file path inside a repository: relative, no `..`, no backslashes or odd characters. */
export function repoFileProblem(file: string): string | undefined {
  const parts = file.split('/');
  const ok = parts.every((p) => /^[\w.-]+$/.test(p) && p !== '.' && p !== '..');
  return ok
    ? undefined
    : `invalid file path ${JSON.stringify(file)}: expected e.g. onnx/model.onnx`;
}

export function parseDtypes(values: readonly string[]): string[] {
  const dtypes = [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((d) => d.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = dtypes.filter((d) => !(d in DTYPE_WEIGHTS));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown dtype ${unknown.join(', ')}: choose from ${Object.keys(DTYPE_WEIGHTS).join(', ')}`,
    );
  }
  if (dtypes.length === 0) throw new UsageError('--dtype needs at least one dtype');
  return dtypes;
}

export function normaliseEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UsageError(`invalid endpoint ${JSON.stringify(endpoint)}: expected an http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`invalid endpoint ${JSON.stringify(endpoint)}: expected an http(s) URL`);
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}

/** A URL fit for a log: no credentials, and no query (the CDN's are signatures). */
export function displayUrl(url: string | URL): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString();
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

// ---------------------------------------------------------------------------------------------
// Download

export interface Reporter {
  /** One finished line: a file done, a note, a model's header. */
  line(text: string): void;
  /** Bytes received so far for a file being downloaded; called often, so throttle. */
  progress?(file: string, received: number, total: number | undefined): void;
}

export interface FetchOptions {
  /** Models go to `<outDir>/<owner>/<name>/`. */
  outDir: string;
  endpoint?: string;
  revision?: string;
  dtypes?: readonly string[];
  /** More repository files to fetch, each required. */
  extraFiles?: readonly string[];
  force?: boolean;
  /** Sent as `Authorization: Bearer …` to the endpoint's origin only, never to a CDN, never logged. */
  token?: string;
  /** Extra attempts after a network error, a timeout, a truncated body, a 429 or a 5xx. */
  retries?: number;
  /** Wait before the first retry; doubles each time. */
  retryDelayMs?: number;
  /** Give up on an attempt that receives nothing for this long. */
  idleTimeoutMs?: number;
  reporter?: Reporter;
}

export type FileOutcome = 'downloaded' | 'up to date';

export interface FileResult {
  path: string;
  outcome: FileOutcome;
  size: number;
  sha256: string;
}

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface FetchManifest {
  schema: 1;
  modelId: string;
  revision: string;
  /** The commit the revision resolved to (`X-Repo-Commit`), when the hub said. */
  commit?: string;
  endpointHost: string;
  fetchedAt: string;
  dtypes: string[];
  files: ManifestFile[];
  /** Optional files the repository does not have (404), so a verifier does not look for them. */
  absent: string[];
}

export interface ModelResult {
  modelId: string;
  dir: string;
  ok: boolean;
  files: FileResult[];
  absent: string[];
  /** One message per failed file, each naming the file. */
  errors: string[];
  manifest?: FetchManifest;
}

type FailureKind = 'http' | 'network' | 'timeout' | 'integrity';

/** A failed request, with enough to explain it; `retryable` for the kinds that may pass next time. */
class DownloadError extends Error {
  override name = 'DownloadError';
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly url: string,
    readonly status?: number,
    readonly errorCode?: string,
    readonly hubMessage?: string,
  ) {
    super(message);
  }

  get retryable(): boolean {
    if (this.kind === 'http') return this.status === 429 || (this.status ?? 0) >= 500;
    return true;
  }
}

interface RequestContext {
  endpoint: URL;
  token?: string;
  idleTimeoutMs: number;
}

interface Fetched {
  outcome: FileOutcome;
  size: number;
  sha256: string;
  commit?: string;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function localSize(path: string): number | undefined {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

/** `X-Linked-Etag` is the LFS object's SHA-256 for weights; other ETags are not content hashes. */
function linkedSha256(headers: Headers): string | undefined {
  const etag = headers.get('x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '');
  return etag && /^[0-9a-f]{64}$/.test(etag) ? etag : undefined;
}

function headerNumber(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  const detail = cause?.message ?? messageOf(error);
  const hint =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? ': cannot resolve the host; is this machine online, and is --endpoint right?'
      : code === 'ECONNREFUSED'
        ? ': connection refused; is --endpoint right?'
        : '';
  return `${code && !detail.includes(code) ? `${code} ` : ''}${detail}${hint}`;
}

/**
 * One attempt: follows redirects by hand (to read the hub's `X-Linked-*` headers on the way, and to
 * keep the token away from other hosts), skips the download when the local copy matches, otherwise
 * streams into `<dest>.part` and renames it once size and hash check out.
 */
async function downloadOnce(
  ctx: RequestContext,
  url: URL,
  dest: string,
  file: string,
  force: boolean,
  reporter: Reporter | undefined,
): Promise<Fetched> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ctx.idleTimeoutMs);
  };
  const fail = (current: URL, error: unknown): DownloadError => {
    if (error instanceof DownloadError) return error;
    if (timedOut) {
      return new DownloadError(
        `no data for ${formatSeconds(ctx.idleTimeoutMs)} from ${displayUrl(current)}`,
        'timeout',
        displayUrl(current),
      );
    }
    return new DownloadError(
      `network error for ${displayUrl(current)}: ${networkMessage(error)}`,
      'network',
      displayUrl(current),
    );
  };

  const have = force ? undefined : localSize(dest);
  let localSha: string | undefined;
  /** Hashes the local copy at most once, with the idle timer off: a big file takes seconds. */
  const hashLocal = async (): Promise<string> => {
    if (localSha === undefined) {
      clearTimeout(timer);
      localSha = await sha256File(dest);
      arm();
    }
    return localSha;
  };
  let current = url;
  let expectedSha: string | undefined;
  let commit: string | undefined;
  let response: Response | undefined;
  try {
    arm();
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        // Sizes are compared with Content-Length, which must then be the size of the file itself.
        'Accept-Encoding': 'identity',
      };
      if (ctx.token && current.origin === ctx.endpoint.origin) {
        headers.Authorization = `Bearer ${ctx.token}`;
      }
      try {
        response = await fetch(current, {
          headers,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        throw fail(current, error);
      }
      commit ??= response.headers.get('x-repo-commit') ?? undefined;
      expectedSha ??= linkedSha256(response.headers);
      if (response.status < 300 || response.status >= 400) break;

      const location = response.headers.get('location');
      await response.body?.cancel();
      if (!location) {
        throw new DownloadError(
          `HTTP ${response.status} without a Location from ${displayUrl(current)}`,
          'http',
          displayUrl(current),
          response.status,
        );
      }
      // The hub announces an LFS file's size and hash before sending to the CDN: a local copy that
      // matches needs no request there at all.
      const linkedSize = headerNumber(response.headers, 'x-linked-size');
      if (have !== undefined && linkedSize === have) {
        const sha256 = await hashLocal();
        if (expectedSha === undefined || expectedSha === sha256) {
          return { outcome: 'up to date', size: have, sha256, commit };
        }
      }
      if (hop >= MAX_REDIRECTS) {
        throw new DownloadError(
          `more than ${MAX_REDIRECTS} redirects from ${displayUrl(url)}`,
          'http',
          displayUrl(url),
          response.status,
        );
      }
      current = new URL(location, current);
    }

    if (!response.ok) {
      const status = response.status;
      const errorCode = response.headers.get('x-error-code') ?? undefined;
      const hubMessage = response.headers.get('x-error-message')?.slice(0, 300) ?? undefined;
      await response.body?.cancel();
      throw new DownloadError(
        `HTTP ${status}`,
        'http',
        displayUrl(current),
        status,
        errorCode,
        hubMessage,
      );
    }

    const total = headerNumber(response.headers, 'content-length');
    if (have !== undefined && total === have) {
      const sha256 = await hashLocal();
      if (expectedSha === undefined || expectedSha === sha256) {
        await response.body?.cancel();
        return { outcome: 'up to date', size: have, sha256, commit };
      }
    }

    await mkdir(dirname(dest), { recursive: true });
    const part = `${dest}.part`;
    const hash = createHash('sha256');
    let received = 0;
    const handle = await open(part, 'w');
    try {
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (error) {
            throw fail(current, error);
          }
          if (chunk.done) break;
          arm();
          hash.update(chunk.value);
          received += chunk.value.byteLength;
          await handle.write(chunk.value);
          reporter?.progress?.(file, received, total);
        }
      }
      await handle.close();
      if (total !== undefined && received !== total) {
        throw new DownloadError(
          `incomplete download from ${displayUrl(current)}: ${received} of ${total} bytes`,
          'network',
          displayUrl(current),
        );
      }
      const sha256 = hash.digest('hex');
      if (expectedSha !== undefined && sha256 !== expectedSha) {
        throw new DownloadError(
          `SHA-256 mismatch for ${displayUrl(current)}: got ${sha256}, the hub announced ${expectedSha}`,
          'integrity',
          displayUrl(current),
        );
      }
      await rename(part, dest);
      return { outcome: 'downloaded', size: received, sha256, commit };
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(part, { force: true });
      throw error;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function download(
  ctx: RequestContext,
  url: URL,
  dest: string,
  file: string,
  options: Required<Pick<FetchOptions, 'force' | 'retries' | 'retryDelayMs'>>,
  reporter: Reporter | undefined,
): Promise<Fetched> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await downloadOnce(ctx, url, dest, file, options.force, reporter);
    } catch (error) {
      if (!(error instanceof DownloadError) || !error.retryable || attempt >= options.retries) {
        throw error;
      }
      const wait = options.retryDelayMs * 2 ** attempt;
      const what = error.kind === 'http' ? `HTTP ${error.status}` : error.message;
      reporter?.line(`  retry       ${file} in ${formatSeconds(wait)} (${what})`);
      await new Promise((ok) => setTimeout(ok, wait));
    }
  }
}

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

// ---------------------------------------------------------------------------------------------
// Offline verification

export interface VerifyResult {
  modelId: string;
  dir: string;
  ok: boolean;
  problems: string[];
  manifest?: FetchManifest;
}

/** Checks a fetched model folder against its manifest: every file there, same size, same SHA-256. */
export async function verifyModel(modelId: string, outDir: string): Promise<VerifyResult> {
  const idProblem = modelIdProblem(modelId);
  if (idProblem) throw new UsageError(idProblem);
  const dir = modelDir(outDir, modelId);
  const result: VerifyResult = { modelId, dir, ok: false, problems: [] };
  const manifestPath = resolve(dir, MANIFEST_NAME);
  if (!existsSync(manifestPath)) {
    result.problems.push(`${MANIFEST_NAME} missing: fetch the model with models:fetch first`);
    return result;
  }
  let manifest: FetchManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as FetchManifest;
  } catch {
    result.problems.push(`${MANIFEST_NAME} is not valid JSON`);
    return result;
  }
  result.manifest = manifest;
  for (const file of manifest.files ?? []) {
    if (repoFileProblem(file.path)) {
      result.problems.push(`${file.path}: not a valid path`);
      continue;
    }
    const path = resolve(dir, ...file.path.split('/'));
    const size = localSize(path);
    if (size === undefined) result.problems.push(`${file.path}: missing`);
    else if (size !== file.size) {
      result.problems.push(`${file.path}: ${size} bytes, expected ${file.size}`);
    } else if ((await sha256File(path)) !== file.sha256) {
      result.problems.push(`${file.path}: SHA-256 differs from the manifest`);
    }
  }
  result.ok = result.problems.length === 0;
  return result;
}

// ---------------------------------------------------------------------------------------------
// CLI

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Live progress (rewritten in place) only on a terminal; one line per file otherwise. */
  isTTY: boolean;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
};

interface CliArgs {
  modelIds: string[];
  help: boolean;
  verify: boolean;
  options: FetchOptions;
}

export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        dtype: { type: 'string', multiple: true },
        out: { type: 'string' },
        revision: { type: 'string' },
        endpoint: { type: 'string' },
        file: { type: 'string', multiple: true },
        force: { type: 'boolean' },
        verify: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const help = values.help ?? false;
  if (!help && positionals.length === 0) throw new UsageError('no model id given');
  const problems = positionals.map(modelIdProblem).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const endpoint = values.endpoint ?? (env.HF_ENDPOINT || DEFAULT_ENDPOINT);
  normaliseEndpoint(endpoint);
  for (const file of values.file ?? []) {
    const problem = repoFileProblem(file);
    if (problem) throw new UsageError(problem);
  }
  return {
    modelIds: [...new Set(positionals)],
    help,
    verify: values.verify ?? false,
    options: {
      outDir: values.out ? resolve(values.out) : DEFAULT_OUT_DIR,
      endpoint,
      revision: values.revision ?? DEFAULT_REVISION,
      dtypes: parseDtypes(values.dtype ?? DEFAULT_DTYPES),
      extraFiles: values.file ?? [],
      force: values.force ?? false,
      token: env.HF_TOKEN || undefined,
    },
  };
}

function cliReporter(io: CliIo): Reporter {
  let live = false;
  let lastDraw = 0;
  return {
    line(text) {
      if (live) io.stderr('\r\x1b[K');
      live = false;
      io.stdout(`${text}\n`);
    },
    progress(file, received, total) {
      if (!io.isTTY) return;
      const now = Date.now();
      if (now - lastDraw < 100 && received !== total) return;
      lastDraw = now;
      live = true;
      const of = total ? `/${formatBytes(total)}  ${Math.floor((received / total) * 100)}%` : '';
      io.stderr(`\r\x1b[K  ...         ${file}  ${formatBytes(received)}${of}`);
    },
  };
}

/** The whole CLI, minus process.exit: returns the exit status. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
  io: CliIo = processIo,
): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`models:fetch: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(USAGE);
    return 0;
  }
  const reporter = cliReporter(io);

  if (args.verify) {
    let failed = 0;
    for (const modelId of args.modelIds) {
      const verified = await verifyModel(modelId, args.options.outDir);
      if (verified.ok) {
        const files = verified.manifest?.files ?? [];
        const bytes = files.reduce((sum, f) => sum + f.size, 0);
        reporter.line(`ok      ${modelId}  ${files.length} files, ${formatBytes(bytes)}`);
      } else {
        failed++;
        reporter.line(`FAILED  ${modelId}`);
        for (const problem of verified.problems) io.stderr(`  ${modelId}: ${problem}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  }

  const results: ModelResult[] = [];
  for (const modelId of args.modelIds) {
    try {
      results.push(await fetchModel(modelId, { ...args.options, reporter }));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.stderr(`models:fetch: ${error.message}\n`);
      return 2;
    }
  }

  const failed = results.filter((r) => !r.ok);
  reporter.line('');
  reporter.line(
    `Summary: ${results.length} model${results.length === 1 ? '' : 's'}, ${failed.length} failed`,
  );
  for (const r of results) {
    if (r.ok) {
      const bytes = r.files.reduce((sum, f) => sum + f.size, 0);
      const downloaded = r.files.filter((f) => f.outcome === 'downloaded').length;
      reporter.line(
        `  ok      ${r.modelId}  ${r.files.length} files, ${formatBytes(bytes)} (${downloaded} downloaded, ${r.files.length - downloaded} up to date)`,
      );
    } else {
      reporter.line(`  FAILED  ${r.modelId}`);
      for (const e of r.errors) io.stderr(`  ${e}\n`);
    }
  }
  if (failed.length === 0 && results.length > 0) {
    const out = relative(process.cwd(), args.options.outDir) || '.';
    reporter.line(
      `Serve ${out}/ as /models/ (the app's local model path); check a copy offline with --verify.`,
    );
  }
  return failed.length > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
