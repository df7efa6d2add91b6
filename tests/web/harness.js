// Browser test harness: a Vite dev server for web/ on a free port of 127.0.0.1 and
// Debian's headless Chromium driven by playwright-core. Each opened page records its
// console errors, uncaught exceptions and failed requests, so a test can assert none.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build, createServer, preview } from 'vite';
import { serveStatic } from '../tools/lib/static-server.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOT_DIR = join(ROOT, 'tests', 'web', 'screenshots');

// Root needs --no-sandbox; without the networking flags Chromium keeps calling hosts
// it cannot reach from here.
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// The Vite dev server (what `npm start` serves), or with `built: true` the output of
// `vite build` (what `npm run build` makes) built into a temporary folder and served
// as static files. port 0: the system picks a free port, so test files can run side by side.
async function startServer(built) {
  const configFile = join(ROOT, 'web', 'vite.config.js');
  if (!built) {
    // One pre-bundled-dependency cache per Vitest worker: two servers optimising into the
    // same folder at once can serve a page stale chunks (and a worker runs one file at a time).
    const cacheDir = join(ROOT, 'node_modules', '.vite', `web-test-${process.env.VITEST_POOL_ID ?? process.pid}`);
    const server = await createServer({
      configFile, cacheDir, logLevel: 'error',
      server: { port: 0, strictPort: true, hmr: false, watch: null },
    });
    await server.listen();
    return { url: server.resolvedUrls.local[0], close: () => server.close() };
  }
  // The page and, beside it, the widget bundle it loads (as npm run build makes dist/).
  const outDir = await mkdtemp(join(tmpdir(), 'ap-dist-'));
  await build({ configFile, logLevel: 'error', build: { outDir, emptyOutDir: true } });
  await build({ configFile: join(ROOT, 'web', 'vite.widgets.config.js'), logLevel: 'error', build: { outDir, emptyOutDir: false } });
  const server = await preview({
    configFile, logLevel: 'error', build: { outDir }, preview: { port: 0, strictPort: true },
  });
  return {
    url: server.resolvedUrls.local[0],
    close: async () => { await server.close(); await rm(outDir, { recursive: true, force: true }); },
  };
}

// Starts the server and the browser. Call close() in afterAll.
export async function startPlayground({ built = false } = {}) {
  return withBrowser(await startServer(built));
}

// Tests of the widget bundle (dist/attention-playground.js) need it built: `npm test` builds it.
export function requireBundle() {
  if (!existsSync(join(ROOT, 'dist', 'attention-playground.js'))) {
    throw new Error('dist/attention-playground.js is missing: `npm test` builds it (or `npm run build -- --widgets`)');
  }
}

// A folder served as any static host serves it (tests/tools/lib/static-server.mjs: pages named
// *csp*.html get the strict Content-Security-Policy header), with the same browser helpers.
export async function startStaticSite(root = ROOT) {
  return withBrowser(await serveStatic(root), { httpErrors: true });
}

async function withBrowser(server, { httpErrors = false } = {}) {
  const baseUrl = server.url;

  let browser;
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  } catch (err) {
    await server.close();
    throw err;
  }

  return {
    baseUrl,
    browser,

    // Opens `path` (relative to the served root) in a fresh context; `errors` fills up as things go wrong.
    async open(path = '/', { viewport = { width: 1100, height: 800 }, colorScheme } = {}) {
      const context = await browser.newContext({ viewport, colorScheme });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console error: ${msg.text()}`);
      });
      page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
      page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
      const requests = [];
      page.on('request', (req) => requests.push(req.headers().range ? `${req.url()} (${req.headers().range})` : req.url()));
      if (httpErrors) page.on('response', (res) => { if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`); });
      await page.goto(new URL(path, baseUrl).href);
      return { page, errors, requests };
    },

    // Saves a full-page PNG as tests/web/screenshots/<name>.png and returns its path.
    async screenshot(page, name) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },

    async close() {
      await browser.close();
      await server.close();
    },
  };
}
