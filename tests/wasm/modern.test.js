// Issue 26, item 1: RMSNorm, SwiGLU / GeGLU, grouped-query attention and sliding windows in the core,
// each a switch with its own stages, against an independent PyTorch implementation written from the
// published definitions (tests/reference/make_modern_fixtures.py -> tests/fixtures/modern). Also:
// decoding with the KV cache equals full recompute with grouped K/V and with a window, the cache's bytes
// are nKvHeads / nHeads of multi-head attention's, the kernels' window against a hand reference, the
// costs against hand counts, and bad configs refused with the field named while the module stays usable.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { arr, expectClose, fixtureModel, fixtureNames, loadFixture } from './fixtures.js';

const fixture = (name) => loadFixture(name, 'modern');
const names = (prefix) => fixtureNames(prefix, 'modern');

let ap;
beforeAll(async () => {
  ap = await load();
});

// The worst relative error per stage name over every case and layer, printed at the end.
const worstByStage = {};
function compare(ours, want, stage, what) {
  const err = expectClose(ours, want, what);
  if (!(stage in worstByStage) || err > worstByStage[stage].err) worstByStage[stage] = { err, where: what };
}
afterAll(() => {
  const rows = Object.entries(worstByStage)
    .sort((a, b) => b[1].err - a[1].err)
    .map(([s, { err, where }]) => `  ${s.padEnd(14)} ${err.toExponential(2)}  (${where})`);
  console.log(`worst relative error per stage against the torch oracle:\n${rows.join('\n')}`);
});

describe.each(names('attention_'))('%s', (name) => {
  test('every stage equals the oracle within 1e-5', () => {
    const fx = fixture(name);
    const p = fx.params,
      w = fx.weights;
    const opts = { x: arr(fx.inputs.x), n: p.n, dModel: p.d_model, nHeads: p.n_heads, causal: p.causal };
    opts.nKvHeads = p.n_kv_heads;
    opts.window = p.window;
    for (const k of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) opts[k] = arr(w[k]);
    const t = ap.attention(opts);
    for (const [stage, want] of Object.entries(fx.stages)) {
      expect(t.shape(stage), stage).toEqual(want.shape);
      compare(t.get(stage), want, stage, `${name}.${stage}`);
    }
    expect(Object.keys(fx.stages)).toContain('kv_group');
    t.dispose();
  });
});

describe.each(names('model_'))('%s', (name) => {
  test('every stage of the whole model equals the oracle within 1e-5', () => {
    const fx = fixture(name);
    const model = fixtureModel(ap, fx);
    const trace = model.forward(fx.inputs.ids, fx.switches);
    let compared = 0;
    for (const [key, want] of Object.entries(fx.stages)) {
      const parts = key.split('.');
      let opts = {},
        stage = key;
      if (parts.length === 3) [opts, stage] = [{ stack: parts[0], layer: Number(parts[1]) }, parts[2]];
      else if (parts.length === 2) [opts, stage] = [{ stack: parts[0] }, parts[1]];
      expect(trace.shape(stage, opts), key).toEqual(want.shape);
      compare(trace.get(stage, opts), want, stage, `${name}.${key}`);
      compared++;
    }
    // Every stage the trace has is in the oracle (nothing the core records goes unchecked).
    const traced = trace.stages().filter((s) => s.name !== 'tokens');
    expect(traced.length).toBe(compared);
    trace.dispose();
    model.dispose();
  });
});

