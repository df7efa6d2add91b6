// Issue 27 item 1 in Chromium: on a cross-origin-isolated page (COOP + COEP, as `npm start` serves
// the playground) the threaded module loads, its pool has the threads asked for, and its numbers
// are the single-thread module's bit for bit (attention big enough to be split, a PyTorch
// fixture, GPT-2 tiny's greedy ids from PyTorch). Without isolation everything stays on one thread
// and says why; the playground's footer says which it is.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { usePlayground } from './harness.js';
import { loadFixture } from '../wasm/fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const wrapper = '/@fs' + ROOT + 'wasm/index.js';
const playground = usePlayground();
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// A blank page of the dev server's origin, with or without the isolation headers.
async function blankPage(isolated) {
  const opened = await playground.open('about:blank');
  const url = new URL('/threads-blank.html', playground.baseUrl).href;
  await opened.page.route(url, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      headers: isolated ? ISOLATION : {},
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>threads</title></head><body></body></html>',
    }),
  );
  await opened.page.goto(url);
  return opened;
}

test('a cross-origin-isolated page: the threaded module, the same numbers as one thread', async () => {
  const { page, errors } = await blankPage(true);
  const fx = loadFixture('attention_multi_head');
  const result = await page.evaluate(`(async () => {
    const { load, loadTrainer, threadPlan } = await import(${JSON.stringify(wrapper)});
    const fx = ${JSON.stringify(fx)};
    const one = await loadTrainer({ threads: 1, relaxed: false });
    const mt = await load({ threads: 2 });
    const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
    // Attention the core splits over threads (query blocks), causal and not.
    const n = 512, dK = 64;
    const make = (f) => Float32Array.from({ length: n * dK }, (_, i) => f(i));
    const q = make((i) => Math.sin(i)), k = make((i) => Math.cos(0.7 * i)), v = make((i) => Math.sin(0.3 * i));
    const kernels = [false, true].map((causal) =>
      same(mt.kernels.attention({ q, k, v, n, dK, causal }), one.kernels.attention({ q, k, v, n, dK, causal })));
    // A PyTorch fixture through the traced attention: every stage.
    const arr = (t) => Float32Array.from(t.data, (x) => (x === null ? -Infinity : x));
    const p = fx.params, w = fx.weights;
    const opts = { x: arr(fx.inputs.x), n: p.n, dModel: p.d_model, nHeads: p.n_heads, causal: !!p.causal,
      wq: arr(w.wq), wk: arr(w.wk), wv: arr(w.wv), wo: arr(w.wo) };
    if (w.bq) for (const b of ['bq', 'bk', 'bv', 'bo']) opts[b] = arr(w[b]);
    const a = one.attention(opts), b = mt.attention(opts);
    let worst = 0, stagesSame = true;
    for (const [name, want] of Object.entries(fx.stages)) {
      const ours = b.get(name), ref = arr(want);
      stagesSame &&= same(ours, a.get(name));
      for (let i = 0; i < ref.length; i++)
        if (Number.isFinite(ref[i])) worst = Math.max(worst, Math.abs(ours[i] - ref[i]) / Math.max(1, Math.abs(ref[i])));
    }
    // GPT-2 tiny (F16) from the fixtures: greedy ids with the KV cache.
    const dir = ${JSON.stringify('/@fs' + ROOT + 'tests/fixtures/hf/')};
    const text = async (f) => (await fetch(dir + f)).text();
    const model = await mt.loadPretrained({
      config: await text('gpt2-tiny-f16/config.json'),
      tokenizer: await text('gpt2-tiny-f16/tokenizer.json'),
      weights: new Uint8Array(await (await fetch(dir + 'gpt2-tiny-f16/model.safetensors')).arrayBuffer()),
    });
    const greedy = JSON.parse(await text('expected/gpt2-tiny.json')).greedy;
    const g = model.generate(Int32Array.from(greedy.prompt), { maxTokens: 8, useCache: true });
    return {
      isolated: crossOriginIsolated,
      plan: threadPlan({}, { trainer: true }),
      cores: navigator.hardwareConcurrency,
      info: mt.kernels.info(),
      oneInfo: one.kernels.info(),
      kernels, stagesSame, worst,
      ids: Array.from(g.tokens), want: greedy.next,
    };
  })()`);
  expect(result.isolated).toBe(true);
  // By default the trainer module (pretrained models, training) uses every core here.
  expect(result.plan).toMatchObject({ threads: result.cores, max: result.cores, allowed: true });
  expect(result.info).toMatchObject({ variant: 'simd128', threads: Math.min(2, result.cores) });
  expect(result.oneInfo).toMatchObject({ variant: 'simd128', threads: 1 });
  expect(result.kernels).toEqual([true, true]);
  expect(result.stagesSame).toBe(true);
  expect(result.worst).toBeLessThanOrEqual(1e-5);
  expect(result.ids).toEqual(result.want);
  expect(errors).toEqual([]);
});

test('a page without isolation stays on one thread and says why', async () => {
  const { page, errors } = await blankPage(false);
  const result = await page.evaluate(`(async () => {
    const { load, threadPlan } = await import(${JSON.stringify(wrapper)});
    const ap = await load({ threads: 4 });
    return { isolated: crossOriginIsolated, plan: threadPlan({ threads: 4 }), info: ap.kernels.info() };
  })()`);
  expect(result.isolated).toBe(false);
  expect(result.plan).toMatchObject({ threads: 1, allowed: false });
  expect(result.info.threads).toBe(1);
  expect(result.info.why).toMatch(/not cross-origin isolated/);
  expect(errors).toEqual([]);
});

test("the playground's footer says how many threads it uses, isolated (npm start) or not", async () => {
  const { page, errors } = await playground.open('/');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await expect
    .poll(() => page.locator('#threads').textContent())
    .toBe(
      cores > 1
        ? `Pretrained models and training run on ${cores} threads (this page is cross-origin isolated).`
        : 'Pretrained models and training run on one thread: this device reports one core.',
    );
  expect(errors).toEqual([]);

  // The same page from a host without the headers (its HTML served without them).
  const other = await playground.open('about:blank');
  await other.page.route(playground.baseUrl, async (route) => {
    const response = await route.fetch();
    const headers = Object.fromEntries(
      Object.entries(response.headers()).filter(([k]) => !/^cross-origin-(opener|embedder)-policy$/i.test(k)),
    );
    await route.fulfill({ response, headers });
  });
  await other.page.goto(playground.baseUrl);
  expect(await other.page.evaluate(() => crossOriginIsolated)).toBe(false);
  await expect
    .poll(() => other.page.locator('#threads').textContent())
    .toBe('Pretrained models and training run on one thread: this page is not cross-origin isolated.');
  // (Served through the test's route, the dev page's Vite client may not open its socket to the
  // dev server: Chromium's local-network checks. Nothing of the page's own.)
  expect(other.errors.filter((e) => !/WebSocket|\[vite\] failed to connect/.test(e))).toEqual([]);
});
