// The cost and scale views in headless Chromium: model-sizes, rnn-cost, head-cost and scale on
// the playground page and each alone in a plain page, with no console errors. Choosing GPT-3
// shows about 175B next to the published figure; moving the d_k slider changes the table; the
// numbers on screen are the core's (compared with the same calls made in Node).
import { beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';

const VIEWS = ['model-sizes', 'rnn-cost', 'head-cost', 'scale'];
const playground = usePlayground();
let ap;
beforeAll(async () => {
  ap = await load();
});
const open = (path) => playground.open(path);

// A plain page (no playground controller) holding only `body`: the widget files loaded as a
// course page would load them, served through the dev server so their imports resolve.
// Starts from about:blank (the page at / would start loading models, and leaving it aborts those requests).
function openAlone(body, scripts) {
  return playground.openHtml(
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>alone</title></head><body>${body}` +
      scripts.map((s) => `<script type="module" src="/components/${s}.js"></script>`).join('') +
      '</body></html>',
    { path: '/standalone-costs.html' },
  );
}

const rendered = (page, selector) =>
  page.waitForFunction((sel) => document.querySelector(sel)?.dataset.rendered !== undefined, selector, {
    timeout: 20000,
  });

describe('on the playground page', () => {
  test('each view renders from its #concept link with no console errors (screenshots)', async () => {
    const { page, errors } = await open('/#chapter=all');
    await page.locator('ap-controls #model option[value="grammar"]').waitFor({ state: 'attached' });
    for (const id of VIEWS) {
      await page.evaluate((c) => {
        location.hash = `concept=${c}`;
      }, id);
      const w = page.locator(`ap-${id}`);
      await w.scrollIntoViewIfNeeded();
      await rendered(page, `ap-${id}`);
      expect(await w.getAttribute('data-error'), id).toBeNull();
      await w.screenshot({ path: join(SCREENSHOT_DIR, `view-${id}.png`) });
    }
    expect(errors).toEqual([]);
  }, 90_000);

  test('model-sizes: the GPT-3 preset shows ~175B beside the published 175B; FFN vs attention shares', async () => {
    const { page, errors } = await open('/#concept=model-sizes');
    const w = page.locator('ap-model-sizes');
    await w.scrollIntoViewIfNeeded();
    await rendered(page, 'ap-model-sizes');
    // The default: the original transformer, 63.1M beside the published 65M (the gap explained).
    expect(Number(await w.getAttribute('data-total'))).toBe(63082496);
    expect(Number(await w.getAttribute('data-published'))).toBe(65e6);
    expect(await w.locator('.ms-note').textContent()).toMatch(/about 37000/);
    await w.locator('button[data-preset="gpt3"]').click();
    await expect.poll(() => w.getAttribute('data-total')).toBe(String(ap.parameterCount({ preset: 'gpt3' }).total));
    expect(await w.locator('.total').textContent()).toBe('174.60 B parameters');
    expect(Number(await w.getAttribute('data-published'))).toBe(175e9);
    expect(Math.abs(Number(await w.getAttribute('data-diff')))).toBeLessThan(0.01);
    expect(await w.locator('.ms-published').textContent()).toContain('175,000,000,000');
    // GPT-3 by hand: per layer the FFN has 8d² weights, attention 4d² (+ biases).
    expect(Number(await w.getAttribute('data-ffn-share'))).toBeCloseTo(0.664, 3);
    expect(Number(await w.getAttribute('data-attention-share'))).toBeCloseTo(0.332, 3);
    expect(await w.locator('.ms-stack i').count()).toBe(4); // embeddings, attention, FFN, norms (LM head tied)
    await w.screenshot({ path: join(SCREENSHOT_DIR, 'view-model-sizes-gpt3.png') });
    // BERT-base: 109.48M, 0.47% under 110M.
    await w.locator('button[data-preset="bert-base"]').click();
    await expect.poll(() => w.getAttribute('data-total')).toBe('109482240');
    // Editing an input recounts and drops the published comparison; a bad value is named.
    const dModel = w.locator('input[data-input="dModel"]');
    await dModel.fill('770');
    await expect
      .poll(() => w.locator('.ms-error').textContent())
      .toMatch(/d_model \(\d+\) is not divisible by n_heads/);
    await dModel.fill('1536');
    await expect
      .poll(() => w.getAttribute('data-total'))
      .toBe(
        String(
          ap.parameterCount({
            preset: 'bert-base',
            dModel: 1536,
          }).total,
        ),
      );
    expect(await w.getAttribute('data-published')).toBeNull();
    expect(errors).toEqual([]);
  });

  test('scale: moving the d_k slider changes the table; the spread follows sqrt(d_k)', async () => {
    const { page, errors } = await open('/#concept=scale');
    const w = page.locator('ap-scale');
    await w.scrollIntoViewIfNeeded();
    await rendered(page, 'ap-scale');
    await expect.poll(() => w.getAttribute('data-dk')).toBe('64');
    const before = await w.locator('.scale-exp table').textContent();
    const slider = w.locator('input[aria-label="d_k"]');
    await slider.fill('9'); // DKS[9] = 512
    await expect.poll(() => w.getAttribute('data-dk')).toBe('512');
    const after = await w.locator('.scale-exp table').textContent();
    expect(after).not.toBe(before);
    // The table shows the core's draws: the same call in Node gives the same numbers.
    const s = ap.scaleStats({ dK: 512, n: 8, draws: 200, seed: 1 });
    expect(await w.locator('td.unscaled-std').textContent()).toBe(s.unscaled.std.toFixed(1));
    expect(Math.abs(s.unscaled.std - 22.6)).toBeLessThan(1.2); // 200 draws: sampling error ~0.25
    expect(Number(await w.locator('td.scaled-std').textContent())).toBeCloseTo(s.scaled.std, 2);
    await slider.fill('0'); // d_k = 1
    await expect.poll(() => w.getAttribute('data-dk')).toBe('1');
    expect(Number(await w.getAttribute('data-unscaled-std'))).toBeLessThan(1.2);
    await slider.fill('9');
    await w.screenshot({ path: join(SCREENSHOT_DIR, 'view-scale-d512.png') });
    expect(errors).toEqual([]);
  });
});

describe('alone in a plain page', () => {
  test('<ap-model-sizes preset="gpt3"> shows ~175B; the others render with their attributes', async () => {
    const { page, errors } = await openAlone(
      '<ap-model-sizes preset="gpt3"></ap-model-sizes><ap-rnn-cost n="1024" d="256"></ap-rnn-cost>' +
        '<ap-head-cost n="256" d="512" h="16"></ap-head-cost><ap-scale dk="512"></ap-scale>',
      ['ap-model-sizes', 'ap-rnn-cost', 'ap-head-cost', 'ap-scale'],
    );
    for (const id of VIEWS) {
      const w = page.locator(`ap-${id}`);
      await w.scrollIntoViewIfNeeded();
      await rendered(page, `ap-${id}`);
      expect(await w.getAttribute('data-error'), id).toBeNull();
    }
    const ms = page.locator('ap-model-sizes');
    expect(await ms.getAttribute('data-total')).toBe('174604259328');
    expect(await ms.locator('.total').textContent()).toBe('174.60 B parameters');
    await ms.screenshot({ path: join(SCREENSHOT_DIR, 'view-model-sizes-alone.png') });

    // rnn-cost at n = 1024, d = 256: attention's n² part is 4x the RNN's (n / d), 1 step vs 1024.
    const rc = page.locator('ap-rnn-cost');
    const f = ap.flops({ n: 1024, d: 256 });
    expect(await rc.getAttribute('data-attention-flops')).toBe(String(f.attention.quadratic));
    expect(await rc.getAttribute('data-rnn-flops')).toBe(String(f.rnn.total));
    expect(f.attention.quadratic / f.rnn.total).toBe(4);
    expect(await rc.locator('.verdict').textContent()).toContain('4.0×');
    // Time both kernels in the page (numbers vary; the table must fill).
    await rc.locator('button.measure').click();
    await expect.poll(() => rc.getAttribute('data-measured'), { timeout: 30000 }).toBe('5');
    expect(await rc.locator('.timings tbody tr').count()).toBe(5);
    await rc.screenshot({ path: join(SCREENSHOT_DIR, 'view-rnn-cost-alone.png') });

    // head-cost: 16 heads of 32 cost what 1 head of 512 costs.
    const hc = page.locator('ap-head-cost');
    const g = ap.flops({ n: 256, d: 512, h: 16 });
    expect(await hc.getAttribute('data-flops')).toBe(`${g.attention.total}/${g.singleHead.total}`);
    expect(g.attention.total).toBe(g.singleHead.total);

    const sc = page.locator('ap-scale');
    expect(await sc.getAttribute('data-dk')).toBe('512');
    expect(await sc.locator('.sqrt-dk').count()).toBe(1);
    expect(errors).toEqual([]);
  }, 90_000);
});