describe('the switches on a model', () => {
  test('switchChoices offers them; configFor applies them; the model never changes', () => {
    const fx = fixture('model_switched');
    const model = fixtureModel(ap, fx);
    expect(model.switchChoices.nKvHeads).toEqual([1, 2, 4]);
    expect(model.switchChoices.normKind).toEqual(['layernorm', 'rmsnorm']);
    expect(model.switchChoices.ffnKind).toEqual(['mlp']);
    const c = model.configFor({ nKvHeads: 2, normKind: 'rmsnorm', window: 3 });
    expect([c.nKvHeads, c.normKind, c.window]).toEqual([2, 'rmsnorm', 3]);
    expect([model.config.nKvHeads, model.config.normKind, model.config.window]).toEqual([4, 'layernorm', 0]);
    // nKvHeads = nHeads is multi-head attention: the same numbers as no switch at all.
    const a = model.forward(fx.inputs.ids),
      b = model.forward(fx.inputs.ids, { nKvHeads: 4, window: 0 });
    expect(b.get('logits')).toEqual(a.get('logits'));
    expect(Array.from(b.get('kv_group', { layer: 0 }))).toEqual([0, 1, 2, 3]);
    const g = model.forward(fx.inputs.ids, { nKvHeads: 2 });
    expect(Array.from(g.get('kv_group', { layer: 0 }))).toEqual([0, 0, 1, 1]);
    expect(g.shape('k', { layer: 0 })).toEqual([fx.inputs.ids.length, 4]); // 2 K/V heads of d_k 2
    for (const x of [a, b, g, model]) x.dispose();
    const gated = fixtureModel(ap, fixture('model_llama_like'));
    expect(gated.switchChoices.ffnKind).toEqual(['swiglu', 'geglu']);
    expect(gated.switchChoices.nKvHeads).toEqual([2]);
    gated.dispose();
  });
});

// Greedy decoding step by step with the cache (each step feeds one token) and by recomputing the
// whole prefix: the same tokens, and each step's last-row logits within float rounding.
function decodeBoth(model, prompt, switches) {
  const opts = { maxTokens: 8, switches, keep: { stages: ['logits'] } };
  const cached = model.generate(prompt, { ...opts, useCache: true });
  const full = model.generate(prompt, { ...opts, useCache: false });
  expect(Array.from(cached.tokens)).toEqual(Array.from(full.tokens));
  expect(cached.steps.length).toBe(cached.tokens.length);
  const V = model.config.vocabSize;
  let worst = 0;
  cached.steps.forEach((s, i) => {
    const a = s.trace.get('logits'),
      b = full.steps[i].trace.get('logits');
    const lastA = a.subarray(a.length - V),
      lastB = b.subarray(b.length - V);
    for (let j = 0; j < V; j++)
      worst = Math.max(worst, Math.abs(lastA[j] - lastB[j]) / Math.max(1, Math.abs(lastB[j])));
  });
  expect(worst).toBeLessThan(1e-5);
  const bytes = cached.kvCacheBytes;
  expect(full.kvCacheBytes).toBe(0);
  cached.dispose();
  full.dispose();
  // The cache holds every position fed: the prompt and each chosen token but the last.
  return { bytes, positions: cached.steps[cached.steps.length - 1].cacheLen };
}

test('a model with the four parts saves and loads back with its config, tensors and numbers', () => {
  const fx = fixture('model_llama_like');
  const model = fixtureModel(ap, fx);
  const copy = ap.loadModel(model.save());
  expect(copy.config).toEqual(model.config);
  expect([copy.config.normKind, copy.config.ffnKind, copy.config.nKvHeads, copy.config.window]).toEqual([
    'rmsnorm',
    'swiglu',
    2,
    4,
  ]);
  const a = model.forward(fx.inputs.ids),
    b = copy.forward(fx.inputs.ids);
  expect(b.get('logits')).toEqual(a.get('logits'));
  for (const x of [a, b, model, copy]) x.dispose();
});

test("ffn's attention stacks run a model with the four parts through its own block", () => {
  const fx = fixture('model_llama_like');
  const model = fixtureModel(ap, fx);
  const ids = fx.inputs.ids;
  const t = model.attentionStacks(ids, { layer: 1, depth: 2 });
  // with_ffn, depth 1: RMSNorm(a + 0) then the SwiGLU FFN, no residual; a is the block's attention of x
  const x = model.forward(ids).get('x');
  expect(t.get('stack_x', { stack: 'with_ffn', layer: 0 })).toEqual(x);
  const w = t.get('stack_weights', { stack: 'attention_only', layer: 1 });
  expect(t.shape('stack_weights', { stack: 'attention_only', layer: 1 })).toEqual([4, ids.length, ids.length]);
  // the causal window of 4: query 7 gives keys 0..3 no weight, each row sums to 1
  const n = ids.length;
  for (let h = 0; h < 4; h++)
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const v = w[(h * n + i) * n + j];
        if (j > i || j <= i - 4) expect(v).toBe(0);
        sum += v;
      }
      expect(sum).toBeCloseTo(1, 6);
    }
  t.dispose();
  model.dispose();
});

