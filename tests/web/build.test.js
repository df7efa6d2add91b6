// `npm run build` output: the bundled page, with the .wasm emitted as an asset, works
// when served as plain static files (no dev server, no access to wasm/ or node_modules/).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlayground } from './harness.js';

let playground;
beforeAll(async () => { playground = await startPlayground({ built: true }); });
afterAll(async () => { await playground?.close(); });

test('the built page loads its wasm and computes weights whose rows sum to 1', async () => {
  const { page, errors } = await playground.open('/?model=random&step=decoder:0:weights#chapter=recap');
  await page.locator('#text').fill('the cat sat');
  await page.waitForFunction(() => {
    const s = document.querySelector('ap-stepper');
    return s?.dataset.text === 'the cat sat' && s.dataset.stage === 'weights';
  });
  const out = page.locator('ap-stepper .out ap-heatmap');
  if (await out.locator('details[open]').count() === 0) await out.locator('summary').click();
  // the table alternative is built on the details' toggle event, which comes after the click
  // (locators pierce shadow roots, document.querySelector does not)
  await out.locator('table tbody tr').first().waitFor();
  const rows = await out.evaluate((h) => [...h.shadowRoot.querySelectorAll('tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))));
  await playground.screenshot(page, 'build-page');

  expect(rows).toHaveLength(3);
  for (const row of rows) {
    expect(row).toHaveLength(3);
    expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
  }
  // The module came from the bundle's own assets, not from the source tree.
  const wasmUrls = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.endsWith('.wasm')));
  const core = wasmUrls.filter((u) => /ap_core-/.test(u));
  expect(core).toHaveLength(1);
  expect(new URL(core[0]).pathname).toMatch(/^\/assets\/ap_core-[\w-]+\.wasm$/);
  // the relaxed-SIMD kernels (Chromium has relaxed SIMD) also come from the bundle's assets
  for (const u of wasmUrls) expect(new URL(u).pathname.startsWith('/assets/')).toBe(true);
  expect(errors).toEqual([]);
});
