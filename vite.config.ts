import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Cross-origin isolation lets ONNX Runtime use WASM threads later; it also stops any third-party
// embed from loading, which is what we want anyway.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [svelte()],
  server: { port: 5173, strictPort: true, host: '127.0.0.1', headers: isolationHeaders },
  preview: { port: 4173, strictPort: true, host: '127.0.0.1', headers: isolationHeaders },
  worker: { format: 'es' },
  build: { target: 'es2022' },
});