describe('decoding with the KV cache', () => {
  test('equals full recompute with grouped K/V, with a window, and with both switched onto a multi-head model', () => {
    const llama = fixtureModel(ap, fixture('model_llama_like')); // 4 heads, 2 K/V heads, window 4
    // Prompts longer than the windows: from the first step on, the window hides cached keys.
    const prompt = [2, 5, 9, 4, 11, 7];
    decodeBoth(llama, prompt, {});
    decodeBoth(llama, prompt, { window: 2 });
    const mha = fixtureModel(ap, fixture('model_switched'));
    decodeBoth(mha, prompt, { window: 3 });
    decodeBoth(mha, prompt, { nKvHeads: 1 });
    decodeBoth(mha, prompt, { nKvHeads: 2, window: 2, normKind: 'rmsnorm' });
    llama.dispose();
    mha.dispose();
  });

  test('the cache holds nKvHeads / nHeads of multi-head attention, as the formula says', () => {
    const fx = fixture('model_switched'); // d 8, 4 heads of 2, 2 layers
    const model = fixtureModel(ap, fx);
    const c = model.config;
    const dK = c.dModel / c.nHeads;
    const perToken = {};
    for (const nKv of [4, 2, 1]) {
      const { bytes, positions } = decodeBoth(model, [2, 5, 9, 4, 11, 7], { nKvHeads: nKv });
      // K and V, per layer, per cached position, nKv heads of dK floats
      expect(bytes).toBe(2 * c.nLayers * positions * nKv * dK * 4);
      const size = ap.kvCacheSize(
        { dModel: c.dModel, nHeads: c.nHeads, nLayers: c.nLayers, vocabSize: 12, nKvHeads: nKv },
        positions,
      );
      expect(size.bytes).toBe(bytes);
      expect(size.mhaBytes).toBe(2 * c.nLayers * positions * c.dModel * 4);
      perToken[nKv] = bytes / positions;
    }
    console.log(
      `KV cache bytes per position, 2 layers, d 8, 4 heads: MHA ${perToken[4]}, GQA (2 K/V heads) ${perToken[2]}, MQA ${perToken[1]}`,
    );
    expect(perToken[2] / perToken[4]).toBe(2 / 4);
    expect(perToken[1] / perToken[4]).toBe(1 / 4);
    // A model of Llama 2 7B's attention shape with GQA 8 of 32 (as Llama 2 70B uses): 4096 positions.
    const big = ap.kvCacheSize({ dModel: 4096, nHeads: 32, nLayers: 32, vocabSize: 32000, nKvHeads: 8 }, 4096);
    expect(big.mhaBytes).toBe(2 * 32 * 4096 * 4096 * 4);
    expect(big.bytes * 4).toBe(big.mhaBytes);
    model.dispose();
  });
});

