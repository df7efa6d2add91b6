// In Chromium (which runs relaxed SIMD) the wasm module switches to the fused-multiply-add
// kernels, and their results equal the lecture numbers and the SIMD128 results computed in Node.
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { usePlayground } from './harness.js';

const wrapper = '/@fs' + fileURLToPath(new URL('../../wasm/index.js', import.meta.url));
const playground = usePlayground();
let ap;
beforeAll(async () => {
  ap = await load();
});

test('Chromium loads the relaxed-SIMD kernels and they agree with SIMD128 in Node', async () => {
  const { page, errors } = await playground.open('/');
  const n = 200,
    d = 64;
  // A string, so Vitest does not rewrite the dynamic import meant for the browser.
  const result = await page.evaluate(`(async () => {
    const { load } = await import(${JSON.stringify(wrapper)});
    const ap = await load();
    const n = ${n}, d = ${d};
    const make = (f) => Float32Array.from({ length: n * d }, (_, i) => f(i));
    const q = make((i) => Math.sin(i)), k = make((i) => Math.cos(0.7 * i)), v = make((i) => Math.sin(0.3 * i));
    const out = ap.kernels.attention({ q, k, v, n, dK: d, causal: true });
    const t = ap.presets.run('softmax.thinking-machines');
    return { variant: ap.kernels.info().variant, out: Array.from(out), tm: Array.from(t.get('weights', { head: 0 })) };
  })()`);
  expect(result.variant).toBe('relaxed');
  expect(result.tm[0].toFixed(2)).toBe('0.88');
  expect(result.tm[1].toFixed(2)).toBe('0.12');
  const make = (f) => Float32Array.from({ length: n * d }, (_, i) => f(i));
  const ours = ap.kernels.attention({
    q: make((i) => Math.sin(i)),
    k: make((i) => Math.cos(0.7 * i)),
    v: make((i) => Math.sin(0.3 * i)),
    n,
    dK: d,
    causal: true,
  });
  expect(ap.kernels.info().variant).toBe('simd128');
  let worst = 0;
  for (let i = 0; i < ours.length; i++)
    worst = Math.max(worst, Math.abs(ours[i] - result.out[i]) / Math.max(1, Math.abs(ours[i])));
  expect(worst).toBeLessThanOrEqual(1e-5);
  expect(errors).toEqual([]);
});
