import { createReadStream, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defaultClientConditions } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin } from 'vite';
import { pwaOptions } from './pwa.config.ts';

// Cross-origin isolation lets ONNX Runtime use WASM threads; it also stops any third-party embed
// from loading, which is what we want anyway.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The one Content-Security-Policy: the app's own files only, WASM compilation for ONNX Runtime and
 * jieba, and connections to the page itself, the model hub (huggingface.co redirects downloads to
 * its CDN hosts under hf.co), the known LLM provider APIs and loopback (a local hub mirror or LLM
 * server); nothing else, so even injected script could not send a key or a text elsewhere.
 * index.html carries it as a meta tag; the preview server also sends it as a header, because a
 * worker started from a URL does not inherit the page's meta policy (workers fetch the models).
 * Static hosts must send the header too (README).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  [
    "connect-src 'self'",
    // model hub downloads (only after consent)
    'https://huggingface.co https://*.huggingface.co https://*.hf.co',
    // the LLM providers the judge can call with the user's key
    'https://api.openai.com https://api.anthropic.com https://generativelanguage.googleapis.com',
    'https://openrouter.ai https://api.groq.com https://api.mistral.ai https://api.deepseek.com',
    // local OpenAI-compatible servers (Ollama, LM Studio, llama.cpp, vLLM) and local mirrors
    'http://127.0.0.1:* http://localhost:*',
  ].join(' '),
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'sumlens:csp-meta',
    transformIndexHtml: (html) => html.replace('%SUMLENS_CSP%', CONTENT_SECURITY_POLICY),
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

export default defineConfig({
  // The service worker is built for production only (no SW in dev: devOptions.enabled is false).
  plugins: [svelte(), contentSecurityPolicyMeta(), serveOrtRawInDev(), VitePWA(pwaOptions)],
  resolve: {
    // onnxruntime-web's own switch for "load the wasm from env.wasm.wasmPaths": without it Vite
    // bundles the glue and emits a second, never-fetched 27 MB copy of the wasm into assets/. The
    // model workers point wasmPaths at /vendor/ort/ (copied there by `npm run assets`).
    conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions],
  },
  server: { port: 5173, strictPort: true, host: '127.0.0.1', headers: isolationHeaders },
  preview: {
    port: 4173,
    strictPort: true,
    host: '127.0.0.1',
    headers: { ...isolationHeaders, 'Content-Security-Policy': CONTENT_SECURITY_POLICY },
  },
  // Pre-bundled at start: discovered later (the model workers import it lazily), Vite would
  // re-optimise and reload the page under the user on their first model run.
  optimizeDeps: { include: ['@huggingface/transformers'] },
  worker: { format: 'es', plugins: () => [dropJiebaDefaultWasmUrl()] },
  build: { target: 'es2022' },
});
