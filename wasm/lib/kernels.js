// ap.kernels: attention without a trace (the fast kernels), their memory, and the online softmax.
import { checkInt, checkInts, checkFinite, float32Inputs } from './checks.js';

export class Kernels {
  constructor(ap) {
    this._ap = ap;
  }

  /**
   * Which kernel build is running: { variant: 'scalar' | 'simd128' | 'relaxed', threads, why }:
   * threads the core's pool uses (1 in the single-thread modules), why in words (see threadPlan).
   */
  info() {
    const raw = this._ap._raw;
    // threads(): the core's pool, bound in the threaded module only.
    const threads = typeof raw.threads === 'function' ? raw.threads() : 1;
    return { variant: raw.kernelVariant(), threads, why: this._ap._plan?.reason ?? '' };
  }

  /**
   * Attention without a trace. q: n x nHeads*dK, k and v: m x nHeads*dK (row-major).
   * Never builds the n x m matrix unless full: true. Returns n x nHeads*dK.
   */
  attention(opts) {
    return this._call(opts, false).out;
  }

  /**
   * kernels.attention, also measuring what the call held: heapBytes is the allocator's bytes in
   * use at the call's peak minus before it (the n x m matrix for full: true; 0 for the online kernel,
   * which allocates nothing). Returns { out, heapBytes }.
   */
  measure(opts) {
    return this._call(opts, true);
  }

  /**
   * The working memory of each path, without running it (any n, m): scoresHeld (n*m for full, one
   * score tile for the online kernel), scratchBytes (those scores' bytes, or all the online kernel's
   * stack tiles), ioBytes (q, k, v and the output), limitScores (the most n*m that full: true allows),
   * pairsComputed (query-key pairs the online kernel scores over all heads, in whole tiles, for these
   * causal and window settings: O(n * window) with a sliding window).
   */
  memory({ n, m = n, dK, nHeads = 1, full = false, causal = false, window = 0 } = {}) {
    checkInts({ n, m, dK, nHeads, window });
    const out = this._ap._raw.kernelAttentionMemory(n, m, dK, nHeads, !!full, !!causal, window);
    if (!out) this._ap._fail('kernels.memory');
    return out;
  }

  /**
   * The online softmax of one query q (dK) over m keys k and values v (m x dK), `tile` keys at a
   * time, as the tiled kernel computes it. Returns { scores (m), out (dK), tiles: [{ start, end,
   * tileMax, max, correction, sum, o (dK, not yet divided by sum) }] }.
   */
  onlineSoftmaxSteps({ q, k, v, m, dK, tile = 2, scale = true }) {
    checkInts({ m, dK }, { min: 0 });
    checkInt(tile, 'tile', { min: 1 }); // the steps buffer holds ceil(m / tile) tiles
    const [qa, ka, va] = float32Inputs([
      [q, 'q', dK, 'dK'],
      [k, 'k', m * dK, 'm*dK'],
      [v, 'v', m * dK, 'm*dK'],
    ]);
    checkFinite({ q: qa, k: ka, v: va });
    const count = Math.ceil(m / tile),
      width = 6 + dK;
    const steps = new Float32Array(count * width),
      out = new Float32Array(dK),
      scores = new Float32Array(m);
    this._ap._withHeap([steps, out, scores, qa, ka, va], (p) => {
      if (this._ap._raw.kernelOnlineSoftmaxSteps(p[0], p[1], p[2], p[3], p[4], p[5], m, dK, tile, !!scale) !== count) {
        this._ap._fail('kernels.onlineSoftmaxSteps');
      }
      const heap = this._ap._heapBuffer();
      steps.set(new Float32Array(heap, p[0], steps.length));
      out.set(new Float32Array(heap, p[1], dK));
      scores.set(new Float32Array(heap, p[2], m));
    });
    const tiles = [];
    for (let b = 0; b < count; b++) {
      const r = steps.subarray(b * width, (b + 1) * width);
      tiles.push({ start: r[0], end: r[1], tileMax: r[2], max: r[3], correction: r[4], sum: r[5], o: r.slice(6) });
    }
    return { scores, out, tiles };
  }

  _call(opts, measure) {
    if (!opts || typeof opts !== 'object') throw new Error('kernels.attention() needs an options object');
    const { q, k, v, n, m = n, dK, nHeads = 1, causal = false, scale = true, full = false, window = 0 } = opts;
    checkInts({ n, m, dK, nHeads }, { min: 0 });
    checkInt(window, 'window'); // 0: none; the core refuses a negative one
    const width = nHeads * dK;
    const [qa, ka, va] = float32Inputs([
      [q, 'q', n * width, 'n*nHeads*dK'],
      [k, 'k', m * width, 'm*nHeads*dK'],
      [v, 'v', m * width, 'm*nHeads*dK'],
    ]);
    checkFinite({ q: qa, k: ka, v: va });
    const out = new Float32Array(n * width);
    let heapBytes = null;
    this._ap._withHeap([qa, ka, va, out], (p) => {
      const raw = this._ap._raw;
      if (measure) {
        heapBytes = raw.kernelAttentionMeasured(
          p[3],
          p[0],
          p[1],
          p[2],
          n,
          m,
          dK,
          nHeads,
          !!causal,
          !!scale,
          !!full,
          window,
        );
        if (heapBytes < 0) this._ap._fail('kernels.measure');
      } else if (!raw.kernelAttention(p[3], p[0], p[1], p[2], n, m, dK, nHeads, !!causal, !!scale, !!full, window)) {
        this._ap._fail('kernels.attention');
      }
      out.set(new Float32Array(this._ap._heapBuffer(), p[3], out.length));
    });
    return { out, heapBytes };
  }
}
