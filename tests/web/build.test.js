// `npm run build` output: the bundled page, with the .wasm emitted as an asset, works
// when served as plain static files (no dev server, no access to wasm/ or node_modules/).
import { expect, test } from 'vitest';
import { ROOT, requireBundle, startStaticSite, usePlayground } from './harness.js';

const playground = usePlayground({ built: true });

test('the built page loads its wasm and computes weights whose rows sum to 1', async () => {
  const { page, errors } = await playground.open('/?model=random&step=decoder:0:weights#chapter=recap');
  await page.locator('#text').fill('the cat sat');
  await page.waitForFunction(() => {
    const s = document.querySelector('ap-stepper');
    return s?.dataset.text === 'the cat sat' && s.dataset.stage === 'weights';
  });
  const out = page.locator('ap-stepper .out ap-heatmap');
  if ((await out.locator('details[open]').count()) === 0) await out.locator('summary').click();
  // the table alternative is built on the details' toggle event, which comes after the click
  // (locators pierce shadow roots, document.querySelector does not)
  await out.locator('table tbody tr').first().waitFor();
  const rows = await out.evaluate((h) =>
    [...h.shadowRoot.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)),
    ),
  );
  await playground.screenshot(page, 'build-page');

  expect(rows).toHaveLength(3);
  for (const row of rows) {
    expect(row).toHaveLength(3);
    expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
  }
  // The page loads the widget bundle a course page loads (dist/attention-playground.js), and the
  // module came from that bundle's own folder, not from the source tree or a second copy.
  const urls = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
  expect(urls).toContain('/attention-playground.js');
  const scripts = urls.filter((u) => u.endsWith('.js'));
  const pageOwn = scripts.filter((u) => u.startsWith('/assets/'));
  expect(pageOwn).toHaveLength(1); // the learning path only
  const wasmUrls = urls.filter((u) => u.endsWith('.wasm'));
  const core = wasmUrls.filter((u) => /ap_core-/.test(u));
  expect(core).toHaveLength(1);
  expect(core[0]).toMatch(/^\/attention-playground\/ap_core-[\w-]+\.wasm$/);
  // the relaxed-SIMD kernels (Chromium has relaxed SIMD) also come from the bundle's folder
  for (const u of wasmUrls) expect(u.startsWith('/attention-playground/')).toBe(true);
  expect(errors).toEqual([]);
});

test('the built page lists its trained models from the build, fetching only the model it uses', async () => {
  const { page, errors, requests } = await playground.open('/?model=grammar#chapter=recap');
  // The picker offers every trained model (sort, reverse, dates, grammar) with its architecture,
  // as their headers say; the labels come from the list the build made (vite-model-headers.js).
  const select = page.locator('ap-controls select#model');
  await page.waitForFunction(() => {
    const c = document.querySelector('ap-controls');
    return [...(c?.shadowRoot?.querySelectorAll('option') || [])].some((o) => o.value === 'sort');
  });
  const labels = await select.evaluate((s) => [...s.options].map((o) => o.textContent));
  for (const name of ['sort', 'reverse', 'dates', 'grammar'])
    expect(labels.some((l) => l.startsWith(`trained: ${name} (`))).toBe(true);
  expect(labels).toContain('trained: grammar (decoder)');
  await page.waitForFunction(() => document.querySelector('ap-stepper')?.dataset.rendered !== undefined);
  // No model file was read for its header (no byte ranges); the one model the recap uses was fetched whole.
  const models = requests.filter((r) => r.includes('.safetensors'));
  expect(models.filter((r) => r.includes('(bytes='))).toEqual([]);
  expect(models.map((r) => new URL(r).pathname.replace(/^.*\/|-[\w-]+\.safetensors$/g, ''))).toEqual(['grammar']);
  expect(errors).toEqual([]);
});

