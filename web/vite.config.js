// Vite serves and bundles the page in web/. The page imports the wasm module's wrapper
// from ../wasm/, outside web/, so the dev server must be allowed to read the repo root.
// The emscripten glue finds its .wasm with new URL('ap_core.wasm', import.meta.url),
// a pattern Vite follows both in dev and when it bundles (the .wasm becomes an asset).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelHeaders } from './vite-model-headers.js';

// Absolute paths, so the config works whatever the current directory is.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const distDir = fileURLToPath(new URL('../dist', import.meta.url));
const WIDGET_ENTRY = fileURLToPath(new URL('./attention-playground.js', import.meta.url));

export default defineConfig({
  root: webRoot,
  publicDir: false,
  plugins: [modelHeaders()],
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
  // Relative URLs: the built page works from any folder of a static host.
  base: './',
  build: {
    outDir: distDir,
    emptyOutDir: true,
    target: 'es2022',  // top-level await in the emscripten glue and the wrapper
    rollupOptions: {
      // The page loads the widget bundle a course page loads (dist/attention-playground.js, built
      // next to it by vite.widgets.config.js) instead of bundling a second copy of the widgets:
      // its own code is the learning path only. In dev, the import is served from source.
      external: [WIDGET_ENTRY],
      output: { paths: { [WIDGET_ENTRY]: './attention-playground.js' } },
    },
  },
});