describe('the kernels skip what the window hides', () => {
  // A double-precision reference written here: query i (position i + m - n) sees keys j with
  // p - window < j <= p.
  function reference(q, k, v, n, m, dK, h, window) {
    const out = new Float64Array(n * h * dK),
      ld = h * dK;
    for (let hd = 0; hd < h; hd++)
      for (let i = 0; i < n; i++) {
        const p = i + m - n,
          lo = Math.max(0, p - window + 1);
        const s = [];
        for (let j = lo; j <= p; j++) {
          let dot = 0;
          for (let c = 0; c < dK; c++) dot += q[i * ld + hd * dK + c] * k[j * ld + hd * dK + c];
          s.push(dot / Math.sqrt(dK));
        }
        const mx = Math.max(...s);
        const e = s.map((x) => Math.exp(x - mx)),
          sum = e.reduce((a, b) => a + b, 0);
        for (let c = 0; c < dK; c++) {
          let acc = 0;
          for (let j = lo; j <= p; j++) acc += (e[j - lo] / sum) * v[j * ld + hd * dK + c];
          out[i * ld + hd * dK + c] = acc;
        }
      }
    return out;
  }

  test('online and full kernels equal the reference for windows 1, 5, 64 and >= n', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    const n = 150,
      dK = 8,
      h = 2;
    const q = Float32Array.from({ length: n * h * dK }, rnd),
      k = Float32Array.from({ length: n * h * dK }, rnd),
      v = Float32Array.from({ length: n * h * dK }, rnd);
    for (const window of [1, 5, 64, 150, 1000]) {
      const want = reference(q, k, v, n, n, dK, h, window);
      for (const full of [false, true]) {
        const got = ap.kernels.attention({ q, k, v, n, dK, nHeads: h, causal: true, window, full });
        let worst = 0;
        for (let i = 0; i < want.length; i++)
          worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i])));
        expect(worst, `window ${window} full ${full}`).toBeLessThan(1e-5);
      }
    }
    // window >= n is plain causal attention
    const causal = ap.kernels.attention({ q, k, v, n, dK, nHeads: h, causal: true });
    expect(ap.kernels.attention({ q, k, v, n, dK, nHeads: h, causal: true, window: n })).toEqual(causal);
  });

  test('the pairs the online kernel scores fall from O(n^2) to O(n w)', () => {
    const n = 4096,
      dK = 64;
    const causal = ap.kernels.memory({ n, dK, causal: true }).pairsComputed;
    const w256 = ap.kernels.memory({ n, dK, causal: true, window: 256 }).pairsComputed;
    const w512 = ap.kernels.memory({ n, dK, causal: true, window: 512 }).pairsComputed;
    // Whole 32-query x 64-key tiles: each query block reads keys [i0 - w + 1, i0 + 32).
    expect(w256).toBeLessThanOrEqual(n * (256 + 32));
    expect(w256).toBeGreaterThanOrEqual(n * 256 - 256 * 256);
    expect(w512 / w256).toBeGreaterThan(1.8); // linear in w
    expect(causal).toBeGreaterThan(n * n * 0.5);
    // flops: sum over queries of min(i + 1, w) pairs, by hand: w (w + 1) / 2 + (n - w) w
    const f = ap.flops({ n, d: 512, h: 8, window: 256 });
    expect(f.attention.pairs).toBe((256 * 257) / 2 + (n - 256) * 256);
    expect(f.attention.scores).toBe(2 * 8 * f.attention.pairs * 64);
    expect(ap.flops({ n, d: 512, h: 8 }).attention.pairs).toBe(n * n);
  });
});

describe('costs count the new parts', () => {
  test('parameter counts by hand, and equal to a model of the same config', () => {
    const d = 8,
      h = 4,
      kv = 2,
      F = 12,
      V = 12,
      L = 2;
    const dKv = kv * (d / h);
    const p = ap.parameterCount({
      arch: 'decoder',
      dModel: d,
      nHeads: h,
      nKvHeads: kv,
      nLayers: L,
      dFf: F,
      vocabSize: V,
      pos: 'rope',
      norm: 'pre',
      normKind: 'rmsnorm',
      ffnKind: 'swiglu',
      tieEmbeddings: false,
      lmHeadBias: true,
    });
    expect(p.decoderLayer.attention).toBe(2 * d * d + 2 * d * dKv + 2 * d + 2 * dKv);
    expect(p.decoderLayer.ffn).toBe(3 * d * F + F + d);
    expect(p.decoderLayer.norms).toBe(2 * d); // two RMSNorm gains
    const model = fixtureModel(ap, fixture('model_llama_like'));
    const floats = model.tensors().reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0);
    expect(p.total).toBe(floats);
    model.dispose();
    const mqa = ap.flops({ n: 10, d, h, nKvHeads: 1 });
    expect(mqa.attention.projections).toBe(2 * 2 * 10 * d * d + 2 * 2 * 10 * d * (d / h));
  });
});

