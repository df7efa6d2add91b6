// The widget library build: web/attention-playground.js (every <ap-*> element and the JS API)
// bundled into ONE ES module, dist/attention-playground.js, with everything it fetches (the wasm
// module, the relaxed-SIMD kernels, the trained models, KaTeX's fonts, the training worker) in
// dist/attention-playground/ next to it. base './' makes every such URL relative to the bundle
// (new URL(..., import.meta.url)), so the two can be copied to any folder of any static host.
// Not library mode: Vite's library mode inlines every asset as base64 (a 1.2 MB wasm in a string)
// and turns workers into blob: URLs, which a strict Content-Security-Policy refuses.
// The iframe embed (embed.html + embed.js), the anywidget module (anywidget.js; all plain files that
// import ./attention-playground.js) and the bundle's type declarations are copied beside it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelHeaders } from './vite-model-headers.js';
import { palette } from './vite.config.js';
import * as reserve from './lib/reserve.js';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const distDir = fileURLToPath(new URL('../dist', import.meta.url));
const COPIED = ['embed.html', 'embed.js', 'anywidget.js', 'attention-playground.d.ts'];
// The threaded module's glue stays a file of its own, never bundled: its pthread workers import it
// again by its own URL (import.meta.url), and it finds its .wasm and worker script beside it by their
// plain names. The bundle and the training worker import it from attention-playground/ap_mt.mjs.
const THREADED = fileURLToPath(new URL('../wasm/build/ap_mt.mjs', import.meta.url));
const THREADED_FILES = ['ap_mt.mjs', 'ap_mt.wasm', 'ap_mt.worker.js'];

export const WIDGET_BUNDLE = 'attention-playground.js';

// dist/attention-playground.css: a course page links it in <head> so that each <ap-*> element keeps
// the place it will take while the bundle is still loading (before the element is defined), as
// measured by tests/tools/reserve.mjs (lib/reserve.js); nothing below it jumps when it draws.
function reserveCss() {
  const lines = [
    '/* attention-playground.css: link it in <head>, next to the script tag of attention-playground.js.',
    '   Each widget keeps its place while the bundle loads, so the page does not jump when it draws. */',
    `:not(:defined) { --ap-reserve-text: ${reserve.RESERVE_TEXT_BOX ?? 0}px; }`,
    '[hide*="text"]:not(:defined) { --ap-reserve-text: 0px; }',
  ];
  const at = (i) =>
    Object.entries(reserve.RESERVE_ELEMENT ?? {}).map(
      ([tag, hs]) => `${tag}:not(:defined) { display: block; min-height: calc(${hs[i]}px + var(--ap-reserve-text)); }`,
    );
  // Widths: a phone, a narrow window or a course column, a wide page (RESERVE_WIDTHS: 343, 700, 1000).
  lines.push(...at(2));
  lines.push('ap-quiz[questions]:not(:defined) { min-height: 0 !important; } /* one question, not the whole quiz */');
  lines.push('@media (max-width: 900px) {', ...at(1).map((l) => `  ${l}`), '}');
  lines.push('@media (max-width: 520px) {', ...at(0).map((l) => `  ${l}`), '}');
  return `${lines.join('\n')}\n`;
}

export default defineConfig({
  root: webRoot,
  publicDir: false,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: distDir,
    emptyOutDir: false, // dist/ also holds the page (npm run build)
    target: 'es2022', // top-level await in the emscripten glue and the wrapper
    assetsInlineLimit: 0, // fonts, wasm and models stay files: fetched only when used
    chunkSizeWarningLimit: 1024,
    copyPublicDir: false,
    rollupOptions: {
      input: fileURLToPath(new URL('./attention-playground.js', import.meta.url)),
      preserveEntrySignatures: 'strict',
      external: [THREADED],
      output: {
        paths: { [THREADED]: './attention-playground/ap_mt.mjs' },
        codeSplitting: false, // one file: the Node-only branches of the glue stay inside it
        entryFileNames: WIDGET_BUNDLE,
        assetFileNames: 'attention-playground/[name]-[hash][extname]',
        chunkFileNames: 'attention-playground/[name]-[hash].js',
      },
    },
  },
  worker: {
    format: 'es',
    rollupOptions: {
      external: [THREADED],
      output: {
        paths: { [THREADED]: './attention-playground/ap_mt.mjs' }, // (rewritten relative to the worker's folder)
        entryFileNames: 'attention-playground/[name]-[hash].js',
        chunkFileNames: 'attention-playground/[name]-[hash].js',
        assetFileNames: 'attention-playground/[name]-[hash][extname]',
      },
    },
  },
  plugins: [
    modelHeaders(),
    palette(),
    {
      name: 'ap-threaded-module',
      apply: 'build',
      generateBundle() {
        for (const name of THREADED_FILES)
          this.emitFile({
            type: 'asset',
            fileName: `attention-playground/${name}`,
            source: readFileSync(fileURLToPath(new URL(`../wasm/build/${name}`, import.meta.url))),
          });
      },
    },
    {
      // The bundle's import of the threaded module, as an expression (the same URL, relative to the
      // bundle): a host that bundles the widgets again (Observable Framework's rollup of npm imports)
      // would otherwise try to split ap_mt.mjs into a chunk of its own, which Framework then cannot
      // find ("ENOENT ... ap_mt-<hash>.js"), and fail the whole build. Such hosts are not
      // cross-origin isolated, so they never load it.
      name: 'ap-threaded-import-by-url',
      apply: 'build',
      renderChunk(code) {
        const out = code.replace(
          /import\((['"`])((?:\.\.?\/)[^'"`]*ap_mt\.mjs)\1\)/g,
          (_, q, path) => `import(new URL(${q}${path}${q}, import.meta.url).href)`,
        );
        return out === code ? null : { code: out, map: null };
      },
    },
    {
      name: 'ap-copy-embed',
      apply: 'build',
      generateBundle() {
        for (const fileName of COPIED)
          this.emitFile({ type: 'asset', fileName, source: readFileSync(webRoot + fileName) });
        this.emitFile({ type: 'asset', fileName: 'attention-playground.css', source: reserveCss() });
      },
    },
  ],
});
