// long-context and quadratic: the online-softmax kernel (tiles of 32 queries x 64 keys, never the
// n x n matrix) gives the same output as the kernel that builds the matrix, and as a plain JS
// reference written here; the worked example of online softmax (one query, tiles of 2) against a
// hand calculation; the memory each path holds, against the notes' numbers (004: 100 / 1000 /
// 10000 tokens -> 10^4 / 10^6 / 10^8 scores; 002: n >= 50,000) at 4 bytes per float32 score.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { normals } from '../../web/lib/random.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const maxAbsDiff = (a, b) => {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
};

const inputs = (n, m, width, seed) => ({
  q: normals(n * width, seed),
  k: normals(m * width, seed + 1),
  v: normals(m * width, seed + 2),
});

// softmax(q k^T / sqrt(dK) [causal]) v per head, in doubles, straight from the formula.
function reference({ q, k, v, n, m = n, dK, nHeads = 1, causal = false, scale = true }) {
  const w = nHeads * dK,
    out = new Float64Array(n * w);
  for (let h = 0; h < nHeads; h++) {
    for (let i = 0; i < n; i++) {
      const visible = causal ? Math.max(0, Math.min(m, i + (m - n) + 1)) : m; // keys j < visible
      const s = [];
      for (let j = 0; j < visible; j++) {
        let dot = 0;
        for (let p = 0; p < dK; p++) dot += q[i * w + h * dK + p] * k[j * w + h * dK + p];
        s.push(scale ? dot / Math.sqrt(dK) : dot);
      }
      const mx = Math.max(...s);
      const e = s.map((x) => Math.exp(x - mx));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < dK; c++) {
        let acc = 0;
        for (let j = 0; j < visible; j++) acc += e[j] * v[j * w + h * dK + c];
        out[i * w + h * dK + c] = visible ? acc / sum : 0;
      }
    }
  }
  return out;
}

describe('online softmax gives the n x n output without the n x n matrix', () => {
  // Tiles are 32 queries x 64 keys: sizes below, at and across tile edges, and far from them.
  const CASES = [
    { n: 1, dK: 64 },
    { n: 31, dK: 64 },
    { n: 33, dK: 64 },
    { n: 64, dK: 64 },
    { n: 65, dK: 64 },
    { n: 100, dK: 64 },
    { n: 257, dK: 13 },
    { n: 1000, dK: 64 },
    { n: 40, m: 129, dK: 16, nHeads: 3 },
    { n: 129, m: 70, dK: 8, nHeads: 2 },
  ];
  for (const c of CASES) {
    for (const causal of [false, true]) {
      test(`n = ${c.n}${c.m ? `, m = ${c.m}` : ''}, d_k = ${c.dK}${c.nHeads ? `, ${c.nHeads} heads` : ''}${causal ? ', causal' : ''}: max |full - online| <= 1e-5`, () => {
        const m = c.m ?? c.n,
          width = (c.nHeads ?? 1) * c.dK;
        const opts = { ...inputs(c.n, m, width, c.n * 7 + (causal ? 1 : 0)), ...c, causal };
        const online = ap.kernels.attention(opts);
        const full = ap.kernels.attention({ ...opts, full: true });
        expect(online.length).toBe(c.n * width);
        expect(maxAbsDiff(online, full)).toBeLessThanOrEqual(1e-5);
      });
    }
  }

  test('both kernels equal the plain JS reference (5 queries, 7 keys, 2 heads of d_k = 3, causal and not)', () => {
    for (const causal of [false, true]) {
      const opts = { ...inputs(5, 7, 6, 42), n: 5, m: 7, dK: 3, nHeads: 2, causal };
      const ref = reference(opts);
      expect(maxAbsDiff(ap.kernels.attention(opts), ref)).toBeLessThanOrEqual(1e-5);
      expect(maxAbsDiff(ap.kernels.attention({ ...opts, full: true }), ref)).toBeLessThanOrEqual(1e-5);
    }
  });

  test('the reference itself: two keys with scores 0 and ln 3 give weights 1/4 and 3/4', () => {
    // q = [1], k = [0, ln 3], no scaling: softmax = [1, 3] / 4; v = [4, 8] -> 1 + 6 = 7.
    const opts = { q: [1], k: [0, Math.log(3)], v: [4, 8], n: 1, m: 2, dK: 1, scale: false };
    expect(reference(opts)[0]).toBeCloseTo(7, 12);
    expect(ap.kernels.attention(opts)[0]).toBeCloseTo(7, 5);
  });
});

