// Vitest globalSetup of the browser tests (tests/web/): one headless Chromium (a Playwright browser
// server), one Vite dev server of the page and one static server of the repo root, started once for
// the whole run instead of once per test file. Their addresses go to the test files with provide();
// tests/web/harness.js connects to them (inject) and gives each file its own browser contexts.
import { chromium } from 'playwright-core';
import { serveStatic } from '../tools/lib/static-server.mjs';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, startDevServer } from './harness.js';

export default async function setup(project) {
  const started = [];
  try {
    const [browserServer, dev, site] = await Promise.all([
      chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }).then((b) => {
        started.push(() => b.close());
        return b;
      }),
      startDevServer().then((s) => {
        started.push(s.close);
        return s;
      }),
      serveStatic(ROOT).then((s) => {
        started.push(s.close);
        return s;
      }),
    ]);
    project.provide('apBrowser', browserServer.wsEndpoint());
    project.provide('apDevUrl', dev.url);
    project.provide('apStaticUrl', site.url);
  } catch (err) {
    await Promise.allSettled(started.map((close) => close()));
    throw err;
  }
  return async () => {
    await Promise.allSettled(started.map((close) => close()));
  };
}
