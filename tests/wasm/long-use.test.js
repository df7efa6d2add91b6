// A widget lives for hours in a course page: 100,000 mixed calls through the real module
// (attention with errors interleaved, model forward and generate, model save/load/dispose,
// createModel/dispose, lecture presets, the fast kernel) must leave the wasm heap level.
// Most calls are small (n = 1..3) so the run stays short on a slow machine; the count is real.
import { beforeAll, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { eye, tinyDecoder } from './lib/inputs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const CALLS = 100_000;
const SAMPLE_EVERY = 5_000;
const WARM_UP = 10_000; // allocator pools and embind caches settle in the first calls

const tiny = (n) => ({
  x: Float32Array.from({ length: n * 2 }, (_, i) => Math.sin(i + n)),
  wq: eye(2),
  wk: eye(2),
  wv: eye(2),
  wo: eye(2),
  n,
  dModel: 2,
  nHeads: 1,
  causal: n % 2 === 0,
});
const MODEL_CONFIG = tinyDecoder(['the', 'cat', 'sat', 'on', 'mat']);

test(`${CALLS.toLocaleString('en')} mixed calls leave the wasm heap level`, () => {
  const model = ap.createModel(MODEL_CONFIG, { seed: 5 });
  const saved = model.save();
  const corrupt = saved.slice(0, saved.length - 7); // truncated: the loader must refuse it
  const presetIds = ap.presets.list().map((p) => p.id);
  const kq = Float32Array.of(0.5, -1, 2, 0.25);
  const counts = { ok: 0, errors: 0 };

  // Each branch either computes (and checks one number, so a silently broken call is noticed)
  // or throws a JS Error from a failure deep in C++ or in the wrapper.
  const expectError = (fn, message) => {
    expect(fn).toThrow(message);
    counts.errors++;
  };
  // Out of every 200 calls: 110 small attentions (10 of them with every key padded), 30 wrapper
  // errors, 30 core errors, 10 forwards, 4 forward errors, 1 generate, 1 generate error, 1 load,
  // 1 corrupt load, 4 createModel/dispose, 4 presets, 4 fast kernels.
  const call = (i) => {
    const r = i % 200;
    if (r < 110) {
      // the cheapest real call: 1..3 tokens of attention
      const n = 1 + (i % 3);
      const padAll = r >= 100;
      const t = ap.attention({ ...tiny(n), keyPadding: padAll ? new Array(n).fill(1) : undefined });
      const w = t.get('weights'); // (1, n, n): the last row sees every key, causal or not
      let sum = 0;
      for (let j = 0; j < n; j++) sum += w[(n - 1) * n + j];
      if (Math.abs(sum - (padAll ? 0 : 1)) > 1e-6) throw new Error(`weights row sums to ${sum}`);
      t.dispose();
      counts.ok++;
    } else if (r < 140) {
      expectError(() => ap.attention({ ...tiny(2), x: new Float32Array(3) }), /x has 3 values/);
    } else if (r < 170) {
      expectError(() => ap.attention({ ...tiny(2), wk: Float32Array.of(1, 0, NaN, 1) }), /wk contains NaN/);
    } else if (r < 180) {
      const t = model.forward('the cat sat');
      expect(t.get('probs').length).toBe(3 * 9);
      t.dispose();
      counts.ok++;
    } else if (r < 184) {
      expectError(() => model.forward('the cat sat on the mat on the mat'), /max length is 8/);
    } else if (r === 184) {
      const g = model.generate([2, 4, 5], { maxTokens: 2 });
      expect(g.steps.length).toBeGreaterThan(0);
      g.dispose();
      counts.ok++;
    } else if (r === 185) {
      expectError(() => model.generate([2, 4], { maxTokens: 99 }), /exceeds the model's context length/);
    } else if (r === 186) {
      const again = ap.loadModel(i % 400 === 186 ? model.save() : saved);
      expect(again.config.dModel).toBe(4);
      again.dispose();
      counts.ok++;
    } else if (r === 187) {
      expectError(() => ap.loadModel(corrupt), /loadModel/);
    } else if (r < 192) {
      ap.createModel(MODEL_CONFIG, { seed: i }).dispose();
      counts.ok++;
    } else if (r < 196) {
      const t = ap.presets.run(presetIds[i % presetIds.length]);
      expect(t.shape('weights')[0]).toBeGreaterThan(0);
      t.dispose();
      counts.ok++;
    } else {
      // dK = 1, q = v = [0.5, -1], k = [2, 0.25]: row 0 scores [1, 0.125], weights [0.7058, 0.2942],
      // out 0.7058 * 0.5 - 0.2942 = 0.05868; row 1 scores [-2, -0.25], out -0.77793 (by hand).
      const out = ap.kernels.attention({
        q: kq.subarray(0, 2),
        k: kq.subarray(2, 4),
        v: kq.subarray(0, 2),
        n: 2,
        dK: 1,
      });
      expect(out[0]).toBeCloseTo(0.058678, 5);
      expect(out[1]).toBeCloseTo(-0.777929, 5);
      counts.ok++;
    }
  };

  const samples = []; // { calls, heap, memory }
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    call(i);
    if ((i + 1) % SAMPLE_EVERY === 0) samples.push({ calls: i + 1, heap: ap.heapUsed(), memory: ap.memoryBytes() });
  }
  const seconds = (performance.now() - t0) / 1000;
  model.dispose();

  const settled = samples.filter((s) => s.calls > WARM_UP);
  const first = settled[0];
  const maxHeap = Math.max(...settled.map((s) => s.heap));
  const maxMemory = Math.max(...settled.map((s) => s.memory));
  console.log(`long use: ${CALLS} calls (${counts.ok} computed, ${counts.errors} errors) in ${seconds.toFixed(1)} s`);
  console.log(`  heapUsed every ${SAMPLE_EVERY}: ${samples.map((s) => s.heap).join(' ')}`);
  console.log(`  memoryBytes: first ${samples[0].memory}, after warm-up ${first.memory}, max ${maxMemory}`);
  console.log(
    `  after warm-up (${WARM_UP} calls): first ${first.heap} B, max ${maxHeap} B, last ${settled.at(-1).heap} B`,
  );

  expect(counts.ok + counts.errors).toBe(CALLS);
  expect(settled.length).toBe((CALLS - WARM_UP) / SAMPLE_EVERY);
  expect(maxHeap).toBeLessThanOrEqual(first.heap);
  expect(maxMemory).toBe(first.memory);
}, 120_000);
