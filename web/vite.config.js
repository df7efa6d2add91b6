// Vite serves and bundles the page in web/. The page imports the wasm module's wrapper
// from ../wasm/, outside web/, so the dev server must be allowed to read the repo root.
// The emscripten glue finds its .wasm with new URL('ap_core.wasm', import.meta.url),
// a pattern Vite follows both in dev and when it bundles (the .wasm becomes an asset).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelHeaders } from './vite-model-headers.js';

// Absolute paths, so the config works whatever the current directory is.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const distDir = fileURLToPath(new URL('../dist', import.meta.url));
const WIDGET_ENTRY = fileURLToPath(new URL('./attention-playground.js', import.meta.url));
const PALETTE = fileURLToPath(new URL('./styles/palette.css', import.meta.url));

// The colour palette is written once, in styles/palette.css (a .light and a .dark block of
// --ap-<name>: <colour>; lines); a stylesheet gets it where it says /* @palette page */ (the
// page's :root, web/style.css) or /* @palette widget */ (a widget's :host, styles/widget.css).
const PALETTE_MARK = /\/\* @palette (page|widget) \*\//;

function readPalette() {
  const css = readFileSync(PALETTE, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const block = (scheme) => {
    const body = css.match(new RegExp(`\\.${scheme}\\s*\\{([^}]*)\\}`))?.[1];
    if (!body) throw new Error(`web/styles/palette.css: no .${scheme} block`);
    return Array.from(body.matchAll(/--ap-([\w-]+)\s*:\s*([^;]+);/g), ([, name, value]) => [name, value.trim()]);
  };
  const light = block('light');
  const dark = block('dark');
  if (light.map(([n]) => n).join() !== dark.map(([n]) => n).join()) {
    throw new Error('web/styles/palette.css: .light and .dark must name the same colours in the same order');
  }
  return { light, dark };
}

function paletteCss(target, { light, dark }) {
  const set = (list) => list.map(([n, v]) => `--ap-${n}: ${v};`).join(' ');
  if (target === 'page') {
    // The page's own colours, inherited by every widget on it: light, dark by the colour scheme
    // unless the theme toggle says light, dark when it says dark.
    return [
      `:root { color-scheme: light; ${set(light)} }`,
      `@media (prefers-color-scheme: dark) { :root:not([data-theme='light']) { color-scheme: dark; ${set(dark)} } }`,
      `:root[data-theme='dark'] { color-scheme: dark; ${set(dark)} }`,
    ].join('\n');
  }
  // A widget: --_<name> is the page's --ap-<name> if set, else the default of the colour scheme;
  // theme="light" / "dark" sets --ap-<name> itself (every element nested in it inherits it).
  const defaults = (list) => list.map(([n, v]) => `--_${n}: var(--ap-${n}, ${v});`).join(' ');
  return [
    `:host { ${defaults(light)} }`,
    `@media (prefers-color-scheme: dark) { :host { ${defaults(dark)} } }`,
    `:host([theme='light']) { color-scheme: light; ${set(light)} }`,
    `:host([theme='dark']) { color-scheme: dark; ${set(dark)} }`,
  ].join('\n');
}

/** Writes the palette into the stylesheets that ask for it (dev server and build alike). */
export function palette() {
  return {
    name: 'ap-palette',
    enforce: 'pre',
    transform(code, id) {
      if (!/\.css($|\?)/.test(id) || !PALETTE_MARK.test(code)) return null;
      this.addWatchFile(PALETTE);
      const colours = readPalette();
      return { code: code.replace(PALETTE_MARK, (_, target) => paletteCss(target, colours)), map: null };
    },
  };
}

// The built page imports the widget bundle from its own small entry (assets/index-*.js): without a
// hint the browser learns of the bundle only once that entry has arrived, one round trip later.
// A modulepreload in the page's head starts the bundle's download with the page's own.
function preloadWidgets() {
  return {
    name: 'ap-preload-widgets',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'link', attrs: { rel: 'modulepreload', href: './attention-playground.js' }, injectTo: 'head' },
    ],
  };
}

// Cross-origin isolation (COOP + COEP): the page may then share memory between threads
// (crossOriginIsolated, SharedArrayBuffer), and the trainer module and the pretrained models run on
// the threaded build (wasm/lib/load.js). Every resource of the page is its own origin's.
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: webRoot,
  publicDir: false,
  plugins: [modelHeaders(), palette(), preloadWidgets()],
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: false, // a busy port falls back to the next free one
    fs: { allow: [repoRoot] },
    headers: ISOLATION_HEADERS,
  },
  preview: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  // Pre-bundle the page's dependencies at start-up, so the first page load does not
  // discover them and reload (which a browser test would see as a flake).
  optimizeDeps: { include: ['d3-scale', 'd3-scale-chromatic', 'katex'] },
  // Relative URLs: the built page works from any folder of a static host.
  base: './',
  build: {
    outDir: distDir,
    emptyOutDir: true,
    target: 'es2022', // top-level await in the emscripten glue and the wrapper
    rollupOptions: {
      // The page loads the widget bundle a course page loads (dist/attention-playground.js, built
      // next to it by vite.widgets.config.js) instead of bundling a second copy of the widgets:
      // its own code is the learning path only. In dev, the import is served from source.
      external: [WIDGET_ENTRY],
      output: { paths: { [WIDGET_ENTRY]: './attention-playground.js' } },
    },
  },
});
