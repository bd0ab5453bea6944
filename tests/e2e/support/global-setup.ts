/**
 * Serves the production build for the e2e specs on a loopback port the OS picks, so a
 * `npm run preview` (port 4173) or another checkout's suite can run beside it; SUMLENS_E2E_PORT
 * pins the port instead. The specs read the origin with `appOrigin()` (support/app-origin.ts).
 * Storage is per origin, so a new port is a clean profile: every spec opens its own context
 * anyway, and none relies on what an earlier run stored.
 */
import { preview } from 'vite';
import type { PreviewServer } from 'vite';
import type { TestProject } from 'vitest/node';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_ORIGIN_KEY } from './app-origin.ts';

let server: PreviewServer | undefined;

/** The port asked for: SUMLENS_E2E_PORT, or 0 (vite binds a free one and keeps it bound). */
function requestedPort(): number {
  const pinned = process.env.SUMLENS_E2E_PORT;
  if (pinned === undefined || pinned === '') return 0;
  const port = Number(pinned);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new Error(`SUMLENS_E2E_PORT must be a port number, not "${pinned}"`);
  }
  return port;
}

export async function setup(project: TestProject): Promise<void> {
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
  // Port 0 rather than a port probed free beforehand: the server binds the port it is given, so
  // nothing can take it between the choice and the bind.
  server = await preview({
    root,
    logLevel: 'warn',
    preview: { port: requestedPort(), strictPort: true, host: '127.0.0.1' },
  });
  const address = server.httpServer.address() as AddressInfo | null;
  if (!address) throw new Error('vite preview is not listening');
  project.provide(APP_ORIGIN_KEY, `http://127.0.0.1:${address.port}`);
}

export async function teardown(): Promise<void> {
  await server?.close();
}
