// Browser test harness: Debian's headless Chromium driven by playwright-core, against the page
// served by a Vite dev server (web/, what `npm start` serves), the page as `npm run build` makes it,
// or a folder served as plain static files. Each opened page records its console errors, uncaught
// exceptions and failed requests, so a test can assert none.
//
// Under Vitest, one Chromium, one dev server and one static server of the repo are shared by every
// browser test file (tests/web/global-setup.js starts them once and hands their addresses over with
// provide/inject); each file connects to that Chromium and opens every page in a fresh context of
// its own, so tests stay isolated. Outside Vitest (tests/bench/page-speed.mjs) the harness starts
// its own.
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../tools/lib/chromium.mjs';
import { serveStatic } from '../tools/lib/static-server.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOT_DIR = join(ROOT, 'tests', 'web', 'screenshots');
const DIST = join(ROOT, 'dist');

// Debian's Chromium and the flags it is launched with (shared with tests/tools/).
export { CHROMIUM, CHROMIUM_ARGS };

// Vitest's API inside a test file (null outside Vitest, e.g. tests/bench/page-speed.mjs), and what
// tests/web/global-setup.js provided.
const vitest = process.env.VITEST ? await import('vitest') : null;
const shared = (key) => vitest?.inject(key);

/**
 * The Vite dev server (what `npm start` serves) on a free port of 127.0.0.1. Returns { url, close() }.
 * Started once per Vitest run by global-setup.js.
 */
export async function startDevServer() {
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: join(ROOT, 'web', 'vite.config.js'),
    cacheDir: join(ROOT, 'node_modules', '.vite', 'web-test'),
    logLevel: 'error',
    server: { port: 0, strictPort: true, hmr: false, watch: null },
  });
  await server.listen();
  return { url: server.resolvedUrls.local[0], close: () => server.close() };
}

