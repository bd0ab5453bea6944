/**
 * Bytes a first visit downloads, measured: builds the app (unless --skip-build), serves dist/ with
 * `vite preview`, opens it once in a fresh Chromium profile with the default settings, waits until
 * the service worker controls the page and the server has been quiet for a while, and sums the
 * response bodies the server sent (counted in the server, so the service worker's install, the
 * page and its workers are all in it; a 304 counts as 0). Also prints the precache manifest's size
 * as read from dist/sw.js, and when the page said "Works offline".
 *
 * Prints a summary to compare runs by (total bytes, responses, the largest items, the goal of
 * FIRST_VISIT_GOAL_BYTES with pass/fail) and writes it as JSON (`--json`, default
 * bench/results/first-visit.json); `--before FILE` (an earlier run's JSON) prints both columns.
 *
 * Usage: npm run bytes:first-visit [-- --skip-build] [--root DIR] [--port 4185] [--quiet-ms 5000]
 *   [--json FILE] [--before FILE] [--label TEXT]
 * (`--root` measures another checkout, e.g. a worktree of the base commit for the "before" number).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
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
    json: {
      type: 'string',
      default: resolve(import.meta.dirname, '../bench/results/first-visit.json'),
    },
    before: { type: 'string' },
    label: { type: 'string', default: '' },
  },
});
const root = resolve(values.root);
const port = Number(values.port);
const quietMs = Number(values['quiet-ms']);
const maxMs = Number(values['max-ms']);

/** Issue 30's goal for a first visit: the app and the default encoder, as the server sends them. */
const FIRST_VISIT_GOAL_BYTES = 15_000_000;

interface Served {
  requests: number;
  /** Requests answered with a body (a 304 has none): more than one is a repeated download. */
  withBody: number;
  bytes: number;
  statuses: Set<number>;
  /** Content-Encoding of the answers ('' when sent as is). */
  encodings: Set<string>;
}

interface Item {
  path: string;
  bytes: number;
  requests: number;
  statuses: number[];
  encoding: string;
}

/** What --json writes and --before reads. */
interface FirstVisitReport {
  label: string;
  root: string;
  commit: string;
  date: string;
  loadAverage: number[];
  goalBytes: number;
  pass: boolean;
  totalBytes: number;
  responses: number;
  controlled: boolean;
  /** From navigation until the page showed "Works offline"; null if it did not within the run. */
  offlineReadyMs: number | null;
  precache: { entries: number; bytes: number };
  repeated: string[];
  items: Item[];
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

/**
 * Counts every body byte the preview server writes, per path (query dropped). First of all
 * middlewares (`enforce: 'pre'`), so that it also sees what the app's own preview middlewares
 * answer without passing on (precompressed files, vite.config.ts).
 */
function countingPlugin(): Plugin {
  return {
    name: 'sumlens:count-first-visit-bytes',
    enforce: 'pre',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const entry = served.get(path) ?? {
          requests: 0,
          withBody: 0,
          bytes: 0,
          statuses: new Set<number>(),
          encodings: new Set<string>(),
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
          if (res.statusCode !== 304) {
            entry.encodings.add(String(res.getHeader('content-encoding') ?? ''));
          }
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

function commitOf(root: string): string {
  const rev = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd: root,
    encoding: 'utf8',
  });
  return `${rev.stdout.trim() || '?'}${dirty.stdout.trim() ? '+changes' : ''}`;
}

function printReport(report: FirstVisitReport, before: FirstVisitReport | undefined): void {
  const cell = (r: FirstVisitReport | undefined, f: (r: FirstVisitReport) => string) =>
    r ? f(r) : '';
  const rows: [string, (r: FirstVisitReport) => string][] = [
    ['commit', (r) => r.commit],
    ['first-visit bytes', (r) => `${r.totalBytes} B (${mb(r.totalBytes)})`],
    ['responses', (r) => String(r.responses)],
    ['precache', (r) => `${r.precache.entries} files, ${mb(r.precache.bytes)}`],
    [
      '"Works offline" after',
      (r) => (r.offlineReadyMs === null ? 'never' : `${r.offlineReadyMs} ms`),
    ],
    ['load average (1, 5, 15 min)', (r) => r.loadAverage.map((l) => l.toFixed(2)).join(', ')],
  ];
  console.log(`\nfirst visit, as \`vite preview\` sends it${before ? ' (before → after)' : ''}:`);
  for (const [name, f] of rows) {
    console.log(
      `  ${name.padEnd(28)} ${before ? `${cell(before, f).padEnd(26)} → ` : ''}${f(report)}`,
    );
  }
  const top = (r: FirstVisitReport) =>
    r.items
      .slice(0, 10)
      .map(
        (i) =>
          `${String(i.bytes).padStart(10)}  ×${i.requests}  ${i.statuses.join(',')}  ${i.encoding || 'identity'}  ${i.path}`,
      );
  if (before) {
    console.log(`largest items before (bytes sent, requests, statuses, encoding):`);
    for (const line of top(before)) console.log(`  ${line}`);
  }
  console.log(`largest items${before ? ' after' : ''} (bytes sent, requests, statuses, encoding):`);
  for (const line of top(report)) console.log(`  ${line}`);
  console.log(
    `downloaded more than once (a body sent each time): ${report.repeated.join(', ') || 'none'}`,
  );
  console.log(
    `goal: first visit ≤ ${mb(report.goalBytes)}: ${mb(report.totalBytes)} → ${report.pass ? 'PASS' : 'FAIL'}`,
  );
}

async function main(): Promise<void> {
  if (!values['skip-build']) {
    const build = spawnSync('npx', ['vite', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`vite build failed in ${root}`);
  }
  const dist = join(root, 'dist');
  const manifest = precacheManifest(dist);
  const manifestBytes = manifest.reduce((sum, e) => sum + e.bytes, 0);
  const before = values.before
    ? (JSON.parse(readFileSync(values.before, 'utf8')) as FirstVisitReport)
    : undefined;

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
    let offlineReadyMs: number | null = null;
    void page
      .getByTestId('offline-ready')
      .waitFor({ timeout: maxMs })
      .then(
        () => (offlineReadyMs = Date.now() - started),
        () => undefined,
      );
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
    const items: Item[] = [...served.entries()]
      .map(([path, e]) => ({
        path,
        bytes: e.bytes,
        requests: e.requests,
        statuses: [...e.statuses],
        encoding: [...e.encodings].join(','),
      }))
      .sort((a, b) => b.bytes - a.bytes);
    const total = items.reduce((sum, i) => sum + i.bytes, 0);
    const report: FirstVisitReport = {
      label: values.label,
      root,
      commit: commitOf(root),
      date: new Date().toISOString(),
      loadAverage: loadavg(),
      goalBytes: FIRST_VISIT_GOAL_BYTES,
      pass: total <= FIRST_VISIT_GOAL_BYTES,
      totalBytes: total,
      responses: items.reduce((sum, i) => sum + i.requests, 0),
      controlled,
      offlineReadyMs,
      precache: { entries: manifest.length, bytes: manifestBytes },
      repeated: [...served.entries()].filter(([, e]) => e.withBody > 1).map(([p]) => p),
      items,
    };
    console.log(`first visit of ${root} (${origin}), service worker in control: ${controlled}`);
    printReport(report, before);
    mkdirSync(dirname(values.json), { recursive: true });
    // As Prettier writes it, so that `npm run check` passes on the committed results.
    const options = (await resolveConfig(values.json)) ?? {};
    writeFileSync(
      values.json,
      await format(JSON.stringify(report), { ...options, parser: 'json' }),
    );
    console.log(`written: ${values.json}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
