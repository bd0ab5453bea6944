/**
 * A loopback stand-in for the Hugging Face hub, for tests that must never leave the machine:
 * `scripts/models-fetch.ts` downloads from it, and the browser app can point its hub mirror URL at
 * it. Serves `<root>/<owner>/<name>/<file>` at `/<owner>/<name>/resolve/<revision>/<file>`.
 *
 * It copies the parts of the real hub that clients depend on: weights (`.onnx`, `.onnx_data`) are
 * LFS files, answered with a 302 to a CDN path (here on the same server) plus `X-Linked-Size` and
 * `X-Linked-Etag` (the SHA-256), like the hub does; every answer carries `X-Repo-Commit`, and errors
 * carry `X-Error-Code` (`RepoNotFound`, `EntryNotFound`, `RevisionNotFound`, `GatedRepo`). CORS and
 * CORP headers are on every answer (redirects and errors included) so a cross-origin page or worker
 * can read it, even one that is cross-origin isolated.
 *
 * Faults are injected per model id or per `<model-id>/<file>` (the more specific key wins).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, resolve, sep } from 'node:path';

export interface FaultSpec {
  /** Answer with this HTTP status (401, 403, 404, 500…) instead of the file. */
  status?: number;
  /** Destroy the connection before answering: a network failure for the client. */
  reset?: boolean;
  /** Send the headers (full Content-Length) and half the body, then cut the connection. */
  truncate?: boolean;
  /** Send the headers and never the body: a stalled download. */
  stall?: boolean;
  /** Announce a wrong SHA-256 in `X-Linked-Etag` (weights only), as if the CDN served other bytes. */
  badEtag?: boolean;
  /** With `status`: the `X-Error-Message` (and JSON body) to send. */
  message?: string;
  /** Apply the fault this many times, then behave; unlimited when absent. */
  times?: number;
}

/** A bare number is shorthand for `{ status }`. */
export type Fault = number | FaultSpec;

export interface FakeHubOptions {
  /** Folder holding `<owner>/<name>/<file>`. */
  root: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Revisions served (all from the same files); default `['main']`. */
  revisions?: string[];
  /** Keyed by `<model-id>` or `<model-id>/<file>`. */
  faults?: Record<string, Fault>;
  /** Value of `X-Repo-Commit`; a fixed fake SHA-1 by default. */
  commit?: string;
  /**
   * Origin the weight redirects point to, e.g. another fake hub's `url` serving the same root, to
   * mimic the hub's CDN on another host; by default a relative path on this server.
   */
  cdnBase?: string;
}

export interface RequestRecord {
  method: string;
  /** Path and query, as requested. */
  url: string;
  /** The Authorization header, if any: tests check a token was sent without printing it. */
  authorization?: string;
}

export interface FakeHub {
  /** `http://127.0.0.1:<port>`, no trailing slash: the value for `HF_ENDPOINT` / `--endpoint`. */
  url: string;
  port: number;
  /** `"<METHOD> <path>"` for every request, in order. */
  requests: string[];
  records: RequestRecord[];
  /** Faults can be changed between requests. */
  faults: Record<string, Fault>;
  close(): Promise<void>;
}

export const FAKE_COMMIT = '0123456789abcdef0123456789abcdef01234567';

const CDN_SEGMENT = 'cdn-lfs';

const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Range, Content-Type, User-Agent',
  'Access-Control-Expose-Headers':
    'Content-Length, Content-Range, Accept-Ranges, ETag, Location, X-Linked-Size, X-Linked-Etag, X-Repo-Commit, X-Error-Code, X-Error-Message',
  'Access-Control-Max-Age': '600',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

const ERROR_MESSAGES: Record<number, [code: string, message: string]> = {
  401: ['RepoNotFound', 'Repository not found or access requires authentication.'],
  403: ['GatedRepo', 'Access to this model is restricted: accept its conditions on the hub.'],
  404: ['EntryNotFound', 'Entry not found.'],
};

function isLfs(file: string): boolean {
  return file.endsWith('.onnx') || file.endsWith('.onnx_data');
}

function contentType(file: string): string {
  return extname(file) === '.json' ? 'application/json; charset=utf-8' : 'application/octet-stream';
}