// `npm run build`'s dist/ in a temporary folder, served as static files: the page built by Vite
// here, beside the widget bundle `npm test` has built into dist/ already (reused, not rebuilt).
async function startBuiltSite() {
  requireBundle();
  const outDir = await mkdtemp(join(tmpdir(), 'ap-dist-'));
  try {
    // Everything of dist/ but the page's own files (index.html, assets/): the widget bundle and its folder.
    for (const name of readdirSync(DIST)) {
      if (name !== 'index.html' && name !== 'assets')
        await cp(join(DIST, name), join(outDir, name), { recursive: true });
    }
    const { build } = await import('vite');
    await build({
      configFile: join(ROOT, 'web', 'vite.config.js'),
      logLevel: 'error',
      build: { outDir, emptyOutDir: false },
    });
    const server = await serveStatic(outDir);
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await rm(outDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(outDir, { recursive: true, force: true });
    throw err;
  }
}

// Connects to the shared Chromium, or launches one (outside Vitest). close() of a connected
// browser closes the contexts this file made and disconnects; the browser goes on for the others.
async function browser() {
  const ws = shared('apBrowser');
  if (ws) return chromium.connect(ws);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * The usual hooks of a browser test file, registered here once instead of in every file: the site
 * starts in beforeAll, every page opened during a test is closed (its context) after the test, and
 * the site closes in afterAll. Returns a handle with the site's open(), openHtml(), openAlone(),
 * screenshot(), baseUrl and browser, usable from beforeAll on. usePlayground(options) is startPlayground's, useStaticSite(root)
 * startStaticSite's.
 */
export const usePlayground = (options) => useSite(() => startPlayground(options));
export const useStaticSite = (root) => useSite(() => startStaticSite(root));

function useSite(start) {
  let site = null;
  const ready = () => {
    if (!site) throw new Error('the site starts in beforeAll: use it in a test or a hook');
    return site;
  };
  vitest.beforeAll(async () => {
    site = await start();
  });
  vitest.afterEach(() => site?.closePages());
  vitest.afterAll(async () => {
    await site?.close();
    site = null;
  });
  return {
    get baseUrl() {
      return ready().baseUrl;
    },
    get browser() {
      return ready().browser;
    },
    open: (...args) => ready().open(...args),
    openHtml: (...args) => ready().openHtml(...args),
    openAlone: (...args) => ready().openAlone(...args),
    screenshot: (...args) => ready().screenshot(...args),
  };
}

/**
 * The playground page from the shared dev server, or with `built: true` as `npm run build` makes it.
 * Call close() in afterAll (usePlayground does).
 */
export async function startPlayground({ built = false } = {}) {
  if (built) return withBrowser(await startBuiltSite());
  const url = shared('apDevUrl');
  return withBrowser(url ? { url, close: async () => {} } : await startDevServer());
}

// The bytes of a Playwright download. download.path() is not available from a browser the test
// connected to (the shared one), a stream is.
export async function downloadedBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// Tests of the widget bundle (dist/attention-playground.js) need it built: `npm test` builds it.
export function requireBundle() {
  if (!existsSync(join(DIST, 'attention-playground.js'))) {
    throw new Error('dist/attention-playground.js is missing: `npm test` builds it (or `npm run build -- --widgets`)');
  }
}

// A folder served as any static host serves it (tests/tools/lib/static-server.mjs: pages named
// *csp*.html get the strict Content-Security-Policy header), with the same browser helpers.
// The repo root is the shared server's; another folder gets a server of its own.
export async function startStaticSite(root = ROOT) {
  const url = root === ROOT ? shared('apStaticUrl') : undefined;
  return withBrowser(url ? { url, close: async () => {} } : await serveStatic(root), { httpErrors: true });
}

async function withBrowser(server, { httpErrors = false } = {}) {
  const baseUrl = server.url;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const contexts = []; // opened since the last closePages()

  let b;
  try {
    b = await browser();
  } catch (err) {
    await server.close();
    throw err;
  }

  const site = {
    baseUrl,
    browser: b,

    // Opens `path` (relative to the served root) in a fresh context; `errors` fills up as things go wrong,
    // `warnings` with the page's console warnings.
    // `initScript` runs in the page before any of its own scripts (e.g. to block its storage).
    async open(path = '/', { viewport = { width: 1100, height: 800 }, colorScheme, initScript } = {}) {
      const context = await b.newContext({ viewport, colorScheme });
      contexts.push(context);
      if (initScript) await context.addInitScript(initScript);
      const page = await context.newPage();
      const errors = [];
      const warnings = []; // console.warn texts (a widget's clamped or ignored attribute, ...)
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console error: ${msg.text()}`);
        else if (msg.type() === 'warning') warnings.push(msg.text());
      });
      page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
      page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
      const requests = [];
      page.on('request', (req) =>
        requests.push(req.headers().range ? `${req.url()} (${req.headers().range})` : req.url()),
      );
      if (httpErrors)
        page.on('response', (res) => {
          if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
        });
      await page.goto(new URL(path, baseUrl).href);
      return { page, errors, warnings, requests };
    },

    // Opens `html` as a page of the served origin (a route answers `path`; no file is written), so
    // its module imports (/components/ap-*.js) resolve as the page's own do. Starts from about:blank.
    async openHtml(html, { path = '/alone.html', ...options } = {}) {
      const opened = await site.open('about:blank', options);
      const url = new URL(path, baseUrl).href;
      await opened.page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
      await opened.page.goto(url);
      return opened;
    },

    // One element alone in a plain page, its own module the only script, once it has drawn
    // (data-rendered). `style` and `head` go into the page's <head>.
    async openAlone(tag, attrs = {}, { style = '', head = '', timeout = 30_000, ...options } = {}) {
      const attrText = Object.entries(attrs)
        .map(([k, v]) => ` ${k}="${String(v).replace(/"/g, '&quot;')}"`)
        .join('');
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}<title>${tag}</title><link rel="icon" href="data:,">
<style>${style}</style>
<script type="module" src="/components/${tag}.js"></script></head>
<body><${tag}${attrText}></${tag}></body></html>`;
      const { page, errors } = await site.openHtml(html, options);
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout });
      return { page, errors, widget: page.locator(tag) };
    },

    // Saves a full-page PNG as tests/web/screenshots/<name>.png and returns its path.
    async screenshot(page, name) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },

    // Closes every page open() opened so far (a test may have closed some already).
    async closePages() {
      while (contexts.length)
        await contexts
          .pop()
          .close()
          .catch(() => {});
    },

    async close() {
      await b.close();
      await server.close();
    },
  };
  return site;
}

/**
 * Opens `path` on `site` (usePlayground's handle) at `viewport` and waits until the view `tag` has
 * drawn (a view draws once near the window). `media`: page.emulateMedia options, set before it draws.
 */
export async function openView(site, path, tag, viewport, media = null) {
  const opened = await site.open(path, { viewport });
  const { page } = opened;
  if (media) await page.emulateMedia(media);
  await page.waitForSelector(tag);
  await page.locator(tag).scrollIntoViewIfNeeded();
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60_000 });
  return opened;
}
