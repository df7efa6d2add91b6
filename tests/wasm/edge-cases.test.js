// Numerical edge cases through the real module: scores of +-1e4, every key masked, n = 1,
// d_k = 1, denormal inputs. No NaN may reach any stage (only 'masked' holds -Infinity, on
// purpose), and where a value is defined the numbers are the hand calculations written here.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { eye, tinyDecoder } from './lib/inputs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const identity = (d) => ({ wq: eye(d), wk: eye(d), wv: eye(d), wo: eye(d) });

// Every stage finite, except 'masked' / 'cross_masked', which may hold -Infinity but never NaN.
function expectNoNaN(trace) {
  for (const { name, stack, layer } of trace.stages()) {
    const data = trace.get(name, { stack, layer: layer ?? undefined });
    for (let i = 0; i < data.length; i++) {
      const ok = name.endsWith('masked') ? !Number.isNaN(data[i]) && data[i] !== Infinity : Number.isFinite(data[i]);
      if (!ok)
        throw new Error(
          `stage ${stack ? `${stack}.` : ''}${name}${layer != null ? `[${layer}]` : ''} has ${data[i]} at ${i}`,
        );
    }
  }
}

function expectRowsSumToOne(weights, rows, cols) {
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    for (let j = 0; j < cols; j++) {
      expect(weights[i * cols + j]).toBeGreaterThanOrEqual(0);
      sum += weights[i * cols + j];
    }
    expect(sum).toBeCloseTo(1, 6);
  }
}

const expectAllClose = (actual, expected, digits) => {
  expect(actual.length).toBe(expected.length);
  expected.forEach((e, i) => expect(actual[i]).toBeCloseTo(e, digits));
};

// x rows [100, 1], [100, 0], [100, -1] with W = I: scores = x x^T are the exact integers
//   [10001 10000  9999]
//   [10000 10000 10000]
//   [ 9999 10000 10001]
// Without the max subtraction exp(10001) overflows to Infinity and the row becomes NaN.
// Row 0: softmax = [e^2, e, 1] / (e^2 + e + 1) = [0.665241, 0.244728, 0.090031]; row 1: 1/3 each.
// head_out row 0 = 0.665241 [100, 1] + 0.244728 [100, 0] + 0.090031 [100, -1] = [100, 0.575210].
const BIG = Float32Array.of(100, 1, 100, 0, 100, -1);
const BIG_WEIGHTS = [0.665241, 0.244728, 0.090031, 1 / 3, 1 / 3, 1 / 3, 0.090031, 0.244728, 0.665241];
const BIG_OUT = [100, 0.57521, 100, 0, 100, -0.57521];

