// Vite serves and bundles the page in web/. The page imports the wasm module's wrapper
// from ../wasm/, outside web/, so the dev server must be allowed to read the repo root.
// The emscripten glue finds its .wasm with new URL('ap_core.wasm', import.meta.url),
// a pattern Vite follows both in dev and when it bundles (the .wasm becomes an asset).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Absolute paths, so the config works whatever the current directory is.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const distDir = fileURLToPath(new URL('../dist', import.meta.url));

export default defineConfig({
  root: webRoot,
  publicDir: false,
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: false,  // a busy port falls back to the next free one
    fs: { allow: [repoRoot] },
  },
  preview: { host: '127.0.0.1' },
  // Pre-bundle the page's dependencies at start-up, so the first page load does not
  // discover them and reload (which a browser test would see as a flake).
  optimizeDeps: { include: ['d3-scale', 'd3-scale-chromatic', 'katex'] },
  build: {
    outDir: distDir,
    emptyOutDir: true,
    target: 'es2022',  // top-level await in the emscripten glue and the wrapper
  },
});
