import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defaultClientConditions } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin } from 'vite';
import { pwaOptions } from './pwa.config.ts';
import { contentSecurityPolicy } from './src/lib/llm/csp.ts';
import { precompressDir, precompressedFiles } from './src/lib/node/precompress.ts';
import {
  CONNECT_SRC_SETTING,
  connectSrcSources,
  parseConnectSrcSetting,
} from './src/lib/llm/hosts.ts';

// Cross-origin isolation lets ONNX Runtime use WASM threads; it also stops any third-party embed
// from loading, which is what we want anyway.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * `connect-src`: the built-in hosts (src/lib/llm/hosts.ts) plus SUMLENS_CONNECT_SRC, read when the
 * dev server starts or the build runs, e.g.
 * `SUMLENS_CONNECT_SRC="https://llm.corp.example http://192.168.1.20:8000" npm run build`.
 * A malformed entry stops the build with the reason (README → Self-hosting).
 */
export const CONNECT_SRC = connectSrcSources(
  parseConnectSrcSetting(process.env[CONNECT_SRC_SETTING]),
);

/** The policy as an HTTP header (with frame-ancestors), and as index.html's meta copy (without). */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy('header', CONNECT_SRC);
export const CONTENT_SECURITY_POLICY_META = contentSecurityPolicy('meta', CONNECT_SRC);

/** Sent by `vite` and `vite preview`; static hosts must send the same (README → Self-hosting). */
export const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  // frame-ancestors for browsers too old to know it.
  'X-Frame-Options': 'DENY',
};

/**
 * The headers every static host must send, in the `_headers` format Netlify and Cloudflare Pages
 * read (and for any other host to copy): written to dist/ by the build, so it always carries the
 * policy this build was made with, SUMLENS_CONNECT_SRC included.
 */
export function staticHostHeaders(): string {
  const headers = { ...isolationHeaders, ...SECURITY_HEADERS };
  const lines = Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`);
  return `/*\n${lines.join('\n')}\n`;
}

function emitStaticHostHeaders(): Plugin {
  return {
    name: 'sumlens:static-host-headers',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: staticHostHeaders() });
    },
  };
}

/** Reads a `_headers` file's `/*` block back (see staticHostHeaders). */
export function parseStaticHostHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s+([\w-]+):\s*(.*)$/u.exec(line);
    if (m?.[1] && m[2] !== undefined) headers[m[1]] = m[2];
  }
  return headers;
}

/**
 * `vite preview` serves dist/ with the headers its build wrote, as a static host would: a build
 * made with SUMLENS_CONNECT_SRC is previewed under its own policy whatever the environment says
 * now (a stale header would block the hosts the build allows).
 */
function previewBuiltHeaders(): Plugin {
  return {
    name: 'sumlens:preview-built-headers',
    config(config, env) {
      if (!env.isPreview) return;
      const file = resolve(
        config.root ?? process.cwd(),
        config.build?.outDir ?? 'dist',
        '_headers',
      );
      if (!existsSync(file)) return;
      return { preview: { headers: parseStaticHostHeaders(readFileSync(file, 'utf8')) } };
    },
  };
}

function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'sumlens:csp-meta',
    transformIndexHtml: (html) => html.replace('%SUMLENS_CSP%', CONTENT_SECURITY_POLICY_META),
  };
}

/**
 * jieba-wasm's glue code names its wasm by `new URL(..., import.meta.url)`, which makes Vite emit a
 * second 4 MB copy that is never fetched: the worker passes the copy that `npm run assets` puts in
 * public/vendor/jieba/. Dropping the default keeps one copy and no surprise request.
 */
function dropJiebaDefaultWasmUrl(): Plugin {
  return {
    name: 'sumlens:drop-jieba-default-wasm-url',
    transform(code, id) {
      if (!id.includes('jieba-wasm/pkg/web/jieba_rs_wasm.js')) return null;
      return code.replace("new URL('jieba_rs_wasm_bg.wasm', import.meta.url)", 'undefined');
    },
  };
}

/**
 * In dev, Vite treats a dynamic `import()` of a file under public/ as source (it appends `?import`
 * and refuses it), so ONNX Runtime could not load its glue from /vendor/ort/ and every model fell
 * back to the built-in backends. Serve those files as the static files they are, before Vite's
 * transform middleware sees them. (The build copies public/ verbatim; nothing to do there.)
 */
function serveOrtRawInDev(): Plugin {
  return {
    name: 'sumlens:serve-ort-raw-in-dev',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        if (!/^\/vendor\/ort\/[\w.-]+\.(mjs|wasm)$/u.test(path)) return next();
        const file = resolve(server.config.publicDir, `.${path}`);
        if (!existsSync(file)) return next();
        res.setHeader(
          'Content-Type',
          path.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8',
        );
        for (const [name, value] of Object.entries(isolationHeaders)) res.setHeader(name, value);
        createReadStream(file).pipe(res);
      });
    },
  };
}

