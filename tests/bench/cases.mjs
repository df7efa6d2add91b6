// What the benchmark measures, shared by the driver (tests/tools/bench.mjs), the Node runners and
// the Chromium page: the cases, their flop counts, the seeded inputs and the output checksum that
// lets the driver check every implementation computed the same thing before it trusts a time.
// The C++ runners (native/bench_native.cpp, wasm/bench_entry.cpp) generate the same inputs with
// the same generator, so checksums agree across languages to rounding.

export const D_K = 64;

// Attention: one case per (n, heads, causal), d_k = 64, self-attention (m = n). n = 4096 with
// 8 heads (34 GFLOP per call, 8 times the one-head case, about 5 of the run's minutes on this
// loaded 2-core machine) is left out by default: `maxFlops` drops cases above it.
export function attentionCases({ sizes = [64, 256, 1024, 2048, 4096], heads = [1, 8], maxFlops = 2e10 } = {}) {
  const cases = [];
  for (const n of sizes)
    for (const h of heads)
      for (const causal of [false, true]) {
        const c = { kind: 'attn', n, h, dK: D_K, causal };
        if (4 * n * n * D_K * h <= maxFlops) cases.push(c);
      }
  return cases;
}

// Long context: causal, one head, the online-softmax kernel only (peers would need n x n floats).
export function longCases({ sizes = [8192, 16384] } = {}) {
  return sizes.map((n) => ({ kind: 'long', n, h: 1, dK: D_K, causal: true }));
}

// The small model of the issue: d_model 128, 4 heads, 2 layers, decoder-only, one forward pass
// with its trace (what model.forward does in the playground).
export const MODEL = { dModel: 128, nHeads: 4, nLayers: 2, dFf: 512, maxLen: 256, seed: 1 };
export function modelCases({ sizes = [64, 256] } = {}) {
  return sizes.map((n) => ({ kind: 'model', n, ...MODEL }));
}

export function caseId(c) {
  if (c.kind === 'model') return `model n=${c.n}`;
  return `${c.kind} n=${c.n} h=${c.h}${c.causal ? ' causal' : ''}`;
}

// Attention flops: Q K^T and weights V, 2 n m d_k each per head; causal sees about half the keys
// (counted as exactly half, so a kernel that skips the hidden keys and one that computes and masks
// them are charged the same work). Softmax is not counted. Model: null (reported as time only).
export function flops(c) {
  if (c.kind === 'model' || c.kind === 'gpt2' || c.kind === 'train') return null;
  const full = 4 * c.n * c.n * c.dK * c.h;
  return c.causal ? full / 2 : full;
}

// mulberry32: a 32-bit generator that is easy to write identically in C++.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// Uniform in [-1, 1) with 24 random bits: exact in float32 and in double, in JS and C++.
export function fillUniform(array, seed) {
  const next = rng(seed);
  for (let i = 0; i < array.length; i++) array[i] = ((next() >>> 8) / 16777216) * 2 - 1;
  return array;
}

// Q, K, V (n, h*d_k) row-major, head i in columns [i*d_k, (i+1)*d_k): the layout of the core.
export function attentionInputs(c) {
  const size = c.n * c.h * c.dK;
  return {
    q: fillUniform(new Float32Array(size), 1),
    k: fillUniform(new Float32Array(size), 2),
    v: fillUniform(new Float32Array(size), 3),
  };
}

// (n, h*d_k) -> (h, n, d_k), for peers that batch over a leading head axis. And back.
export function toHeadMajor(x, n, h, d) {
  if (h === 1) return x;
  const out = new Float32Array(x.length);
  for (let i = 0; i < n; i++)
    for (let hd = 0; hd < h; hd++) for (let j = 0; j < d; j++) out[(hd * n + i) * d + j] = x[(i * h + hd) * d + j];
  return out;
}
export function fromHeadMajor(x, n, h, d) {
  if (h === 1) return x;
  const out = new Float32Array(x.length);
  for (let hd = 0; hd < h; hd++)
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) out[(i * h + hd) * d + j] = x[(hd * n + i) * d + j];
  return out;
}

// A weighted sum of the output in the core's layout with small integer weights that vary along
// both axes, and the matching sum of magnitudes (the scale for a relative comparison). A layout
// or head mix-up, a missing scale or a wrong mask changes it far beyond rounding.
export function checksum(out) {
  let sum = 0,
    abs = 0;
  for (let i = 0; i < out.length; i++) {
    const w = ((i * 7919) % 13) - 6;
    sum += w * out[i];
    abs += Math.abs(w * out[i]);
  }
  return { sum, abs };
}

/** Seconds for `reps` calls of `call` (the timing loop every implementation's run() shares). */
export function timeReps(call, reps) {
  const t0 = performance.now();
  for (let r = 0; r < reps; r++) call();
  return (performance.now() - t0) / 1e3;
}

// Milliseconds to seconds etc. kept out; one place formats GFLOP/s.
export function gflops(c, seconds) {
  const f = flops(c);
  return f == null || !(seconds > 0) ? null : f / seconds / 1e9;
}
