import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin } from 'vite';
import { pwaOptions } from './pwa.config.ts';

// Cross-origin isolation lets ONNX Runtime use WASM threads later; it also stops any third-party
// embed from loading, which is what we want anyway.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

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

export default defineConfig({
  // The service worker is built for production only (no SW in dev: devOptions.enabled is false).
  plugins: [svelte(), VitePWA(pwaOptions)],
  server: { port: 5173, strictPort: true, host: '127.0.0.1', headers: isolationHeaders },
  preview: { port: 4173, strictPort: true, host: '127.0.0.1', headers: isolationHeaders },
  worker: { format: 'es', plugins: () => [dropJiebaDefaultWasmUrl()] },
  build: { target: 'es2022' },
});
