import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The model benchmark's own build (bench/models/index.html + its worker), kept apart from the
 * app's: output in .cache/ (gitignored), no public/ copy; run.ts's server adds the ONNX Runtime
 * files and the models.
 */
const here = dirname(fileURLToPath(import.meta.url));
const benchBuildDir = resolve(here, '../../.cache/bench-models-build');

// On a busy machine Rolldown warns that plugins were slow: noise for a benchmark of the models.
const rolldownOptions = { checks: { bundlerTimings: false } };

export default defineConfig({
  root: here,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  worker: { format: 'es', rolldownOptions },
  build: {
    outDir: benchBuildDir,
    emptyOutDir: true,
    target: 'es2022',
    // transformers.js is one large chunk by design; the warning would be noise here.
    chunkSizeWarningLimit: 4096,
    reportCompressedSize: false,
    rolldownOptions,
  },
});
