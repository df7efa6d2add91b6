// Where a value is undefined the page says so in words. The core never lets NaN out (a query
// whose keys are all masked gets weights of 0 by definition, tests/wasm/edge-cases.test.js);
// the heatmap that shows such a row explains it, and any NaN / +Infinity that reached a view
// would be drawn hatched with "?" and announced, never printed as a number.
import { expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const playground = usePlayground();

test("a query whose keys are all masked: weights shown as the core's zeros, with a message saying they are undefined", async () => {
  const { page, errors } = await playground.open('/#chapter=recap');
  await page.waitForFunction(() => document.querySelector('ap-stepper')?.dataset.rendered);
  // Real core output: 3 tokens, d = 2, identity projections, keys "b" and "c" masked as padding,
  // causal, so query "a" sees only "a"... and with "a" masked too, row "a" sees nothing.
  const result = await page.evaluate(`(async () => {
    const { getPlayground } = await import('/lib/module.js');
    const { matrix } = await import('/lib/heatmap.js');
    const ap = await getPlayground();
    const I = [1, 0, 0, 1];
    const t = ap.attention({ x: [1, 0, 0, 1, 1, 1], wq: I, wk: I, wv: I, wo: I, n: 3, dModel: 2, causal: true, keyPadding: [1, 0, 0] });
    const w = t.get('weights'), masked = t.get('masked');
    t.dispose();
    const m = matrix({ name: 'weights', title: 'weights', values: w, rows: 3, cols: 3, rowLabels: ['a', 'b', 'c'], colLabels: ['a', 'b', 'c'], kind: 'prob',
      masked: Uint8Array.from(masked, (v) => (v === -Infinity ? 1 : 0)) });
    const h = document.createElement('ap-heatmap');
    h.id = 'undef';
    document.body.prepend(h);
    h.matrix = m;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { w: Array.from(w), note: h.shadowRoot.querySelector('.hm-undefined').textContent, hidden: h.shadowRoot.querySelector('.hm-undefined').hidden, count: h.dataset.undefined };
  })()`);
  // Row a: its only visible key (a, by the causal mask) is padding -> all masked -> zeros.
  expect(result.w.slice(0, 3)).toEqual([0, 0, 0]);
  // Row b sees a (padding) and b: weight 1 on b. Row c sees b and c: both positive, summing to 1.
  expect(result.w.slice(3, 6)).toEqual([0, 1, 0]);
  expect(result.w[6]).toBe(0);
  expect(result.w[7] + result.w[8]).toBeCloseTo(1, 6);
  expect(result.w.every(Number.isFinite)).toBe(true);
  expect(result.hidden).toBe(false);
  expect(result.count).toBe('1');
  expect(result.note).toContain('Row "a": every key is masked');
  expect(result.note).toContain('undefined (0 / 0)');

  // A NaN that reached a heatmap is announced and drawn as "?", never as a number.
  const nan = await page.evaluate(`(async () => {
    const { matrix } = await import('/lib/heatmap.js');
    const h = document.getElementById('undef');
    h.matrix = matrix({ name: 'x', title: 'x', values: Float32Array.from([1, NaN, 2, Infinity]), rows: 2, cols: 2, kind: 'div' });
    await new Promise((r) => requestAnimationFrame(r));
    h.shadowRoot.querySelector('details').open = true;
    await new Promise((r) => setTimeout(r, 50));
    return { note: h.shadowRoot.querySelector('.hm-undefined').textContent, cells: [...h.shadowRoot.querySelectorAll('td')].map((td) => td.textContent) };
  })()`);
  expect(nan.note).toContain('2 values are undefined');
  expect(nan.cells).toContain('undefined');
  expect(nan.cells.join(' ')).not.toContain('NaN');
  await playground.screenshot(page, 'undefined-values');
  expect(errors).toEqual([]);
});
