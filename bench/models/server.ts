/**
 * A small static server for the model benchmark: the bench build at /, ONNX Runtime's files at
 * /vendor/ort/, and models at /models/, all with the headers that make the page cross-origin
 * isolated (without them ONNX Runtime silently runs one WASM thread).
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, resolve, sep } from 'node:path';

export interface Mount {
  /** URL prefix ending in '/'. */
  prefix: string;
  /** Directories tried in order; the first that has the file serves it. */
  dirs: string[];
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function findFile(mounts: Mount[], pathname: string): string | null {
  for (const mount of mounts) {
    if (!pathname.startsWith(mount.prefix)) continue;
    const rel = pathname.slice(mount.prefix.length) || 'index.html';
    for (const dir of mount.dirs) {
      const root = resolve(dir);
      const file = resolve(root, rel);
      if (file !== root && !file.startsWith(root + sep)) continue;
      try {
        if (statSync(file).isFile()) return file;
      } catch {
        // not in this directory
      }
    }
  }
  return null;
}

export function startServer(
  port: number,
  mounts: Mount[],
  onNotFound?: (pathname: string) => void,
): Promise<Server> {
  // Longest prefix first, so /models/ wins over /.
  const ordered = [...mounts].sort((a, b) => b.prefix.length - a.prefix.length);
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const file = req.method === 'GET' || req.method === 'HEAD' ? findFile(ordered, pathname) : null;
    if (!file) {
      onNotFound?.(pathname);
      res.writeHead(404, { ...ISOLATION_HEADERS, 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      ...ISOLATION_HEADERS,
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size,
      'Cache-Control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} is in use: is another benchmark running?`)
          : error,
      ),
    );
    server.listen(port, '127.0.0.1', () => resolvePromise(server));
  });
}
