// Plain JavaScript attention: Float32Array loops written the way a careful person would without
// SIMD or a library: Q scaled once, one pass per query row (scores, max, exp, sum, then the
// weighted sum of V rows), causal rows stop at their last visible key. No n x n buffer.
import { attentionInputs, checksum } from '../cases.mjs';

export function attentionPlain(out, q, k, v, n, h, d, causal) {
  const ld = h * d;
  const alpha = 1 / Math.sqrt(d);
  const scores = new Float32Array(n);
  const qi = new Float32Array(d),
    acc = new Float64Array(d);
  for (let hd = 0; hd < h; hd++) {
    const col = hd * d;
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < d; t++) qi[t] = q[i * ld + col + t] * alpha;
      const end = causal ? i + 1 : n; // keys this query may see
      let max = -Infinity;
      for (let j = 0; j < end; j++) {
        const kj = j * ld + col;
        let s = 0;
        for (let t = 0; t < d; t++) s += qi[t] * k[kj + t];
        scores[j] = s;
        if (s > max) max = s;
      }
      acc.fill(0);
      let sum = 0;
      for (let j = 0; j < end; j++) {
        const p = Math.exp(scores[j] - max); // subtract the max so exp never overflows
        sum += p;
        const vj = j * ld + col;
        for (let t = 0; t < d; t++) acc[t] += p * v[vj + t];
      }
      const o = i * ld + col;
      for (let t = 0; t < d; t++) out[o + t] = acc[t] / sum;
    }
  }
}

export async function create() {
  let state = null;
  return {
    info: { variant: 'plain JS (Float32Array loops)' },
    supports(c) {
      return c.kind === 'attn' ? true : 'attention only';
    },
    prepare(c) {
      const { q, k, v } = attentionInputs(c);
      const out = new Float32Array(q.length);
      state = { c, q, k, v, out };
      attentionPlain(out, q, k, v, c.n, c.h, c.dK, c.causal);
      return { checksum: checksum(out) };
    },
    run(reps) {
      const { c, q, k, v, out } = state;
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) attentionPlain(out, q, k, v, c.n, c.h, c.dK, c.causal);
      return { seconds: (performance.now() - t0) / 1e3 };
    },
    release() {
      state = null;
    },
  };
}
