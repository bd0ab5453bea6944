/**
 * What models:fetch accepts: its defaults, the files a transformers.js model needs, and the checks
 * on model ids, repository paths, dtypes and endpoints (the same rules as the app's), plus the
 * sizes and times it prints.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

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

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