describe('online softmax step by step (the long-context worked example)', () => {
  // One query q = [1, 0] over five keys whose first coordinates are the scores (no scaling):
  // s = [1, 3, 0, 2, 4], values v_j in 2-d, tiles of 2 keys: [1, 3] [0, 2] [4].
  const EX = {
    q: [1, 0],
    k: [1, 0, 3, 0, 0, 0, 2, 0, 4, 0],
    v: [1, 0, 0, 1, 1, 1, 2, 0, 0, 2],
    m: 5,
    dK: 2,
    tile: 2,
    scale: false,
  };
  const e = Math.exp;

  test('running max, correction, running sum and output after each tile match the hand calculation', () => {
    const r = ap.kernels.onlineSoftmaxSteps(EX);
    expect(Array.from(r.scores)).toEqual([1, 3, 0, 2, 4]);
    expect(r.tiles.length).toBe(3);
    const [t1, t2, t3] = r.tiles;
    // Tile 1, keys 0-1: max 3; l = e^(1-3) + e^0; o = e^-2 v0 + v1 = [e^-2, 1]. Nothing to correct yet.
    expect([t1.start, t1.end, t1.tileMax, t1.max, t1.correction]).toEqual([0, 2, 3, 3, 0]);
    expect(t1.sum).toBeCloseTo(e(-2) + 1, 6);
    expect(t1.o[0]).toBeCloseTo(e(-2), 6);
    expect(t1.o[1]).toBeCloseTo(1, 6);
    // Tile 2, keys 2-3: tile max 2 < 3, so the running max stays 3 and the correction is e^0 = 1.
    expect([t2.start, t2.end, t2.tileMax, t2.max, t2.correction]).toEqual([2, 4, 2, 3, 1]);
    const l2 = e(-2) + 1 + e(-3) + e(-1);
    const o2 = [e(-2) + e(-3) + 2 * e(-1), 1 + e(-3)];
    expect(t2.sum).toBeCloseTo(l2, 6);
    expect(t2.o[0]).toBeCloseTo(o2[0], 6);
    expect(t2.o[1]).toBeCloseTo(o2[1], 6);
    // Tile 3, key 4: the max rises to 4, so what was summed is rescaled by e^(3-4).
    expect([t3.start, t3.end, t3.tileMax, t3.max]).toEqual([4, 5, 4, 4]);
    expect(t3.correction).toBeCloseTo(e(-1), 6);
    const l3 = l2 * e(-1) + 1,
      o3 = [o2[0] * e(-1), o2[1] * e(-1) + 2];
    expect(t3.sum).toBeCloseTo(l3, 6);
    // The final sum is the softmax denominator with the true max: sum_j e^(s_j - 4).
    expect(t3.sum).toBeCloseTo(
      [1, 3, 0, 2, 4].reduce((a, s) => a + e(s - 4), 0),
      6,
    );
    expect(r.out[0]).toBeCloseTo(o3[0] / l3, 6);
    expect(r.out[1]).toBeCloseTo(o3[1] / l3, 6);
    // = 0.2156, 1.5186 written out: (e^-3 + e^-4 + 2 e^-2) / l and (e^-3 + e^-4 + 2) / l with l = sum e^(s-4).
    expect(r.out[0]).toBeCloseTo(0.215598, 5);
    expect(r.out[1]).toBeCloseTo(1.518595, 5);
  });

  test('any tile size gives the same output as the full kernel', () => {
    const full = ap.kernels.attention({ q: EX.q, k: EX.k, v: EX.v, n: 1, m: 5, dK: 2, scale: false, full: true });
    for (const tile of [1, 2, 3, 4, 5, 9]) {
      const r = ap.kernels.onlineSoftmaxSteps({ ...EX, tile });
      expect(r.tiles.length).toBe(Math.ceil(5 / tile));
      expect(maxAbsDiff(r.out, full)).toBeLessThanOrEqual(1e-6);
    }
  });

  test('scaled scores are q.k / sqrt(d_k)', () => {
    const r = ap.kernels.onlineSoftmaxSteps({ ...EX, scale: true });
    expect(r.scores[1]).toBeCloseTo(3 / Math.SQRT2, 6);
  });

  test('bad input names the problem and the module stays usable', () => {
    expect(() => ap.kernels.onlineSoftmaxSteps({ ...EX, k: [1, 2, 3] })).toThrow(/k has 3 values but m\*dK = 10/);
    expect(() => ap.kernels.onlineSoftmaxSteps({ ...EX, tile: 0 })).toThrow(/tile must be an integer >= 1/);
    expect(() => ap.kernels.onlineSoftmaxSteps({ ...EX, q: [NaN, 0] })).toThrow(/q contains NaN/);
    expect(ap.kernels.onlineSoftmaxSteps(EX).tiles.length).toBe(3);
  });
});

