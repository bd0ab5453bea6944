import { defineConfig } from 'vitest/config';

// End-to-end tests: a built app served by `vite preview`, driven in Debian's Chromium through
// playwright-core. One file at a time: the machine has two cores and the pages run workers.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.spec.ts'],
    environment: 'node',
    globalSetup: ['tests/e2e/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // A poll waits on the page's state; one second (vitest's default) is how long a busy two-core
    // machine may take to start a worker or commit a transaction, so a poll without its own
    // timeout waits for as long as a person would.
    expect: { poll: { timeout: 30_000, interval: 100 } },
  },
});