test('the built page with no model chosen runs the English decoder: its file, its head roles and the second module, once each', async () => {
  const { page, errors, requests } = await playground.open('/#chapter=recap');
  await expect.poll(() => page.locator('ap-controls select#model').inputValue()).toBe('english');
  await page.waitForFunction(() => document.querySelector('ap-stepper')?.dataset.rendered !== undefined);
  const names = (ext) =>
    requests
      .filter((r) => new URL(r).pathname.endsWith(ext))
      .map((r) => new URL(r).pathname.replace(/^.*\/|-[\w-]+\.(safetensors|json|wasm)$/g, ''));
  expect(names('.safetensors')).toEqual(['english']);
  // Its measured head roles come with it (the heads view names each head from them).
  expect(requests.filter((r) => /\/english\.heads-[\w-]+\.json$/.test(new URL(r).pathname))).toHaveLength(1);
  // The English model's tokenizer.json is read by the second module (ap_train), fetched once.
  expect(names('.wasm').filter((n) => n === 'ap_train')).toHaveLength(1);
  expect(errors).toEqual([]);
});

// Layout shift as Lighthouse scores it (the sum of the page's layout-shift entries without recent
// input), read from the browser's own PerformanceObserver: a layout figure, not a timing. Every view
// reserves its height before it draws (lib/reserve.js); a view whose layout changed a lot since
// tests/tools/reserve.mjs last measured it makes the text below it jump, and this fails.
async function layoutShift(page) {
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('[data-concept], ap-stepper')]
        .filter((e) => e.getBoundingClientRect().top < innerHeight)
        .every((e) => e.dataset.rendered !== undefined),
    null,
    { timeout: 90_000 }, // at 8 Mbit/s: the second module and the 2.8 MB English model, about 4 s
  );
  await page.waitForTimeout(500); // let a second drawing pass (views that finish in two) happen
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        new PerformanceObserver((list) =>
          resolve(
            list
              .getEntries()
              .filter((e) => !e.hadRecentInput)
              .map((e) => ({ value: e.value, nodes: e.sources.map((s) => s.node?.nodeName || '?').join(' ') })),
          ),
        ).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve([]), 1000);
      }),
  );
}

// A slow network, so the module and the models arrive after the page's first paint, as they do for
// a visitor: on localhost they would arrive before it. 8 Mbit/s with 150 ms of latency: every file
// still comes seconds after the first paint (what the layout-shift figure needs); Lighthouse's
// mobile preset (1.6 Mbit/s) made each page wait 25 s for the same shifts.
async function openSlow(site, path, viewport) {
  const context = await site.browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console error: ${msg.text()}`);
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: 8e6 / 8,
    uploadThroughput: 750e3 / 8,
  });
  await page.goto(new URL(path, site.baseUrl).href);
  return { page, errors };
}

// The two widths run side by side: each mostly waits for its throttled network (each page has its own).
for (const [width, height] of [
  [1350, 940],
  [412, 823],
]) {
  test.concurrent(
    `the built page and a course page do not jump while they load (${width} px wide, slow network)`,
    async ({ expect }) => {
      requireBundle();
      const course = await startStaticSite(ROOT); // examples/course.html loads dist/attention-playground.js
      try {
        for (const [site, path] of [
          [playground, '/#chapter=A'],
          [playground, '/#chapter=recap'],
          [course, '/examples/course.html'],
        ]) {
          const { page, errors } = await openSlow(site, path, { width, height });
          if (path.endsWith('recap') && width > 1000) {
            // While the English model comes, the stepper says so, and how far it has come (at
            // 1350 px the stepper is on the first screen; a view below it waits to be seen).
            const status = () =>
              page.locator('ap-stepper').evaluate((w) => w.shadowRoot.querySelector('[role="status"]')?.textContent);
            await expect
              .poll(status, { timeout: 30_000, intervals: [100] })
              .toMatch(/^Loading the english model: \d+\.\d( of 2\.7)? MB…$/);
          }
          const shifts = await layoutShift(page);
          const total = shifts.reduce((sum, e) => sum + e.value, 0);
          expect(total, `${path}: ${JSON.stringify(shifts)}`).toBeLessThanOrEqual(0.02);
          expect(errors).toEqual([]);
          await page.context().close();
        }
      } finally {
        await course.close();
      }
    },
    240_000,
  );
}