describe('bad input is refused with the field named, and the module stays usable', () => {
  test('configs, switches, attention and kernel options', async () => {
    const fx = fixture('model_switched');
    const model = fixtureModel(ap, fx);
    const before = model.forward(fx.inputs.ids).get('logits');
    const base = { dModel: 8, nHeads: 4, nLayers: 1, dFf: 8, tokenizer: 'char' };
    // One layer of attention (d_model 8, 4 heads, 2 tokens of zeros) with `extra` switches; K and V of kvCols columns.
    const attention = (extra, kvCols = 64) =>
      ap.attention({
        x: new Float32Array(16),
        n: 2,
        dModel: 8,
        nHeads: 4,
        wq: new Float32Array(64),
        wk: new Float32Array(kvCols),
        wv: new Float32Array(kvCols),
        wo: new Float32Array(64),
        ...extra,
      });
    const cases = [
      [() => ap.createModel({ ...base, nKvHeads: 3 }), /n_kv_heads \(3\) must divide n_heads \(4\)/],
      [() => ap.createModel({ ...base, nKvHeads: -1 }), /n_kv_heads must be >= 0/],
      [() => ap.createModel({ ...base, window: -2 }), /window must be >= 1, or 0 for no window \(got -2\)/],
      [() => ap.createModel({ ...base, normKind: 'batchnorm' }), /unknown normKind "batchnorm"/],
      [() => ap.createModel({ ...base, ffnKind: 'reglu' }), /unknown ffnKind "reglu"/],
      [() => model.forward(fx.inputs.ids, { nKvHeads: 3 }), /nKvHeads \(3\) must divide nHeads \(4\)/],
      [() => model.forward(fx.inputs.ids, { nKvHeads: 0 }), /nKvHeads must be >= 1/],
      [() => model.forward(fx.inputs.ids, { window: -1 }), /window must be >= 1/],
      [() => model.forward(fx.inputs.ids, { window: 1.5 }), /switch window must be an integer/],
      [() => model.forward(fx.inputs.ids, { ffnKind: 'swiglu' }), /ffnKind 'swiglu' needs the tensor ffn.w_gate/],
      [() => model.generate([2, 5], { switches: { nKvHeads: 3 } }), /nKvHeads \(3\) must divide nHeads/],
      [() => attention({ nKvHeads: 3 }, 48), /nKvHeads \(3\) must divide nHeads \(4\)/],
      [() => attention({ window: -3 }), /window must be >= 1/],
      [
        () =>
          ap.kernels.attention({
            q: new Float32Array(8),
            k: new Float32Array(8),
            v: new Float32Array(8),
            n: 1,
            dK: 8,
            causal: true,
            window: -1,
          }),
        /window must be >= 1/,
      ],
      [() => ap.flops({ n: 8, d: 8, h: 4, nKvHeads: 3 }), /n_kv_heads \(3\) must divide h \(4\)/],
      [
        () => ap.parameterCount({ dModel: 8, nHeads: 4, nLayers: 1, vocabSize: 10, nKvHeads: 3 }),
        /n_kv_heads \(3\) must divide n_heads \(4\)/,
      ],
    ];
    for (const [call, message] of cases) {
      expect(call).toThrow(message);
      // still usable: the same numbers as before the error
      const t = model.forward(fx.inputs.ids);
      expect(t.get('logits')).toEqual(before);
      t.dispose();
    }
    const gated = fixtureModel(ap, fixture('model_llama_like'));
    expect(() => gated.forward([2, 5], { ffnKind: 'mlp' })).toThrow(/this model's FFN is gated/);
    expect(() => gated.forward([2, 5], { nHeads: 2 })).toThrow(
      /nHeads cannot change on a model with grouped K\/V heads/,
    );
    gated.dispose();
    // The trainer has no backward pass for these parts: it refuses them by name.
    await expect(
      ap.createTrainer({ task: 'sort', config: { dModel: 16, nHeads: 4, nLayers: 1, nKvHeads: 2 } }),
    ).rejects.toThrow(/the trainer supports nKvHeads equal to nHeads only/);
    await expect(
      ap.createTrainer({ task: 'sort', config: { dModel: 16, nHeads: 2, nLayers: 1, normKind: 'rmsnorm' } }),
    ).rejects.toThrow(/the trainer supports normKind layernorm only/);
    const t = model.forward(fx.inputs.ids);
    expect(t.get('logits')).toEqual(before);
    t.dispose();
    model.dispose();
  });
});
