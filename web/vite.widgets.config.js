// The widget library build: web/attention-playground.js (every <ap-*> element and the JS API)
// bundled into ONE ES module, dist/attention-playground.js, with everything it fetches (the wasm
// module, the relaxed-SIMD kernels, the trained models, KaTeX's fonts, the training worker) in
// dist/attention-playground/ next to it. base './' makes every such URL relative to the bundle
// (new URL(..., import.meta.url)), so the two can be copied to any folder of any static host.
// Not library mode: Vite's library mode inlines every asset as base64 (a 1.2 MB wasm in a string)
// and turns workers into blob: URLs, which a strict Content-Security-Policy refuses.
// The iframe embed (embed.html + embed.js, plain files that import ./attention-playground.js) and
// the bundle's type declarations are copied beside it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelHeaders } from './vite-model-headers.js';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const distDir = fileURLToPath(new URL('../dist', import.meta.url));
const COPIED = ['embed.html', 'embed.js', 'attention-playground.d.ts'];

export const WIDGET_BUNDLE = 'attention-playground.js';

export default defineConfig({
  root: webRoot,
  publicDir: false,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: distDir,
    emptyOutDir: false,        // dist/ also holds the page (npm run build)
    target: 'es2022',          // top-level await in the emscripten glue and the wrapper
    assetsInlineLimit: 0,      // fonts, wasm and models stay files: fetched only when used
    chunkSizeWarningLimit: 1024,
    copyPublicDir: false,
    rollupOptions: {
      input: fileURLToPath(new URL('./attention-playground.js', import.meta.url)),
      preserveEntrySignatures: 'strict',
      output: {
        codeSplitting: false,  // one file: the Node-only branches of the glue stay inside it
        entryFileNames: WIDGET_BUNDLE,
        assetFileNames: 'attention-playground/[name]-[hash][extname]',
        chunkFileNames: 'attention-playground/[name]-[hash].js',
      },
    },
  },
  worker: {
    format: 'es',
    rollupOptions: { output: { entryFileNames: 'attention-playground/[name]-[hash].js', chunkFileNames: 'attention-playground/[name]-[hash].js', assetFileNames: 'attention-playground/[name]-[hash][extname]' } },
  },
  plugins: [modelHeaders(), {
    name: 'ap-copy-embed',
    apply: 'build',
    generateBundle() {
      for (const fileName of COPIED) this.emitFile({ type: 'asset', fileName, source: readFileSync(webRoot + fileName) });
    },
  }],
});
