/**
 * Bytes a first visit downloads, measured: builds the app (unless --skip-build), serves dist/ with
 * `vite preview`, opens it once in a fresh Chromium profile with the default settings, waits until
 * the service worker controls the page and the server has been quiet for a while, and sums the
 * response bodies the server sent (counted in the server, so the service worker's install, the
 * page and its workers are all in it; a 304 counts as 0). Also prints the precache manifest's size
 * as read from dist/sw.js.
 *
 * Usage: npm run bytes:first-visit [-- --skip-build] [--root DIR] [--port 4185] [--quiet-ms 5000]
 * (`--root` measures another checkout, e.g. a worktree of main for the "before" number).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { preview, type Plugin } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    'skip-build': { type: 'boolean', default: false },
    port: { type: 'string', default: '4185' },
    'quiet-ms': { type: 'string', default: '5000' },
    'max-ms': { type: 'string', default: '240000' },
  },
});
const root = resolve(values.root);
const port = Number(values.port);
const quietMs = Number(values['quiet-ms']);
const maxMs = Number(values['max-ms']);

interface Served {
  requests: number;
  /** Requests answered with a body (a 304 has none): more than one is a repeated download. */
  withBody: number;
  bytes: number;
  statuses: Set<number>;
}

const served = new Map<string, Served>();
const sentBody = new WeakSet<ServerResponse>();
let inFlight = 0;
let lastActivity = Date.now();

function count(path: string, res: ServerResponse, chunk: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  const length =
    typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
  const entry = served.get(path);
  if (entry && length > 0) {
    entry.bytes += length;
    if (!sentBody.has(res)) entry.withBody += 1;
    sentBody.add(res);
  }
  lastActivity = Date.now();
}

/** Counts every body byte the preview server writes, per path (query dropped). */
function countingPlugin(): Plugin {
  return {
    name: 'sumlens:count-first-visit-bytes',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const entry = served.get(path) ?? {
          requests: 0,
          withBody: 0,
          bytes: 0,
          statuses: new Set<number>(),
        };
        entry.requests += 1;
        served.set(path, entry);
        inFlight += 1;
        lastActivity = Date.now();
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
        res.write = ((...args: unknown[]) => {
          count(path, res, args[0]);
          return write(...args);
        }) as typeof res.write;
        res.end = ((...args: unknown[]) => {
          count(path, res, args[0]);
          return end(...args);
        }) as typeof res.end;
        res.on('close', () => {
          entry.statuses.add(res.statusCode);
          inFlight -= 1;
          lastActivity = Date.now();
        });
        next();
      });
    },
  };
}

/** The precache manifest's entries (`{url:"…",revision:…}` in sw.js) and their sizes on disk. */
function precacheManifest(dist: string): { url: string; bytes: number }[] {
  const sw = readFileSync(join(dist, 'sw.js'), 'utf8');
  const urls = [...sw.matchAll(/\{url:"([^"]+)",revision:/gu)].map((m) => m[1]!);
  return urls.map((url) => {
    const file = join(dist, decodeURIComponent(url));
    return { url, bytes: existsSync(file) ? statSync(file).size : 0 };
  });
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

async function main(): Promise<void> {
  if (!values['skip-build']) {
    const build = spawnSync('npx', ['vite', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`vite build failed in ${root}`);
  }
  const dist = join(root, 'dist');
  const manifest = precacheManifest(dist);
  const manifestBytes = manifest.reduce((sum, e) => sum + e.bytes, 0);

  const server = await preview({
    root,
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'warn',
    preview: { port, strictPort: true, host: '127.0.0.1' },
    plugins: [countingPlugin()],
  });
  const origin = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const started = Date.now();
    await page.goto(origin);
    const controlled = await page.evaluate(
      (wait) =>
        Promise.race([
          navigator.serviceWorker.ready.then(async () => {
            while (!navigator.serviceWorker.controller)
              await new Promise((r) => setTimeout(r, 100));
            return true;
          }),
          new Promise<boolean>((done) => setTimeout(() => done(false), wait)),
        ]),
      maxMs,
    );
    while (Date.now() - started < maxMs) {
      if (inFlight === 0 && Date.now() - lastActivity > quietMs) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await context.close();
    const rows = [...served.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
    const total = rows.reduce((sum, [, e]) => sum + e.bytes, 0);
    const twice = rows.filter(([, e]) => e.withBody > 1);
    console.log(`first visit of ${root} (${origin}), service worker in control: ${controlled}`);
    console.log(
      `precache manifest: ${manifest.length} entries, ${manifestBytes} B (${mb(manifestBytes)})`,
    );
    console.log('largest responses (bytes sent, requests, statuses):');
    for (const [path, e] of rows.slice(0, 15)) {
      console.log(
        `  ${String(e.bytes).padStart(10)}  ×${e.requests}  ${[...e.statuses].join(',')}  ${path}`,
      );
    }
    console.log(
      `downloaded more than once (a body sent each time): ${twice.map(([p]) => p).join(', ') || 'none'}`,
    );
    console.log(
      `first-visit bytes: ${total} B (${mb(total)}) in ${rows.reduce((s, [, e]) => s + e.requests, 0)} requests`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
