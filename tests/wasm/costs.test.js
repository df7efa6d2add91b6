// Cost and scale through the JS API: parameter counts against published totals and a formula
// written out here, FLOP counts against hand calculations, the sqrt(d_k) experiment against
// Var(q.k) = d_k and an independent Monte Carlo in JS, and the errors bad input gets.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { normals } from '../../web/lib/random.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const relDiff = (computed, published) => (computed - published) / published;

describe('parameterCount', () => {
  test('BERT-base and GPT-3 match their published totals within 1%', () => {
    // BERT-base (Devlin et al. 2018): 110M.
    const bert = ap.parameterCount({
      arch: 'encoder',
      dModel: 768,
      nHeads: 12,
      nLayers: 12,
      dFf: 3072,
      vocabSize: 30522,
      maxLen: 512,
      pos: 'learned',
      segments: 2,
      embedNorm: true,
      pooler: true,
    });
    expect(bert.total).toBe(109482240);
    expect(Math.abs(relDiff(bert.total, 110e6))).toBeLessThan(0.01);
    // GPT-3 175B (Brown et al. 2020, Table 2.1): d_ff = 4d by default, tied embeddings, pre-norm.
    const gpt3 = ap.parameterCount({
      dModel: 12288,
      nHeads: 96,
      nLayers: 96,
      vocabSize: 50257,
      maxLen: 2048,
      pos: 'learned',
      norm: 'pre',
    });
    expect(gpt3.total).toBe(174604259328);
    expect(Math.abs(relDiff(gpt3.total, 175e9))).toBeLessThan(0.01);
  });

  test('the original transformer: 63.1M with the stated 37000 vocabulary, 65.1M with the 41,000 Table 3 implies', () => {
    const base = { arch: 'encoder-decoder', dModel: 512, nHeads: 8, nLayers: 6, dFf: 2048, vocabSize: 37000 };
    const stated = ap.parameterCount(base);
    // 6 encoder layers of 3,152,384 + 6 decoder layers of 4,204,032 + 37000 x 512 (one shared table).
    expect(stated.total).toBe(6 * 3152384 + 6 * 4204032 + 37000 * 512);
    expect(relDiff(stated.total, 65e6)).toBeCloseTo(-0.0295, 3);
    const implied = ap.parameterCount({ ...base, vocabSize: 41000 });
    expect(Math.abs(relDiff(implied.total, 65e6))).toBeLessThan(0.01);
    // The big model of the same table (213M) fits the stated vocabulary.
    const big = ap.parameterCount({ ...base, dModel: 1024, nHeads: 16, dFf: 4096 });
    expect(Math.abs(relDiff(big.total, 213e6))).toBeLessThan(0.01);
  });

  test('the presets are those configurations, with the published figure beside them', () => {
    const presets = ap.sizePresets();
    expect(presets.map((p) => p.id)).toEqual(['original', 'original-big', 'bert-base', 'gpt3']);
    const byId = Object.fromEntries(presets.map((p) => [p.id, p]));
    expect(byId.original.published).toBe(65e6);
    expect(byId['bert-base'].published).toBe(110e6);
    expect(byId.gpt3.published).toBe(175e9);
    // Each total credited to where it is printed: only GPT-3's 175B is in the notes (004: "GPT-3:
    // d_model = 12288, 96 layers, 96 heads, 175B parameters"); the notes give the other models'
    // shapes only, their totals are the papers'.
    expect(byId.original.source).toMatch(/^Vaswani et al\. 2017 .*: 65M\./);
    expect(byId['original-big'].source).toMatch(/^Vaswani et al\. 2017 .*: 213M\. Not in the notes/);
    expect(byId['bert-base'].source).toMatch(/^Devlin et al\. 2018 .*: 110M;/);
    expect(byId.gpt3.source).toMatch(/^Notes 004: 175B parameters/);
    for (const id of ['original', 'original-big', 'bert-base'])
      expect(byId[id].source).not.toMatch(/M\)?;? ?notes 004/i);
    expect(ap.parameterCount({ preset: 'original' }).total).toBe(63082496);
    expect(ap.parameterCount({ preset: 'bert-base' }).total).toBe(109482240);
    expect(ap.parameterCount({ preset: 'gpt3' }).total).toBe(174604259328);
    expect(byId.gpt3.config).toMatchObject({ dModel: 12288, nHeads: 96, decoderLayers: 96, vocabSize: 50257 });
    // A preset with one key changed.
    expect(ap.parameterCount({ preset: 'gpt3', nLayers: 48 }).decoderLayers).toBe(48);
  });

  test('a small decoder against the formula written out by hand', () => {
    // d 8, h 2, 2 layers, d_ff 32, V 20, learned positions 16, untied LM head with a bias, post-norm.
    const d = 8,
      dff = 32,
      V = 20,
      L = 16;
    const attention = 4 * d * d + 4 * d; // 288
    const ffn = d * dff + dff + dff * d + d; // 552
    const norms = 2 * (2 * d); // 32
    const p = ap.parameterCount({
      dModel: d,
      nHeads: 2,
      nLayers: 2,
      dFf: dff,
      vocabSize: V,
      maxLen: L,
      pos: 'learned',
      tieEmbeddings: false,
      lmHeadBias: true,
    });
    expect(p.decoderLayer).toEqual({ attention, ffn, norms, total: attention + ffn + norms });
    expect(p.embeddings).toBe(V * d + L * d);
    expect(p.lmHead).toBe(d * V + V);
    expect(p.total).toBe(2 * (attention + ffn + norms) + V * d + L * d + d * V + V);
    expect(p.attention + p.ffn + p.norms + p.embeddings + p.lmHead + p.pooler).toBe(p.total);
  });

  test('a model built by createModel has the count its tensors add up to', () => {
    const config = {
      arch: 'encoder-decoder',
      dModel: 16,
      nHeads: 4,
      nLayers: 2,
      dFf: 24,
      maxLen: 20,
      pos: 'learned',
      norm: 'pre',
    };
    const model = ap.createModel(config, { seed: 3 });
    try {
      const sizes = model.tensors().map((t) => t.shape.reduce((a, b) => a * b, 1));
      const p = ap.parameterCount({
        ...config,
        vocabSize: model.config.vocabSize,
        tieEmbeddings: false,
        lmHeadBias: true,
      });
      expect(p.total).toBe(sizes.reduce((a, b) => a + b, 0));
    } finally {
      model.dispose();
    }
  });

  test('bad input gets an error naming the problem, and the module stays usable', () => {
    const ok = { dModel: 64, nHeads: 4, nLayers: 2, vocabSize: 100 };
    expect(() => ap.parameterCount({ ...ok, dModel: -64 })).toThrow(/d_model must be >= 1/);
    expect(() => ap.parameterCount({ ...ok, nHeads: 5 })).toThrow(/d_model \(64\) is not divisible by n_heads \(5\)/);
    expect(() => ap.parameterCount({ ...ok, nLayers: 2.5 })).toThrow(/nLayers must be an integer/);
    expect(() => ap.parameterCount({ ...ok, arch: 'rnn' })).toThrow(/unknown arch "rnn"/);
    expect(() => ap.parameterCount({ ...ok, pos: 'absolute' })).toThrow(/unknown pos "absolute"/);
    expect(() => ap.parameterCount({ ...ok, biases: 'yes' })).toThrow(/biases must be true or false/);
    expect(() => ap.parameterCount({ ...ok, layers: 3 })).toThrow(/unknown parameterCount key 'layers'/);
    expect(() => ap.parameterCount({ ...ok, dModel: 2 ** 30, nHeads: 1 })).toThrow(/exceeds the limit/);
    expect(() => ap.parameterCount({ preset: 'gpt4' })).toThrow(/unknown model-size preset 'gpt4'/);
    expect(() => ap.parameterCount({ dModel: 64, nHeads: 4, vocabSize: 100 })).toThrow(/needs nLayers/);
    expect(ap.parameterCount(ok).total).toBeGreaterThan(0);
  });
});