describe('ap.attention', () => {
  test('scores of +1e4 do not overflow: weights are the hand-computed softmax', () => {
    const t = ap.attention({ x: BIG, ...identity(2), n: 3, dModel: 2, scale: false });
    expectNoNaN(t);
    expectAllClose(t.get('scores'), [10001, 10000, 9999, 10000, 10000, 10000, 9999, 10000, 10001], 2);
    const w = t.get('weights');
    expectAllClose(w, BIG_WEIGHTS, 6);
    expectRowsSumToOne(w, 3, 3);
    expectAllClose(t.get('attn_out'), BIG_OUT, 4);
    t.dispose();
  });

  test('scaled scores near 7071 still give finite weights (differences 1/sqrt(2): [0.5760, 0.2840, 0.1400])', () => {
    // Floats near 7071 are spaced 0.0005 apart, so the weights carry ~1e-3 rounding.
    const t = ap.attention({ x: BIG, ...identity(2), n: 3, dModel: 2 });
    expectNoNaN(t);
    const w = t.get('weights');
    expectAllClose(w.subarray(0, 3), [0.575975, 0.283995, 0.140029], 2);
    expectRowsSumToOne(w, 3, 3);
    t.dispose();
  });

  test('scores of -1e4 and +1e4 together: exp(-2e4) underflows to an exact 0', () => {
    // x = [100, 0], [-100, 0]: scores [[1e4, -1e4], [-1e4, 1e4]], so each token attends only to itself.
    const x = Float32Array.of(100, 0, -100, 0);
    for (const scale of [false, true]) {
      const t = ap.attention({ x, ...identity(2), n: 2, dModel: 2, scale });
      expectNoNaN(t);
      expect(Array.from(t.get('weights'))).toEqual([1, 0, 0, 1]);
      expect(Array.from(t.get('attn_out'))).toEqual([100, 0, -100, 0]);
      t.dispose();
    }
  });

  test('a query whose keys are all masked gets the documented all-zero weights, not NaN', () => {
    // keyPadding hides every key: every row of weights, head_out and attn_out (no bias) is 0.
    const x = Float32Array.of(1, 2, 3, 4, 5, 6);
    const t = ap.attention({ x, ...identity(2), n: 3, dModel: 2, keyPadding: [1, 1, 1] });
    expectNoNaN(t);
    expect(Array.from(t.get('masked'))).toEqual(new Array(9).fill(-Infinity));
    expect(Array.from(t.get('weights'))).toEqual(new Array(9).fill(0));
    expect(Array.from(t.get('head_out'))).toEqual(new Array(6).fill(0));
    expect(Array.from(t.get('attn_out'))).toEqual(new Array(6).fill(0));
    t.dispose();
  });

  test('causal mask plus padding of key 0: query 0 sees nothing (zeros), query 1 sees only key 1', () => {
    const x = Float32Array.of(1, 0, 0, 1);
    const t = ap.attention({ x, ...identity(2), n: 2, dModel: 2, causal: true, keyPadding: [true, false] });
    expectNoNaN(t);
    expect(Array.from(t.get('weights'))).toEqual([0, 0, 0, 1]);
    expect(Array.from(t.get('attn_out'))).toEqual([0, 0, 0, 1]);
    t.dispose();
  });

  test('cross-attention with every memory key padded gives zeros for every query', () => {
    const t = ap.attention({
      x: Float32Array.of(1, 2),
      memory: Float32Array.of(3, 4, 5, 6),
      m: 2,
      ...identity(2),
      n: 1,
      dModel: 2,
      keyPadding: [1, 1],
    });
    expectNoNaN(t);
    expect(Array.from(t.get('weights'))).toEqual([0, 0]);
    expect(Array.from(t.get('attn_out'))).toEqual([0, 0]);
    t.dispose();
  });

  test('n = 1: the one token attends to itself with weight 1, so attn_out = x W_V W_O', () => {
    // x = [1, 2], W_V = [[0, 1], [1, 0]] (swap), W_O = 2 I: x W_V = [2, 1], attn_out = [4, 2].
    const t = ap.attention({
      x: Float32Array.of(1, 2),
      wq: Float32Array.of(3, -1, 0.5, 2),
      wk: eye(2),
      wv: Float32Array.of(0, 1, 1, 0),
      wo: Float32Array.of(2, 0, 0, 2),
      n: 1,
      dModel: 2,
      causal: true,
    });
    expectNoNaN(t);
    expect(Array.from(t.get('weights'))).toEqual([1]);
    expect(Array.from(t.get('attn_out'))).toEqual([4, 2]);
    t.dispose();
  });

  test('d_k = 1 (dModel 2, two heads): each head scores with its own column, scaled by sqrt(1) = 1', () => {
    // x = [1, 2], [3, -1]. Head 0 sees column 0: scores [[1, 3], [3, 9]]; head 1 column 1: [[4, -2], [-2, 1]].
    // Head 0 row 0: softmax([1, 3]) = [0.119203, 0.880797]; head 1 row 1: softmax([-2, 1]) = [0.047426, 0.952574].
    const t = ap.attention({ x: Float32Array.of(1, 2, 3, -1), ...identity(2), n: 2, dModel: 2, nHeads: 2 });
    expectNoNaN(t);
    expect(t.shape('weights')).toEqual([2, 2, 2]);
    expectAllClose(t.get('scaled'), [1, 3, 3, 9, 4, -2, -2, 1], 6);
    const w0 = t.get('weights', { head: 0 }),
      w1 = t.get('weights', { head: 1 });
    expectAllClose(w0.subarray(0, 2), [0.119203, 0.880797], 6);
    expectAllClose(w1.subarray(2, 4), [0.047426, 0.952574], 6);
    // head_out head 0 row 0 = 0.119203 * 1 + 0.880797 * 3 = 2.761594
    expect(t.get('head_out', { head: 0 })[0]).toBeCloseTo(2.761594, 5);
    t.dispose();
  });

  test('denormal inputs (1e-40) give uniform weights and an output of about 1e-40, no NaN', () => {
    // Scores are ~1e-80, which is 0 in float: softmax of a zero row is 1/n each, and the output
    // is the mean of the values, 1e-40 (a denormal: spacing 1.4e-45 there).
    const x = new Float32Array(6).fill(1e-40);
    const t = ap.attention({ x, ...identity(2), n: 3, dModel: 2 });
    expectNoNaN(t);
    expectAllClose(t.get('weights'), new Array(9).fill(1 / 3), 6);
    for (const v of t.get('attn_out')) expect(Math.abs(v - 1e-40)).toBeLessThan(1e-44);
    t.dispose();
  });
});