describe('memory: n x n scores against fixed tiles', () => {
  test("the notes' numbers: 100 / 1000 / 10000 tokens hold 10^4 / 10^6 / 10^8 scores, 4 bytes each", () => {
    for (const [n, scores] of [
      [100, 1e4],
      [1000, 1e6],
      [10000, 1e8],
    ]) {
      const mem = ap.kernels.memory({ n, dK: 64, full: true });
      expect(mem.scoresHeld).toBe(scores);
      expect(mem.scratchBytes).toBe(4 * scores);
    }
    // GPT-2's 1,024 tokens: 1,048,576 scores = 4 MiB per head.
    expect(ap.kernels.memory({ n: 1024, dK: 64, full: true }).scratchBytes).toBe(4 * 1024 * 1024);
  });

  test("n = 50,000 (notes 002): 2.5 x 10^9 scores, 10 GB at float32, beyond the full kernel's limit", () => {
    const mem = ap.kernels.memory({ n: 50000, dK: 64, full: true });
    expect(mem.scoresHeld).toBe(2.5e9);
    expect(mem.scratchBytes).toBe(1e10);
    expect(mem.limitScores).toBe(2 ** 24);
    expect(() =>
      ap.kernels.attention({
        q: new Float32Array(50000),
        k: new Float32Array(50000),
        v: new Float32Array(50000),
        n: 50000,
        dK: 1,
        full: true,
      }),
    ).toThrow(/n\*m = 2500000000 exceeds the limit of 16777216 scores with full: true/);
    // The online kernel takes the same long input (here d_k = 1, one query row would do as well).
    const out = ap.kernels.attention({
      q: new Float32Array(50).fill(1),
      k: new Float32Array(50000),
      v: new Float32Array(50000).fill(2),
      n: 50,
      m: 50000,
      dK: 1,
    });
    expect(Array.from(out)).toEqual(new Array(50).fill(2));
  });

  test('the online kernel holds the same tiles whatever n is: 32 x 64 scores + running max and sum + a 64 x 64 K panel', () => {
    const tiles = 4 * (32 * 64 + 2 * 32 + 64 * 64); // 24,832 bytes
    for (const n of [1, 100, 4096, 50000]) {
      const mem = ap.kernels.memory({ n, dK: 64 });
      expect(mem.scoresHeld).toBe(32 * 64);
      expect(mem.scratchBytes).toBe(tiles);
      expect(mem.ioBytes).toBe(4 * n * 64 * 4); // q, k, v, out: n x 64 floats each
    }
  });

  test("measured: the full kernel's heap grows by its n x m matrix, the online kernel's by nothing", () => {
    for (const [n, m] of [
      [300, 300],
      [100, 257],
    ]) {
      const opts = { ...inputs(n, m, 16, 5), n, m, dK: 16 };
      const full = ap.kernels.measure({ ...opts, full: true });
      expect(full.heapBytes).toBeGreaterThanOrEqual(4 * n * m);
      expect(full.heapBytes).toBeLessThan(4 * n * m + 256); // the allocator's bookkeeping only
      const online = ap.kernels.measure(opts);
      expect(online.heapBytes).toBe(0);
      expect(maxAbsDiff(online.out, full.out)).toBeLessThanOrEqual(1e-5);
      expect(maxAbsDiff(online.out, ap.kernels.attention(opts))).toBe(0);
    }
  });

  test('bad sizes are clear errors', () => {
    expect(() => ap.kernels.memory({ n: 0, dK: 64 })).toThrow(/n and m must be at least 1/);
    expect(() => ap.kernels.memory({ n: 10 })).toThrow(/dK must be an integer, got undefined/);
    expect(() => ap.kernels.measure({ q: [1], k: [1], v: [1], n: 1, dK: 2 })).toThrow(
      /q has 1 values but n\*nHeads\*dK = 2/,
    );
    expect(() => ap.kernels.attention()).toThrow(/needs an options object/);
    expect(ap.kernels.memory({ n: 10, dK: 64, full: true }).scoresHeld).toBe(100);
  });
});