describe('flops', () => {
  test('attention and RNN FLOPs against a hand calculation (multiply-add = 2 FLOPs)', () => {
    // n = 100 tokens, d = 512, h = 8 heads of 64.
    const f = ap.flops({ n: 100, d: 512, h: 8 });
    expect(f.flopsPerMultiplyAdd).toBe(2);
    expect(f.attention.projections).toBe(209715200); // 4 projections x 100 x 512 x 512 x 2
    expect(f.attention.scores).toBe(10240000); // 8 heads x 100 x 100 x 64 x 2
    expect(f.attention.weightedSum).toBe(10240000);
    expect(f.attention.total).toBe(230195200);
    expect(f.attention.sequentialSteps).toBe(1);
    expect(f.rnn.perStep).toBe(1048576); // (W h + U x): 2 x 512 x 512 x 2
    expect(f.rnn.total).toBe(104857600);
    expect(f.rnn.sequentialSteps).toBe(100);
    expect(f.rnn.pathLength).toBe(99);
    expect(f.attention.pathLength).toBe(1);
  });

  test('h heads of d/h cost what one head of d costs, but keep h score matrices', () => {
    for (const h of [1, 2, 4, 8, 16]) {
      const f = ap.flops({ n: 64, d: 256, h });
      expect(f.attention.dK).toBe(256 / h);
      expect(f.attention.total).toBe(f.singleHead.total);
      expect(f.attention.scores).toBe(2 * 64 * 64 * 256);
      expect(f.attention.scoreEntries).toBe(h * 64 * 64);
    }
  });

  test("the O(n^2 d) part meets the RNN's O(n d^2) at n = d", () => {
    const d = 256;
    expect(ap.flops({ n: d, d }).crossoverN).toBe(d);
    expect(ap.flops({ n: d, d }).attention.quadratic).toBe(ap.flops({ n: d, d }).rnn.total);
    expect(ap.flops({ n: d / 2, d }).attention.quadratic).toBe(ap.flops({ n: d / 2, d }).rnn.total / 2);
    expect(ap.flops({ n: 2 * d, d }).attention.quadratic).toBe(2 * ap.flops({ n: 2 * d, d }).rnn.total);
  });

  test('bad sizes are named', () => {
    expect(() => ap.flops({ n: 0, d: 8 })).toThrow(/n must be >= 1/);
    expect(() => ap.flops({ n: 8, d: 10, h: 4 })).toThrow(/d_model \(10\) is not divisible by n_heads \(4\)/);
    expect(() => ap.flops({ n: 2 ** 21, d: 8 })).toThrow(/exceeds the limit/);
  });
});

