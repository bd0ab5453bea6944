/** Serves the production build on a fixed port (IndexedDB is per origin, so the port must not move). */
import { preview } from 'vite';
import type { PreviewServer } from 'vite';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_PORT } from './browser.ts';

let server: PreviewServer | undefined;

export async function setup(): Promise<void> {
  const root = resolve(import.meta.dirname, '../../..');
  if (!existsSync(resolve(root, 'dist/index.html'))) {
    throw new Error('No build in dist/: run "npm run build" first (npm run test:e2e does).');
  }
  server = await preview({
    root,
    logLevel: 'warn',
    preview: { port: APP_PORT, strictPort: true, host: '127.0.0.1' },
  });
}

export async function teardown(): Promise<void> {
  await server?.close();
}
