/** Serves the production build on a fixed port (IndexedDB is per origin, so the port must not move). */
import { preview } from 'vite';
import type { PreviewServer } from 'vite';
import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_PORT } from './browser.ts';

let server: PreviewServer | undefined;

export async function setup(): Promise<void> {
  const root = resolve(import.meta.dirname, '../../..');
  if (!existsSync(resolve(root, 'dist/index.html'))) {
    throw new Error('No build in dist/: run "npm run build" first (npm run test:e2e does).');
  }
  // The generated tiny models are self-hosted the way a user hosts real ones: under /models/ of
  // the built app. Copied here rather than into public/, so a production build never ships them.
  const models = resolve(root, 'tests/fixtures/models');
  if (!existsSync(resolve(models, 'sumlens-test/tiny-embedding/onnx/model.onnx'))) {
    throw new Error('No generated test models: run "npm run models:test" first (npm test does).');
  }
  cpSync(models, resolve(root, 'dist/models'), { recursive: true });
  server = await preview({
    root,
    logLevel: 'warn',
    preview: { port: APP_PORT, strictPort: true, host: '127.0.0.1' },
  });
}

export async function teardown(): Promise<void> {
  await server?.close();
}