export async function startFakeHub(options: FakeHubOptions): Promise<FakeHub> {
  const root = resolve(options.root);
  const revisions = new Set(options.revisions ?? ['main']);
  const commit = options.commit ?? FAKE_COMMIT;
  const faults: Record<string, Fault> = { ...options.faults };
  const requests: string[] = [];
  const records: RequestRecord[] = [];
  const sha256Cache = new Map<string, { mtimeMs: number; size: number; sha256: string }>();

  function sha256Of(path: string): string {
    const st = statSync(path);
    const cached = sha256Cache.get(path);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.sha256;
    const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
    sha256Cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, sha256 });
    return sha256;
  }

  /** Resolves `<model-id>/<file>` under root, or undefined when it is not a file inside root. */
  function localFile(modelId: string, file: string): string | undefined {
    const path = resolve(root, modelId, file);
    if (!path.startsWith(root + sep)) return undefined;
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    return path;
  }

  /**
   * Takes one use of the fault that applies at this stage, if any. A weight's status, reset and
   * bad-etag faults act on the hub's answer, its truncate and stall faults on the CDN's download.
   */
  function takeFault(modelId: string, file: string, stage: 'hub' | 'cdn'): FaultSpec | undefined {
    for (const key of [`${modelId}/${file}`, modelId]) {
      const fault = faults[key];
      if (fault === undefined) continue;
      const spec: FaultSpec = typeof fault === 'number' ? { status: fault } : fault;
      if (spec.times !== undefined && spec.times <= 0) continue;
      const onDownload = Boolean(spec.truncate || spec.stall);
      const onHub = Boolean(spec.status || spec.reset || spec.badEtag);
      const applies = !isLfs(file) ? stage === 'hub' : stage === 'hub' ? onHub : onDownload;
      if (!applies) continue;
      if (spec.times !== undefined) faults[key] = { ...spec, times: spec.times - 1 };
      return spec;
    }
    return undefined;
  }

  function sendError(res: ServerResponse, status: number, code?: string, message?: string): void {
    const [defaultCode, defaultMessage] = ERROR_MESSAGES[status] ?? ['', `HTTP ${status}`];
    const body = JSON.stringify({ error: message ?? defaultMessage });
    res.writeHead(status, {
      ...CORS_HEADERS,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      ...(code || defaultCode ? { 'X-Error-Code': code ?? defaultCode } : {}),
      'X-Error-Message': message ?? defaultMessage,
    });
    res.end(body);
  }

  /** Serves a whole file or one `bytes=a-b` range; anything fancier gets the whole file. */
  function sendFile(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    fault: FaultSpec | undefined,
  ): void {
    const size = statSync(path).size;
    const headers: Record<string, string | number> = {
      ...CORS_HEADERS,
      'Content-Type': contentType(path),
      'Accept-Ranges': 'bytes',
      ETag: `"${sha256Of(path)}"`,
      'X-Repo-Commit': commit,
    };
    let start = 0;
    let end = size - 1;
    let status = 200;
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && (range[1] || range[2]) && size > 0) {
      if (range[1]) {
        start = Number(range[1]);
        if (range[2]) end = Math.min(Number(range[2]), size - 1);
      } else {
        start = Math.max(0, size - Number(range[2]));
      }
      if (start > end) {
        res.writeHead(416, { ...CORS_HEADERS, 'Content-Range': `bytes */${size}` });
        res.end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    const length = size === 0 ? 0 : end - start + 1;
    headers['Content-Length'] = length;
    res.writeHead(status, headers);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    if (fault?.stall) {
      res.flushHeaders();
      return;
    }
    if (fault?.truncate) {
      const half = Math.max(1, Math.floor(length / 2));
      const head = Buffer.alloc(half);
      const fd = openSync(path, 'r');
      try {
        readSync(fd, head, 0, half, start);
      } finally {
        closeSync(fd);
      }
      // Cut once the half has gone out to the socket: the client reads it, then a dropped line.
      res.write(head, () => res.destroy());
      return;
    }
    createReadStream(path, { start, end }).pipe(res);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    requests.push(`${method} ${rawUrl}`);
    records.push({
      method,
      url: rawUrl,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });

    if (method === 'OPTIONS') {
      res.writeHead(204, CORS_HEADERS);
      res.end();
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { ...CORS_HEADERS, Allow: 'GET, HEAD, OPTIONS' });
      res.end();
      return;
    }

    // Decoded segment by segment, so that an encoded revision like `refs%2Fpr%2F1` stays one.
    let segments: string[];
    try {
      segments = new URL(rawUrl, 'http://fake-hub').pathname
        .split('/')
        .slice(1)
        .map(decodeURIComponent);
    } catch {
      sendError(res, 400, 'BadRequest', 'Malformed URL.');
      return;
    }

    // The "CDN": like a pre-signed URL, it needs no token and serves whatever it is asked for.
    if (segments[0] === CDN_SEGMENT && segments.length >= 4) {
      const modelId = segments.slice(1, 3).join('/');
      const file = segments.slice(3).join('/');
      const path = localFile(modelId, file);
      if (!path) {
        sendError(res, 404, 'EntryNotFound');
        return;
      }
      sendFile(req, res, path, takeFault(modelId, file, 'cdn'));
      return;
    }

    if (segments.length < 5 || segments[2] !== 'resolve') {
      sendError(res, 404, 'RepoNotFound', 'Not a resolve URL.');
      return;
    }
    const modelId = segments.slice(0, 2).join('/');
    const revision = segments[3];
    const file = segments.slice(4).join('/');

    const fault = takeFault(modelId, file, 'hub');
    if (fault?.reset) {
      req.socket.destroy();
      return;
    }
    if (fault?.status) {
      sendError(res, fault.status, undefined, fault.message);
      return;
    }
    const modelDir = resolve(root, modelId);
    if (!modelDir.startsWith(root + sep) || !existsSync(modelDir)) {
      // The real hub answers 401 for a repository it does not know, so as not to reveal private ones.
      sendError(res, 401, 'RepoNotFound');
      return;
    }
    if (!revisions.has(revision)) {
      sendError(res, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
      return;
    }
    const path = localFile(modelId, file);
    if (!path) {
      sendError(res, 404, 'EntryNotFound');
      return;
    }

    if (isLfs(file)) {
      const sha256 = fault?.badEtag ? '0'.repeat(64) : sha256Of(path);
      const location = `${options.cdnBase ?? ''}/${CDN_SEGMENT}/${modelId}/${file}?sig=fake-signature`;
      res.writeHead(302, {
        ...CORS_HEADERS,
        Location: location,
        'X-Linked-Size': statSync(path).size,
        'X-Linked-Etag': `"${sha256}"`,
        'X-Repo-Commit': commit,
        'Content-Length': 0,
      });
      res.end();
      return;
    }
    sendFile(req, res, path, fault);
  }

  const server = createServer(handle);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    records,
    faults,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
