/**
 * Compressed copies of the build's large binary files, and the preview middleware that serves them.
 *
 * ONNX Runtime's plain WASM build, the one the default encoder runs on, is 14.3 MB as it is and
 * 2.7 MB as brotli: the largest item of a first visit by far. `vite preview` compresses text, JS
 * and JSON on the fly but sends `application/wasm` and binary model files as they are, and
 * compressing 14–28 MB per request would cost the server more than the transfer. So the build
 * writes `<file>.br` and `<file>.gz` beside each such file once (dist/, see vite.config.ts) and
 * the preview server sends the one the browser accepts, with `Content-Encoding` and
 * `Vary: Accept-Encoding`, as nginx's `gzip_static`/`brotli_static` do (README, "Hosting
 * offline"). The browser decodes it before any code sees it: workers, the service worker's caches
 * and the integrity checks of the int8 files all see the original bytes.
 *
 * Which files: every `.wasm` (ONNX Runtime's three builds, TF.js's, jieba's), the default encoder's
 * graph and weights (`models/use-lite/*.onnx|bin`) and the GloVe vectors (`assets/glove-100d-*.bin`).
 * Not the other self-hosted models (`npm run models:fetch`): they can be hundreds of MB, and fp32
 * weights shrink by less than a tenth. A copy that saves less than MIN_SAVING is not written.
 *
 * Compressing is slow (brotli takes seconds per MB-range file; ~75 MB of wasm), so each result is
 * kept in `.cache/precompressed/`, named by the SHA-256 of the input and the settings: a rebuild
 * copies instead of compressing again.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** In the order the server prefers them. */
export const ENCODINGS = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;

export type Encoding = (typeof ENCODINGS)[number]['encoding'];

/**
 * Brotli 9 and gzip 9: on the plain ORT wasm, brotli 9 gives 2.70 MB in ~2 s where 11 gives
 * 2.31 MB in ~50 s (2 cores); gzip 9 gives 3.70 MB in under a second.
 */
const BROTLI_QUALITY = 9;
const GZIP_LEVEL = 9;
/** A compressed copy must save at least this share of the file, or the file is sent as it is. */
export const MIN_SAVING = 0.05;

/** `path` is relative to dist/, with forward slashes. */
export function shouldPrecompress(path: string): boolean {
  return (
    path.endsWith('.wasm') ||
    /^models\/use-lite\/[^/]+\.(onnx|bin)$/u.test(path) ||
    /^assets\/glove-100d-[0-9a-f]+\.bin$/u.test(path)
  );
}

const compressors: Record<Encoding, (bytes: Buffer) => Promise<Buffer>> = {
  br: (bytes) =>
    promisify(brotliCompress)(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  gzip: (bytes) => promisify(gzip)(bytes, { level: GZIP_LEVEL }),
};

const SETTINGS_TAG: Record<Encoding, string> = {
  br: `br${BROTLI_QUALITY}`,
  gzip: `gz${GZIP_LEVEL}`,
};

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

export interface Precompressed {
  /** Relative to the output folder. */
  path: string;
  bytes: number;
  /** The copies written, by encoding (absent: not worth it). */
  encoded: Partial<Record<Encoding, number>>;
  /** Taken from the cache rather than compressed now. */
  cached: boolean;
}

/**
 * Writes `<file>.br` and `<file>.gz` beside each file of `outDir` that `shouldPrecompress`
 * names, through the cache in `cacheDir`.
 */
export async function precompressDir(outDir: string, cacheDir: string): Promise<Precompressed[]> {
  mkdirSync(cacheDir, { recursive: true });
  const done: Precompressed[] = [];
  for (const file of walk(outDir)) {
    const path = relative(outDir, file).split(sep).join('/');
    if (!shouldPrecompress(path)) continue;
    const bytes = readFileSync(file);
    const hash = createHash('sha256').update(bytes).digest('hex');
    const result: Precompressed = { path, bytes: bytes.length, encoded: {}, cached: true };
    for (const { encoding, suffix } of ENCODINGS) {
      const cached = join(cacheDir, `${hash}.${SETTINGS_TAG[encoding]}`);
      // An empty marker: compressing this file did not pay.
      const skipped = `${cached}.skip`;
      if (existsSync(skipped)) continue;
      if (!existsSync(cached)) {
        result.cached = false;
        const compressed = await compressors[encoding](bytes);
        if (compressed.length > bytes.length * (1 - MIN_SAVING)) {
          writeFileSync(skipped, '');
          continue;
        }
        // Written whole, then named: an interrupted build leaves no truncated copy to reuse.
        writeFileSync(`${cached}.tmp`, compressed);
        renameSync(`${cached}.tmp`, cached);
      }
      copyFileSync(cached, `${file}${suffix}`);
      result.encoded[encoding] = statSync(cached).size;
    }
    done.push(result);
  }
  return done;
}

/**
 * The encoding to send, from an Accept-Encoding header: the first of ENCODINGS the client accepts
 * (q > 0) and that exists. `identity` is always acceptable, so no match means "as it is".
 */
export function pickEncoding(
  acceptEncoding: string | undefined,
  available: (encoding: Encoding) => boolean,
): Encoding | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/u.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(token, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get('*');
  return ENCODINGS.map((e) => e.encoding).find((encoding) => {
    const q = accepted.get(encoding) ?? wildcard ?? 0;
    return q > 0 && available(encoding);
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

function addVary(res: ServerResponse, value: string): void {
  const current = String(res.getHeader('Vary') ?? '');
  const names = current
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (!names.some((n) => n.toLowerCase() === value.toLowerCase())) names.push(value);
  res.setHeader('Vary', names.join(', '));
}

/**
 * A connect middleware for `vite preview`: a GET or HEAD for a file of `distDir` that has
 * compressed copies is answered with the copy the request accepts, with `headers` (the isolation
 * and security headers every file gets), `Content-Encoding`, `Vary: Accept-Encoding`, an ETag of
 * its own and `Cache-Control: no-cache`, as `vite preview` sends its other files. Anything else
 * passes on (the uncompressed file is then sent by `vite preview`, with `Vary` too).
 */
export function precompressedFiles(distDir: string, headers: OutgoingHttpHeaders = {}) {
  const root = resolve(distDir);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return next();
    }
    const path = pathname.replace(/^\/+/u, '');
    if (!shouldPrecompress(path)) return next();
    const file = resolve(root, path);
    if (!file.startsWith(root + sep) || !existsSync(file)) return next();
    addVary(res, 'Accept-Encoding');
    const encoding = pickEncoding(req.headers['accept-encoding'], (e) =>
      existsSync(file + ENCODINGS.find((x) => x.encoding === e)!.suffix),
    );
    if (!encoding) return next();
    const copy = file + ENCODINGS.find((x) => x.encoding === encoding)!.suffix;
    const stats = statSync(copy);
    const etag = `W/"${stats.size}-${stats.mtime.getTime()}-${encoding}"`;
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) res.setHeader(name, value);
    }
    res.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'no-cache');
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Length', stats.size);
    res.statusCode = 200;
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.end(readFileSync(copy));
  };
}
