// Vitest runs from the repo root (web/vite.config.js is for the page, whose root is web/):
// tests/wasm/ in Node against the real built module, tests/web/ driving headless Chromium.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['tests/wasm/**/*.test.js', 'tests/web/**/*.test.js'],
    environment: 'node',
    // Browser tests start a Vite server and Chromium; the 2-core machines are shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
