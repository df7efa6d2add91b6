// Issue 13: a page that does not train never fetches the trainer module. The widget bundle
// (dist/attention-playground.js, what a course page and the playground load) fetches ap_core.wasm
// (<= 450 KB); ap_train.wasm is fetched by the training worker when Train is pressed, and by a page
// that opens the English model (its tokenizer.json reader is in the second module), and only then
// (on a cross-origin-isolated page the training worker fetches the threaded module instead).
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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
  'a page that draws first-module models but does not train never fetches ap_train.wasm; pressing Train fetches it once',
  { timeout: 180_000 },
  async () => {
    // examples/csp.html with its scores on the grammar model (the default English model would
    // fetch the second module to read its tokenizer.json: the next test).
    const html = readFileSync(join(ROOT, 'examples', 'csp.html'), 'utf8')
      .replace('<ap-scores id="csp-scores" text=', '<ap-scores id="csp-scores" model="grammar" text=')
      .replaceAll('../dist/', '../../dist/');
    expect(html).toContain('model="grammar"');
    mkdirSync(join(ROOT, 'build', 'test-pages'), { recursive: true });
    writeFileSync(join(ROOT, 'build', 'test-pages', 'first-module.html'), html);
    const { page, errors, requests } = await site.open('build/test-pages/first-module.html');
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
    // The worker's trainer module: on this cross-origin-isolated server (COOP/COEP, as the examples'
    // server sends them) with more than one core, the threaded one (issue 27), else ap_train.
    const threaded = await page.evaluate(() => crossOriginIsolated && navigator.hardwareConcurrency > 1);
    expect(wasm().filter((f) => f.startsWith(threaded ? 'ap_mt' : 'ap_train-'))).toHaveLength(1);
    expect(wasm().filter((f) => f.startsWith(threaded ? 'ap_train-' : 'ap_mt'))).toEqual([]);
    expect(wasm().filter((f) => f.startsWith('ap_core-'))).toHaveLength(1); // the worker does not load the first module
    expect(errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
  },
);

test(
  'a page on the English model fetches the second module once, after the first, and draws',
  { timeout: 120_000 },
  async () => {
    const { page, errors, requests } = await site.open('examples/csp.html');
    const wasm = () => requests.filter((u) => u.endsWith('.wasm')).map((u) => new URL(u).pathname.split('/').pop());
    const w = page.locator('#csp-scores');
    await w.scrollIntoViewIfNeeded();
    await expect.poll(() => w.evaluate((e) => e.dataset.rendered !== undefined), { timeout: 60_000 }).toBe(true);
    expect(await w.evaluate((e) => e.dataset.error ?? '')).toBe('');
    const order = wasm().filter((f) => /^ap_(core|train)-/.test(f));
    expect(order.map((f) => f.split('-')[0])).toEqual(['ap_core', 'ap_train']);
    expect(errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
  },
);
