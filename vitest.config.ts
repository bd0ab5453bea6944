import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  // Compiles the runes of src/lib/state/*.svelte.ts so that their controllers run in Node, as the
  // browser runs them (client output: signals that update, not the server's one-shot render).
  plugins: [svelte({ dynamicCompileOptions: () => ({ generate: 'client' }) })],
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    pool: 'threads',
  },
});
