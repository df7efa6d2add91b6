// Core functions behind the handout views of issue 12: the notes' additive -1e9 mask (004 §7),
// the attention-only stack beside the stack with FFNs (ffn's "why", 003), and a trainer that
// starts from a shipped model's weights (pretrain-finetune, 004). Fixed seeds, fixed step budgets.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { meanCosine } from '../web/lib/math.js'; // computed here from the core's rows, independent of the core's own

let ap;
beforeAll(async () => {
  ap = await load();
});

const modelFile = (name) => readFileSync(new URL(`../../web/models/${name}.safetensors`, import.meta.url));

function seeded(n, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

// Self-attention inputs of n tokens, d_model d: x and the four weight matrices seeded seed, seed + 1, ...
function seededInputs(n, d, seed, options) {
  const [x, wq, wk, wv, wo] = [n * d, d * d, d * d, d * d, d * d].map((len, i) => seeded(len, seed + i));
  return { x, wq, wk, wv, wo, n, dModel: d, ...options };
}

test("the notes' mask * -1e9 gives the same weights as -inf (causal, n = 5, 2 heads)", () => {
  const n = 5,
    d = 8;
  const inputs = seededInputs(n, d, 1, { nHeads: 2, causal: true });
  const inf = ap.attention(inputs);
  const add = ap.attention({ ...inputs, additiveMask: -1e9 });
  const mInf = inf.get('masked'),
    mAdd = add.get('masked'),
    sc = add.get('scaled');
  let maxDiff = 0;
  const wInf = inf.get('weights'),
    wAdd = add.get('weights');
  for (let k = 0; k < wInf.length; k++) maxDiff = Math.max(maxDiff, Math.abs(wInf[k] - wAdd[k]));
  expect(maxDiff).toBeLessThanOrEqual(1e-6);
  for (let h = 0; h < 2; h++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const k = h * n * n + i * n + j;
        if (j > i) {
          // a future key: -inf in one, scaled - 1e9 in the other (float32), weight 0 in both
          expect(mInf[k]).toBe(-Infinity);
          expect(mAdd[k]).toBe(Math.fround(sc[k] - 1e9));
          expect(wAdd[k]).toBe(0);
        } else {
          expect(mAdd[k]).toBe(sc[k]);
        }
      }
    }
  }
  inf.dispose();
  add.dispose();
});

test('a fully masked row: -inf gives the documented zeros, -1e9 gives uniform weights 1/m', () => {
  const n = 2,
    d = 4;
  const inputs = seededInputs(n, d, 7, { keyPadding: [1, 1] });
  const inf = ap.attention(inputs),
    add = ap.attention({ ...inputs, additiveMask: -1e9 });
  expect(Array.from(inf.get('weights'))).toEqual([0, 0, 0, 0]);
  for (const w of add.get('weights')) expect(w).toBeCloseTo(0.5, 6);
  inf.dispose();
  add.dispose();
});

test('a bad additive mask is a clear error and the module stays usable', () => {
  const n = 2,
    d = 2;
  const inputs = seededInputs(n, d, 1, { causal: true });
  expect(() => ap.attention({ ...inputs, additiveMask: 1e9 })).toThrow(/finite negative number/);
  expect(() => ap.attention({ ...inputs, additiveMask: Number.NaN })).toThrow(/finite negative number/);
  const t = ap.attention({ ...inputs, additiveMask: -1e9 });
  expect(t.get('weights')[0]).toBeCloseTo(1, 6); // the first query sees only itself
  t.dispose();
});