describe('models', () => {
  const config = tinyDecoder(['a', 'b', 'c']);

  test.each([
    ['denormal', 1e-40],
    ['+-1e4', 1e4],
  ])('%s embeddings: every stage of forward and generate is finite and probs sum to 1', (_, size) => {
    const model = ap.createModel(config, { seed: 2 });
    const emb = model.getTensor('tok_emb');
    model.setTensor(
      'tok_emb',
      emb.map((_, i) => (i % 3 === 0 ? -size : size)),
    );
    const t = model.forward('a b c a');
    expectNoNaN(t);
    expectRowsSumToOne(t.get('probs'), 4, 7);
    t.dispose();
    const g = model.generate('a b', { maxTokens: 3 });
    for (const s of g.steps) {
      expectNoNaN(s.trace);
      expect(s.distribution.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    }
    g.dispose();
    model.dispose();
  });

  test('a one-token input (n = 1) runs every stage with weight exactly 1', () => {
    const model = ap.createModel(config, { seed: 2 });
    const t = model.forward('b');
    expectNoNaN(t);
    expect(Array.from(t.get('weights'))).toEqual([1, 1]); // (h = 2, 1, 1)
    t.dispose();
    model.dispose();
  });
});

describe('ap.kernels.attention: online softmax and the full matrix agree on the same cases', () => {
  const both = (opts) => {
    const online = ap.kernels.attention(opts),
      full = ap.kernels.attention({ ...opts, full: true });
    for (const v of [...online, ...full]) expect(Number.isFinite(v)).toBe(true);
    for (let i = 0; i < online.length; i++)
      expect(Math.abs(online[i] - full[i])).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(full[i])));
    return online;
  };

  test('scores of +1e4 (the ap.attention case above): out = weights x', () => {
    const out = both({ q: BIG, k: BIG, v: BIG, n: 3, dK: 2, scale: false });
    expectAllClose(out, BIG_OUT, 4);
  });

  test('scores of -1e4 and +1e4: each query picks its own value', () => {
    const qk = Float32Array.of(100, 0, -100, 0);
    const out = both({ q: qk, k: qk, v: Float32Array.of(1, 2, 3, 4), n: 2, dK: 2 });
    expect(Array.from(out)).toEqual([1, 2, 3, 4]);
  });

  test('queries that see no key (causal, m < n) get a zero output, not NaN', () => {
    // n = 3 queries, m = 1 key: query i sees keys j <= i + (m - n) = i - 2, so only query 2 sees key 0.
    const out = both({
      q: Float32Array.of(1, 2, 3),
      k: Float32Array.of(5),
      v: Float32Array.of(7),
      n: 3,
      m: 1,
      dK: 1,
      causal: true,
    });
    expect(Array.from(out)).toEqual([0, 0, 7]);
  });

  test('n = m = 1: the output is the value', () => {
    expect(
      Array.from(
        both({ q: Float32Array.of(-3, 1e4), k: Float32Array.of(2, 5), v: Float32Array.of(0.25, -8), n: 1, dK: 2 }),
      ),
    ).toEqual([0.25, -8]);
  });

  test('d_k = 1 with two heads: the hand-computed softmax of each column', () => {
    // Same x as the ap.attention d_k = 1 case: head 0 row 0 = 2.761594; head 1 row 1 =
    // 0.047426 * 2 + 0.952574 * -1 = -0.857722.
    const x = Float32Array.of(1, 2, 3, -1);
    const out = both({ q: x, k: x, v: x, n: 2, dK: 1, nHeads: 2 });
    expect(out[0]).toBeCloseTo(2.761594, 5);
    expect(out[3]).toBeCloseTo(-0.857722, 5);
  });

  test('denormal inputs: out is about 1e-40, no NaN', () => {
    const x = new Float32Array(6).fill(1e-40);
    const out = both({ q: x, k: x, v: x, n: 3, dK: 2 });
    for (const v of out) expect(Math.abs(v - 1e-40)).toBeLessThan(1e-44);
  });
});