/**
 * The GloVe vectors (5.8 MB, public/embeddings/glove-100d.bin) get a content hash in the build:
 * emitted as `assets/glove-100d-<hash>.bin`, a name workbox precaches without a cache-busting
 * revision query, so the service worker's install and the embedding worker's fetch at start are the
 * same URL and one download (the second is answered by the HTTP cache). The unhashed copy public/
 * puts in dist/ stays for other hosts' links but is not precached (pwa.config.ts).
 */
export const GLOVE_SOURCE = 'public/embeddings/glove-100d.bin';

export function gloveAssetName(bytes: Uint8Array): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  return `assets/glove-100d-${hash}.bin`;
}

function hashedGloveAsset(): Plugin {
  let bytes: Buffer | undefined;
  let fileName: string | undefined;
  return {
    name: 'sumlens:hashed-glove-asset',
    apply: 'build',
    config(config) {
      const file = resolve(config.root ?? process.cwd(), GLOVE_SOURCE);
      // No asset (`npm run assets` not run): the worker asks for the unhashed name and says so.
      if (!existsSync(file)) return;
      bytes = readFileSync(file);
      fileName = gloveAssetName(bytes);
      return { define: { __SUMLENS_GLOVE_PATH__: JSON.stringify(fileName) } };
    },
    generateBundle() {
      if (bytes && fileName) this.emitFile({ type: 'asset', fileName, source: bytes });
    },
  };
}

/**
 * Writes `.br` and `.gz` copies of the large binaries (ONNX Runtime's wasm above all: 14.3 MB as it
 * is, 2.7 MB as brotli) beside them in dist/, through a cache in `.cache/precompressed/` (see
 * src/lib/node/precompress.ts). Static hosts serve them with `gzip_static`/`brotli_static` or the
 * like (README, "Hosting offline"); `vite preview` with servePrecompressedInPreview.
 */
function precompressBinaries(): Plugin {
  let outDir = 'dist';
  let cacheDir = '.cache/precompressed';
  return {
    name: 'sumlens:precompress-binaries',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      cacheDir = resolve(config.root, '.cache/precompressed');
    },
    async closeBundle() {
      const started = Date.now();
      const done = await precompressDir(outDir, cacheDir);
      const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
      const raw = done.reduce((sum, f) => sum + f.bytes, 0);
      const br = done.reduce((sum, f) => sum + (f.encoded.br ?? f.bytes), 0);
      this.info(
        `precompressed ${done.length} files (${done.filter((f) => !f.cached).length} new): ${mb(raw)} MB → ${mb(br)} MB as brotli, in ${Date.now() - started} ms`,
      );
    },
  };
}

/**
 * `vite preview` compresses text on the fly but sends wasm and model binaries as they are: this
 * sends the build's compressed copies instead, with the same headers as every other file.
 */
function servePrecompressedInPreview(): Plugin {
  return {
    name: 'sumlens:preview-precompressed',
    configurePreviewServer(server) {
      const dist = resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use(precompressedFiles(dist, server.config.preview.headers ?? {}));
    },
  };
}

export default defineConfig({
  // The service worker is built for production only (no SW in dev: devOptions.enabled is false).
  plugins: [
    svelte(),
    contentSecurityPolicyMeta(),
    emitStaticHostHeaders(),
    previewBuiltHeaders(),
    serveOrtRawInDev(),
    hashedGloveAsset(),
    precompressBinaries(),
    servePrecompressedInPreview(),
    VitePWA(pwaOptions),
  ],
  resolve: {
    // onnxruntime-web's own switch for "load the wasm from env.wasm.wasmPaths": without it Vite
    // bundles the glue and emits a second, never-fetched 27 MB copy of the wasm into assets/. The
    // model workers point wasmPaths at /vendor/ort/ (copied there by `npm run assets`).
    conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions],
  },
  // The page reads the allowed list to warn before a request the policy would block.
  define: { __SUMLENS_CONNECT_SRC__: JSON.stringify(CONNECT_SRC) },
  server: {
    port: 5173,
    strictPort: true,
    host: '127.0.0.1',
    headers: { ...isolationHeaders, ...SECURITY_HEADERS },
  },
  preview: {
    port: 4173,
    strictPort: true,
    host: '127.0.0.1',
    headers: { ...isolationHeaders, ...SECURITY_HEADERS },
  },
  // Pre-bundled at start: discovered later (the model workers import it lazily), Vite would
  // re-optimise and reload the page under the user on their first model run.
  optimizeDeps: { include: ['@huggingface/transformers'] },
  worker: { format: 'es', plugins: () => [dropJiebaDefaultWasmUrl()] },
  build: { target: 'es2022' },
});