test("ffn's why: stacking the mlm model's block, attention-only rows converge, the stack with FFNs keeps them apart", () => {
  const model = ap.loadModel(modelFile('mlm'));
  const text = 'the cat near the dogs sleeps .';
  const t = model.attentionStacks(text, { layer: 1, depth: 6, residual: true });
  const fwd = model.forward(text);
  const n = t.tokens.length,
    d = model.config.dModel;
  expect(Array.from(t.get('stack_x', { stack: 'attention_only', layer: 0 }))).toEqual(Array.from(fwd.get('x')));
  const measure = {};
  for (const stack of ['attention_only', 'with_ffn']) {
    measure[stack] = [];
    for (let l = 0; l <= 6; l++) {
      const mine = meanCosine(t.get('stack_x', { stack, layer: l }), n, d);
      expect(t.get('mean_cosine', { stack, layer: l })[0]).toBeCloseTo(mine, 4);
      measure[stack].push(mine);
    }
  }
  console.log('mean pairwise cosine per layer', JSON.stringify(measure));
  expect(measure.attention_only[0]).toBe(measure.with_ffn[0]); // the same input
  expect(measure.attention_only[6]).toBeGreaterThan(0.95); // the rows have all but merged
  expect(measure.attention_only[6] - measure.with_ffn[6]).toBeGreaterThan(0.1);
  // attention only: each output row is a weighted average (weights >= 0, summing to 1)
  const w = t.get('stack_weights', { stack: 'attention_only', layer: 1 });
  for (let r = 0; r < w.length / n; r++)
    expect(w.subarray(r * n, (r + 1) * n).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
  t.dispose();
  fwd.dispose();
  expect(() => model.attentionStacks(text, { layer: 5 })).toThrow(/layer 5 is out of range/);
  expect(() => model.attentionStacks(text, { depth: 99 })).toThrow(/depth must be between 1 and 32/);
  const again = model.attentionStacks(text, { depth: 1 });
  expect(again.get('mean_cosine', { stack: 'with_ffn', layer: 1 }).length).toBe(1);
  again.dispose();
  model.dispose();
});

test("a trainer can start from a loaded model: its weights are the model's, and mismatches are clear errors", async () => {
  const sort = ap.loadModel(modelFile('sort'));
  const trainer = await ap.createTrainer({ task: 'reverse', from: sort, seed: 3, batch: 8, totalSteps: 10 });
  const snap = trainer.snapshot();
  for (const name of ['tok_emb', 'decoder.1.ffn.w2', 'lm_head.w'])
    expect(Array.from(snap.getTensor(name))).toEqual(Array.from(sort.getTensor(name)));
  // the starting point is the sort model: asked to reverse, it sorts
  const g = snap.generate('k3b9qa', { maxTokens: 10 });
  expect(g.text).toBe('39abkq');
  g.dispose();
  snap.dispose();
  trainer.dispose();
  const dates = ap.loadModel(modelFile('dates'));
  await expect(ap.createTrainer({ task: 'reverse', from: dates })).rejects.toThrow(
    /architecture is encoder-decoder but task reverse trains decoder/,
  );
  await expect(
    ap.createTrainer({
      task: 'reverse',
      from: sort,
      config: { dModel: 32, nHeads: 4, nLayers: 2, dFf: 256, pos: 'learned' },
    }),
  ).rejects.toThrow(/d_model is 64 but task reverse trains 32/);
  await expect(ap.createTrainer({ task: 'reverse', from: {} })).rejects.toThrow(/needs a model/);
  dates.dispose();
  sort.dispose();
});

test('pre-trained on sort, fine-tuned on reverse: after 200 steps it beats the same model trained from scratch', async () => {
  const sort = ap.loadModel(modelFile('sort'));
  const run = async (from) => {
    const opts = { task: 'reverse', seed: 3, lr: 2e-3, warmupSteps: 10, totalSteps: 200, batch: 16 };
    const trainer = from
      ? await ap.createTrainer({ ...opts, from })
      : await ap.createTrainer({
          ...opts,
          config: { dModel: 64, nHeads: 4, nLayers: 2, dFf: 256, pos: 'learned', act: 'gelu', norm: 'post' },
        });
    trainer.step(200);
    const acc = trainer.evaluate(200, 777).accuracy;
    trainer.dispose();
    return acc;
  };
  const fine = await run(sort),
    scratch = await run(null);
  console.log(`reverse after 200 steps (batch 16): fine-tuned from sort ${fine}, from scratch ${scratch}`);
  expect(fine).toBeGreaterThan(scratch + 0.1);
  sort.dispose();
}, 300_000);
