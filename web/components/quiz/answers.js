// The quiz's answers, computed by the core: pure functions of the module `ap` (or of a run), no
// DOM, so tests/wasm/quiz.test.js runs them in Node against the real wasm module.
//  - "Thinking Machines" (notes 003, answer (c)): the preset softmax.thinking-machines run by the
//    core gives the weights; the option whose coefficients they match is the answer.
//  - "Transformers vs RNNs" (notes 003, answer (b)): each statement is tested with the core (an
//    Elman RNN and self-attention on the same inputs, a permutation, a transformer layer's
//    tensors) or with counted multiply-adds; the statement that holds is the answer.
//  - The dimensions quiz (notes 002): the shapes of a core trace with the chosen n, d, h.
//  - "Predict, then reveal": the rows of the notes' presets, and of the page's own run.
import { tokenText } from '../../lib/dom.js';

export const TM_OPTIONS = [
  { key: 'a', coef: [0.5, 0.5] },
  { key: 'b', coef: [0.54, 0.46] },
  { key: 'c', coef: [0.88, 0.12] },
  { key: 'd', coef: [0.12, 0.88] },
];

/** "Thinking Machines": scores, scaled scores, weights (and without scaling), and the option they match. */
export function thinkingMachines(ap) {
  const id = 'softmax.thinking-machines';
  const p = ap.presets.get(id);
  const t = ap.presets.run(id);
  let scores, scaled, weights, v, z;
  try {
    scores = t.get('scores', { head: 0 });
    scaled = t.get('scaled', { head: 0 });
    weights = t.get('weights', { head: 0 });
    v = t.get('v');
    z = t.get('head_out', { head: 0 });
  } finally {
    t.dispose();
  }
  const u = ap.attention({
    x: p.x,
    wq: p.wq,
    wk: p.wk,
    wv: p.wv,
    wo: p.wo,
    n: p.n,
    dModel: p.dModel,
    nHeads: p.nHeads,
    scale: false,
  });
  let unscaled;
  try {
    unscaled = u.get('weights', { head: 0 });
  } finally {
    u.dispose();
  }
  const d = p.dModel,
    w = [weights[0], weights[1]];
  // The option whose coefficients are nearest the core's weights of "Thinking" (row 0).
  const gap = TM_OPTIONS.map((o) => Math.max(Math.abs(o.coef[0] - w[0]), Math.abs(o.coef[1] - w[1])));
  const answer = TM_OPTIONS[gap.indexOf(Math.min(...gap))].key;
  return {
    tokens: p.tokens,
    dK: p.dModel / p.nHeads,
    scores: [scores[0], scores[1]],
    scaled: [scaled[0], scaled[1]],
    weights: w,
    unscaled: [unscaled[0], unscaled[1]],
    v1: Array.from(v.slice(0, 3)),
    v2: Array.from(v.slice(d, d + 3)),
    z1: Array.from(z.slice(0, 3)),
    answer,
  };
}

/**
 * "Transformers vs RNNs": each statement tested. Same inputs for the RNN and for attention: the
 * notes' "clouds drift across blue sky" (004). Returns the numbers and the statements that hold.
 */
export function transformersVsRnns(ap, { n = 1000, d = 512, h = 8 } = {}) {
  const id = 'causal-mask.clouds';
  const p = ap.presets.get(id);
  const N = p.n,
    D = p.dModel;
  const attn = (x) => {
    const t = ap.attention({ x, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo, n: N, dModel: D, nHeads: 1, causal: false });
    try {
      return { out: t.get('attn_out'), weights: t.get('weights', { head: 0 }) };
    } finally {
      t.dispose();
    }
  };
  const rnn = (x) => {
    const t = ap.rnn({ x, n: N, dIn: D, dHidden: D, spectralRadius: 0.9, seed: 1 });
    try {
      return { h: t.get('rnn_h'), grad: t.get('rnn_grad_norm'), whh: t.shape('rnn_whh') };
    } finally {
      t.dispose();
    }
  };
  // (b) the RNN's state h_t needs h_{t-1}: the core's ||d h_T / d h_t|| is non-zero for every t
  // (a chain of T - t steps); attention's last row mixes every input in one weighted sum.
  const r = rnn(p.x),
    a = attn(p.x);
  const lastRow = Array.from(a.weights.slice((N - 1) * N, N * N));
  const chain = Array.from(r.grad);
  const rnnDepth = chain.filter((g) => g > 0).length; // states the last one depends on, one after another
  const attnDepth = 1;
  // (d) reverse the order of the tokens: attention's outputs are the same rows reversed (it cannot
  // tell the order without positional encodings); the RNN's final state changes.
  const perm = Array.from({ length: N }, (_, i) => N - 1 - i);
  const xp = new Float32Array(N * D);
  perm.forEach((src, i) => xp.set(p.x.subarray(src * D, (src + 1) * D), i * D));
  const ap2 = attn(xp),
    r2 = rnn(xp);
  let attnDiff = 0,
    rnnDiff = 0;
  perm.forEach((src, i) => {
    for (let c = 0; c < D; c++) attnDiff = Math.max(attnDiff, Math.abs(ap2.out[i * D + c] - a.out[src * D + c]));
  });
  for (let c = 0; c < D; c++) rnnDiff = Math.max(rnnDiff, Math.abs(r2.h[(N - 1) * D + c] - r.h[(N - 1) * D + c]));
  // (c) parameters of one layer: a transformer encoder layer of the original sizes, counted from
  // the core's own tensors, and an Elman RNN layer of the same width (W_xh, W_hh, b).
  const m = ap.createModel(
    { arch: 'encoder', dModel: d, nHeads: h, nLayers: 1, dFf: 4 * d, maxLen: 8, tokenizer: 'word', vocab: ['x'] },
    { seed: 1 },
  );
  let layerParams = 0;
  try {
    for (const t of m.tensors()) if (t.name.startsWith('encoder.0.')) layerParams += t.shape.reduce((x, y) => x * y, 1);
  } finally {
    m.dispose();
  }
  const rnnParams = d * d + d * d + d;
  // (a) multiply-adds of one layer over n tokens (counted): RNN n (d·d + d·d); self-attention
  // 4 n d² (Q, K, V, W_O) + n² d (scores) + n² d (weighted sum).
  const rnnOps = n * 2 * d * d,
    attnOps = 4 * n * d * d + 2 * n * n * d;
  const holds = {
    a: attnOps < rnnOps,
    b: rnnDepth > attnDepth,
    c: layerParams < rnnParams,
    d: attnDiff > 1e-4,
  };
  return {
    tokens: p.tokens,
    N,
    chain,
    rnnDepth,
    attnDepth,
    lastRow,
    attnDiff,
    rnnDiff,
    layerParams,
    rnnParams,
    rnnOps,
    attnOps,
    sizes: { n, d, h },
    holds,
    answer: Object.keys(holds).filter((k) => holds[k]),
  };
}

