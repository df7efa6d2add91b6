// `npm run build` output: the bundled page, with the .wasm emitted as an asset, works
// when served as plain static files (no dev server, no access to wasm/ or node_modules/).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlayground } from './harness.js';

let playground;
beforeAll(async () => { playground = await startPlayground({ built: true }); });
afterAll(async () => { await playground?.close(); });

test('the built page loads its wasm and computes weights whose rows sum to 1', async () => {
  const { page, errors } = await playground.open('/');
  await page.locator('#text').fill('the cat sat');
  await page.waitForFunction(() => document.querySelector('table.weights')?.dataset.text === 'the cat sat');
  const rows = await page.$$eval('table.weights tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))));
  await playground.screenshot(page, 'build-page');

  expect(rows).toHaveLength(3);
  for (const row of rows) {
    expect(row).toHaveLength(3);
    expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
  }
  // The module came from the bundle's own assets, not from the source tree.
  const wasmUrls = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.endsWith('.wasm')));
  expect(wasmUrls).toHaveLength(1);
  expect(new URL(wasmUrls[0]).pathname).toMatch(/^\/assets\/ap_core-[\w-]+\.wasm$/);
  expect(errors).toEqual([]);
});
