// Vitest runs from the repo root (web/vite.config.js is for the page, whose root is web/):
// tests/wasm/ in Node against the real built module, tests/web/ driving headless Chromium.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { modelHeaders } from '../web/vite-model-headers.js';

export default defineConfig({
  // Node tests import the page's modules (web/lib/state.js -> models.js), which read the model
  // headers the build lists (virtual:ap-model-headers).
  plugins: [modelHeaders()],
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