/** The dimensions quiz for sizes n, d, h: shapes from a core trace (one encoder layer). */
export function dimensionShapes(ap, { n, d, h }) {
  const m = ap.createModel(
    {
      arch: 'encoder',
      dModel: d,
      nHeads: h,
      nLayers: 1,
      dFf: 4 * d,
      maxLen: Math.max(8, n),
      tokenizer: 'word',
      vocab: ['a'],
    },
    { seed: 1 },
  );
  try {
    const t = m.forward(new Int32Array(n).fill(4));
    try {
      const q = t.shape('q'),
        one = t.shape('head_out', { head: 0 });
      const wq = m.tensors().find((x) => x.name === 'encoder.0.self_attn.wq').shape;
      return {
        I: t.shape('x'),
        W: [wq[0], one[1]], // W_Q^l: the block of d/h columns of W_Q (d × d) for head l
        Q: [q[0], one[1]], // Q^l = I W_Q^l: q's rows, one head's width
        A: t.shape('weights', { head: 0 }), // A^l and A^l' = softmax(A^l)
        O: one, // O^l = A^l' V^l
        concat: t.shape('concat'), // [O^1; ...; O^h]
        Y: m.tensors().find((x) => x.name === 'encoder.0.self_attn.wo').shape,
        out: t.shape('attn_out'), // O = [O^1; ...; O^h] Y
        heads: t.shape('weights')[0],
      };
    } finally {
      t.dispose();
    }
  } finally {
    m.dispose();
  }
}

/**
 * The fixed "predict, then reveal" questions: the row of "sat" in the notes' "the cat sat"
 * (000) and the row of "across" under the look-ahead mask in "clouds drift across blue sky" (004).
 */
export function predictFixed(ap) {
  const rowOf = (id, stage, word) => {
    const tokens = ap.presets.get(id).tokens;
    const i = tokens.indexOf(word),
      n = tokens.length;
    const t = ap.presets.run(id);
    try {
      const out = {};
      for (const s of stage) out[s] = Array.from(t.get(s, { head: 0 }).slice(i * n, (i + 1) * n));
      return { tokens, ...out };
    } finally {
      t.dispose();
    }
  };
  const cat = rowOf('softmax.the-cat-sat', ['weights'], 'sat');
  const clouds = rowOf('causal-mask.clouds', ['masked', 'weights'], 'across');
  return {
    p1: { tokens: cat.tokens, row: cat.weights, argmax: cat.weights.indexOf(Math.max(...cat.weights)) },
    p2: {
      tokens: clouds.tokens,
      masked: clouds.masked,
      weights: clouds.weights,
      visible: clouds.tokens.filter((_, j) => clouds.masked[j] !== -Infinity),
    },
  };
}

/**
 * The live question on the page's run: the third token's row (layer 0, head 0), its largest
 * weight and the tokens that have it. `key` changes with the sentence or the model.
 */
export function liveRow(run) {
  if (run.error) throw run.error;
  if (run.empty) return { empty: true };
  const w = run.get('weights', { layer: run.kind === 'model' ? 0 : undefined, head: 0 });
  const [n, m] = run.shape('weights', { layer: run.kind === 'model' ? 0 : undefined, head: 0 });
  const labels = Array.from(run.tokens, tokenText);
  const row = Math.min(2, n - 1);
  const weights = Array.from(w.slice(row * m, (row + 1) * m));
  const max = Math.max(...weights);
  const best = weights.map((x, j) => (x >= max - 1e-6 ? j : -1)).filter((j) => j >= 0);
  return { labels, row, weights, max, best, key: `${run.key}|${row}` };
}