describe('scaleStats', () => {
  // Independent of the core: the same experiment in JS, with JS's own seeded normals (mulberry32).
  function jsStats(dK, n, draws, seed) {
    let ent = 0,
      top = 0;
    for (let t = 0; t < draws; t++) {
      const q = normals(n * dK, seed + 2 * t),
        k = normals(n * dK, seed + 2 * t + 1);
      for (let i = 0; i < n; i++) {
        const s = [];
        for (let j = 0; j < n; j++) {
          let dot = 0;
          for (let c = 0; c < dK; c++) dot += q[i * dK + c] * k[j * dK + c];
          s.push(dot / Math.sqrt(dK));
        }
        const mx = Math.max(...s),
          e = s.map((x) => Math.exp(x - mx)),
          z = e.reduce((x, y) => x + y, 0);
        ent -= e.reduce((acc, x) => acc + (x / z) * Math.log(x / z), 0);
        top += Math.max(...e) / z;
      }
    }
    return { entropy: ent / (draws * n), maxWeight: top / (draws * n) };
  }

  test('the unscaled spread grows like sqrt(d_k); scaled it stays near 1', () => {
    const draws = 1000,
      n = 8;
    for (const dK of [1, 4, 16, 64, 256, 512]) {
      const s = ap.scaleStats({ dK, n, draws, seed: 7 });
      // Sampling error of a std: sqrt((kurtosis - 1) / 4N), kurtosis of q.k = 3 + 6/dK; N = draws x n rows.
      const se = Math.sqrt((2 + 6 / dK) / (4 * draws * n));
      expect(Math.abs(s.unscaled.std / Math.sqrt(dK) - 1)).toBeLessThan(5 * se);
      expect(Math.abs(s.scaled.std - 1)).toBeLessThan(5 * se);
      expect(s.sqrtDk).toBeCloseTo(Math.sqrt(dK), 12);
    }
  });

  test("the notes' d_k = 512: dot products of about sqrt(512) = 22.6, and a saturated softmax", () => {
    const s = ap.scaleStats({ dK: 512, n: 8, draws: 1000, seed: 1 });
    expect(s.sqrtDk.toFixed(1)).toBe('22.6');
    expect(Math.abs(s.unscaled.std - 22.6)).toBeLessThan(0.5);
    expect(s.unscaled.maxWeight).toBeGreaterThan(0.9);
    expect(s.unscaled.entropy).toBeLessThan(0.3);
    expect(s.maxEntropy).toBeCloseTo(Math.log(8), 12);
  });

  test('scaled entropy and largest weight agree with a JS Monte Carlo of the same experiment', () => {
    const core = ap.scaleStats({ dK: 64, n: 8, draws: 2000, seed: 3 });
    const js = jsStats(64, 8, 400, 12345);
    // Two independent samples; the per-row spread of both quantities is below 0.5, so 4 standard
    // errors of the smaller sample (3200 rows) is under 0.04.
    expect(Math.abs(core.scaled.entropy - js.entropy)).toBeLessThan(0.04);
    expect(Math.abs(core.scaled.maxWeight - js.maxWeight)).toBeLessThan(0.04);
  });

  test('seeded: the same seed gives the same numbers; errors are named', () => {
    expect(ap.scaleStats({ dK: 16, seed: 4 })).toEqual(ap.scaleStats({ dK: 16, seed: 4 }));
    expect(ap.scaleStats({ dK: 16, seed: 4 }).unscaled.std).not.toBe(ap.scaleStats({ dK: 16, seed: 5 }).unscaled.std);
    expect(() => ap.scaleStats({ dK: 0 })).toThrow(/d_k must be >= 1/);
    expect(() => ap.scaleStats({ dK: 8, seed: -1 })).toThrow(/seed must be a non-negative integer/);
    expect(() => ap.scaleStats({ dK: 4096, n: 256, draws: 100 })).toThrow(/exceeds the limit/);
    expect(ap.scaleStats({ dK: 2, draws: 3 }).draws).toBe(3);
  });
});

describe('rnnStates', () => {
  test('the recurrence by hand', () => {
    const h = ap.rnnStates({ x: [1, 2], wxh: [0.5], whh: [0.5], n: 2, dIn: 1, dHidden: 1 });
    expect(h[0]).toBeCloseTo(Math.tanh(0.5), 6);
    expect(h[1]).toBeCloseTo(Math.tanh(2 * 0.5 + 0.5 * Math.tanh(0.5)), 6);
    expect(() => ap.rnnStates({ x: [1], wxh: [1, 2], whh: [1], n: 1, dIn: 1, dHidden: 1 })).toThrow(
      /wxh has 2 values but dIn\*dHidden = 1/,
    );
  });
});
