// Issue 13: a page that does not train never fetches the trainer module. The widget bundle
// (dist/attention-playground.js, what a course page and the playground load) fetches ap_core.wasm
// (<= 450 KB); ap_train.wasm is fetched by the training worker when Train is pressed, and only then.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { ROOT, requireBundle, useStaticSite } from './harness.js';

beforeAll(requireBundle);
const site = useStaticSite(ROOT);

test('the bundle ships both modules as separate assets, the first at most 450 KB', () => {
  const assets = readdirSync(join(ROOT, 'dist', 'attention-playground'));
  const core = assets.filter((f) => /^ap_core-[\w-]+\.wasm$/.test(f));
  const train = assets.filter((f) => /^ap_train-[\w-]+\.wasm$/.test(f));
  expect(core).toHaveLength(1);
  expect(train).toHaveLength(1);
  expect(statSync(join(ROOT, 'dist', 'attention-playground', core[0])).size).toBeLessThanOrEqual(450 * 1024);
});

test(
  'a page that draws but does not train never fetches ap_train.wasm; pressing Train fetches it once',
  { timeout: 180_000 },
  async () => {
    const { page, errors, requests } = await site.open('examples/csp.html');
    const wasm = () => requests.filter((u) => u.endsWith('.wasm')).map((u) => new URL(u).pathname.split('/').pop());
    for (const id of ['#csp-softmax', '#csp-scores', '#csp-training']) {
      const w = page.locator(id);
      await w.scrollIntoViewIfNeeded();
      await expect
        .poll(() => w.evaluate((e) => e.dataset.rendered !== undefined || e.dataset.error !== undefined), {
          timeout: 60_000,
        })
        .toBe(true);
      expect(await w.evaluate((e) => e.dataset.error ?? '')).toBe('');
    }
    await page.waitForTimeout(500); // anything loaded lazily after drawing would have started by now
    expect(wasm().filter((f) => f.startsWith('ap_core-'))).toHaveLength(1);
    expect(wasm().filter((f) => f.startsWith('ap_train-'))).toEqual([]);
    const training = page.locator('#csp-training');
    await training
      .getByRole('button', { name: /start|train/i })
      .first()
      .click();
    await expect
      .poll(() => training.evaluate((w) => Number(w.dataset.step || 0)), { timeout: 120_000 })
      .toBeGreaterThan(0);
    expect(wasm().filter((f) => f.startsWith('ap_train-'))).toHaveLength(1);
    expect(wasm().filter((f) => f.startsWith('ap_core-'))).toHaveLength(1); // the worker does not load the first module
    expect(errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
  },
);
