// Every lecture worked example, reproduced by the core and checked against the numbers in the
// notes (shared/seeds/000..004). The expected values are the notes', written out here.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const rows = (flat, n) => Array.from({ length: flat.length / n }, (_, i) => Array.from(flat.slice(i * n, i * n + n)));

describe('softmax / weighted-sum: "the cat sat" (notes 000)', () => {
  test('the weight table is .7 .2 .1 / .1 .6 .3 / .2 .3 .5', () => {
    const t = ap.presets.run('softmax.the-cat-sat');
    const w = rows(t.get('weights', { head: 0 }), 3);
    const notes = [
      [0.7, 0.2, 0.1],
      [0.1, 0.6, 0.3],
      [0.2, 0.3, 0.5],
    ];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(w[i][j]).toBeCloseTo(notes[i][j], 6);
    t.dispose();
  });

  test('z_cat = 0.1 v_the + 0.6 v_cat + 0.3 v_sat', () => {
    const t = ap.presets.run('weighted-sum.the-cat-sat');
    const v = rows(t.get('v'), 3);
    const z = rows(t.get('head_out', { head: 0 }), 3);
    for (let c = 0; c < 3; c++) expect(z[1][c]).toBeCloseTo(0.1 * v[0][c] + 0.6 * v[1][c] + 0.3 * v[2][c], 5);
    // and the values are not trivial: v_the, v_cat, v_sat differ, so the mix is visible
    expect(v[0]).not.toEqual(v[1]);
    t.dispose();
  });
});

test('"Thinking Machines": 112 and 96 scaled by 8 give 0.88 / 0.12 (notes 003)', () => {
  const t = ap.presets.run('softmax.thinking-machines');
  const s = t.get('scores', { head: 0 }),
    sc = t.get('scaled', { head: 0 }),
    w = t.get('weights', { head: 0 });
  expect([s[0], s[1]]).toEqual([112, 96]);
  expect(Math.sqrt(64)).toBe(8);
  expect([sc[0], sc[1]]).toEqual([14, 12]);
  expect(w[0].toFixed(2)).toBe('0.88');
  expect(w[1].toFixed(2)).toBe('0.12');
  expect(w[0]).toBeCloseTo(1 / (1 + Math.exp(-2)), 6); // e^14 / (e^14 + e^12)
  // answer (c): z1 = 0.88 v1 + 0.12 v2
  const v = t.get('v'),
    z = t.get('head_out', { head: 0 });
  for (let c = 0; c < 64; c++) expect(z[c]).toBeCloseTo(w[0] * v[c] + w[1] * v[64 + c], 5);
  t.dispose();
});

test('"Clouds drift across blue sky": weights for "sky" are [0.30, 0.10, 0.10, 0.30, 0.20] (notes 004)', () => {
  const t = ap.presets.run('softmax.clouds');
  const w = rows(t.get('weights', { head: 0 }), 5);
  expect(t.tokens[4]).toBe('sky');
  expect(w[4].map((x) => x.toFixed(2))).toEqual(['0.30', '0.10', '0.10', '0.30', '0.20']);
  t.dispose();
});

describe('causal-mask (notes 004)', () => {
  test('the look-ahead mask for n = 5 puts -inf exactly where the notes put 1', () => {
    const t = ap.presets.run('causal-mask.clouds');
    const notesMask = [
      [0, 1, 1, 1, 1],
      [0, 0, 1, 1, 1],
      [0, 0, 0, 1, 1],
      [0, 0, 0, 0, 1],
      [0, 0, 0, 0, 0],
    ];
    const masked = rows(t.get('masked', { head: 0 }), 5);
    for (let i = 0; i < 5; i++)
      for (let j = 0; j < 5; j++) {
        if (notesMask[i][j]) expect(masked[i][j]).toBe(-Infinity);
        else expect(Number.isFinite(masked[i][j])).toBe(true);
      }
    t.dispose();
  });

  test('"across" attends to clouds, drift, across only, and its row sums to 1', () => {
    const t = ap.presets.run('causal-mask.clouds');
    const w = rows(t.get('weights', { head: 0 }), 5);
    expect(t.tokens[2]).toBe('across');
    expect(w[2][3]).toBe(0);
    expect(w[2][4]).toBe(0);
    for (let j = 0; j < 3; j++) expect(w[2][j]).toBeGreaterThan(0);
    expect(w[2].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    t.dispose();
  });
});

test('sinusoidal positions with d_model = 4: PE(0,*) = 0,1,0,1; PE(1,0) = 0.84; PE(1,1) = 0.54 (notes 004)', () => {
  const t = ap.presets.run('sinusoidal.d4');
  const pe = rows(t.get('pos'), 4);
  expect(pe[0]).toEqual([0, 1, 0, 1]);
  expect(pe[1][0].toFixed(2)).toBe('0.84');
  expect(pe[1][1].toFixed(2)).toBe('0.54');
  expect(pe[1][0]).toBeCloseTo(Math.sin(1), 6);
  expect(pe[1][1]).toBeCloseTo(Math.cos(1), 6);
  // column 2 uses 10000^(2/4) = 100: PE(1,2) = sin(1/100)
  expect(pe[1][2]).toBeCloseTo(Math.sin(0.01), 6);
  t.dispose();
});

test('d_k = 512: scores are divided by sqrt(512) = 22.6 (notes 004)', () => {
  const t = ap.presets.run('scale.d512');
  const s = t.get('scores'),
    sc = t.get('scaled');
  expect(Math.sqrt(512).toFixed(1)).toBe('22.6');
  for (let i = 0; i < s.length; i++) expect(s[i] / sc[i]).toBeCloseTo(Math.sqrt(512), 3);
  t.dispose();
});

describe("scale.d512: the notes' lesson on the preset itself (004)", () => {
  // Largest weight of each softmax row, averaged over the rows.
  const meanLargest = (w, n) => rows(w, n).reduce((a, r) => a + Math.max(...r), 0) / n;

  test('queries and keys are N(0, 1) vectors of size 512, and q.k spreads by about sqrt(512)', () => {
    const inp = ap.presets.get('scale.d512');
    const t = ap.presets.run('scale.d512');
    const q = t.get('q'),
      k = t.get('k'),
      s = t.get('scores');
    const moments = (a) => {
      const m = a.reduce((x, y) => x + y, 0) / a.length;
      return { mean: m, std: Math.sqrt(a.reduce((x, y) => x + (y - m) ** 2, 0) / a.length) };
    };
    // 2,560 entries each: mean within 0.1 and std within 0.1 of N(0, 1)
    for (const m of [moments(q), moments(k)]) {
      expect(Math.abs(m.mean)).toBeLessThan(0.1);
      expect(Math.abs(m.std - 1)).toBeLessThan(0.1);
    }
    // The keys are not the queries: no row of K equals its own row of Q (W_K is not the identity).
    for (let i = 0; i < 5; i++)
      expect(Array.from(k.slice(i * 512, i * 512 + 8))).not.toEqual(Array.from(q.slice(i * 512, i * 512 + 8)));
    // q.k of the core = the dot product written out here
    let dot = 0;
    for (let c = 0; c < 512; c++) dot += q[c] * k[512 + c];
    expect(s[1]).toBeCloseTo(dot, 2);
    // Var(q.k) = sum of 512 products of unit-variance entries = 512; 25 scores estimate the
    // std to about 1/sqrt(2 * 25) = 14%.
    const std = moments(Array.from(s)).std;
    expect(Math.abs(std / Math.sqrt(512) - 1)).toBeLessThan(0.3);
    expect(inp.dModel).toBe(512);
    t.dispose();
  });

  test('unscaled weights saturate (largest > 0.9), scaled ones spread (largest < 0.6)', () => {
    const inp = ap.presets.get('scale.d512');
    const base = { x: inp.x, wq: inp.wq, wk: inp.wk, wv: inp.wv, wo: inp.wo, n: 5, dModel: 512, nHeads: 1 };
    const on = ap.attention({ ...base, scale: true });
    const off = ap.attention({ ...base, scale: false });
    const wOn = on.get('weights'),
      wOff = off.get('weights');
    // the preset's own trace is the scaled run
    const t = ap.presets.run('scale.d512');
    expect(t.get('weights')).toEqual(wOn);
    // softmax by hand over the raw scores: the unscaled weights
    const s = rows(off.get('scores'), 5);
    for (let i = 0; i < 5; i++) {
      const mx = Math.max(...s[i]);
      const e = s[i].map((v) => Math.exp(v - mx));
      const z = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j < 5; j++) expect(wOff[i * 5 + j]).toBeCloseTo(e[j] / z, 5);
    }
    expect(meanLargest(wOff, 5)).toBeGreaterThan(0.9);
    expect(meanLargest(wOn, 5)).toBeLessThan(0.6);
    // and the scaled softmax has real spread: every row gives its second key more than 1%
    for (const r of rows(wOn, 5)) expect(r.sort((a, b) => b - a)[1]).toBeGreaterThan(0.01);
    for (const x of [on, off, t]) x.dispose();
  });
});

test('every preset names a CURRICULUM concept and its inputs reproduce it through ap.attention', () => {
  const known = ['softmax', 'weighted-sum', 'quiz', 'causal-mask', 'sinusoidal', 'scale'];
  for (const p of ap.presets.list()) {
    expect(p.id.startsWith(p.concepts[0] + '.') || p.concepts.some((c) => p.id.startsWith(c + '.'))).toBe(true);
    for (const c of p.concepts) expect(known).toContain(c);
    if (p.pos !== 'none') continue;
    const inp = ap.presets.get(p.id);
    const a = ap.attention({ ...inp, n: inp.n, dModel: inp.dModel, nHeads: inp.nHeads, causal: inp.causal });
    const b = ap.presets.run(p.id);
    expect(a.get('weights')).toEqual(b.get('weights'));
    a.dispose();
    b.dispose();
  }
});

describe('a preset names the row its claim is about', () => {
  test('"the cat sat": z_cat, row 1; clouds: "sky", row 4; with the mask: "across", row 2; the rest: none', () => {
    const rows = Object.fromEntries(ap.presets.list().map((p) => [p.id, p.row]));
    expect(rows['softmax.the-cat-sat']).toBe(1);
    expect(rows['weighted-sum.the-cat-sat']).toBe(1);
    expect(rows['softmax.clouds']).toBe(4);
    expect(rows['causal-mask.clouds']).toBe(2);
    for (const p of ap.presets.list()) {
      if (p.row < 0) continue;
      // The claim quotes that row's token ("sky", "across") or names its output (z_cat).
      const t = p.tokens[p.row];
      expect(p.claim.includes(`"${t}"`) || p.claim.includes(`z_${t}`), `${p.id}: ${p.claim}`).toBe(true);
    }
    expect(Object.values(rows).filter((r) => r >= 0)).toHaveLength(4);
  });
});

test('every preset has its own title (the model picker lists them by title)', () => {
  const titles = ap.presets.list().map((p) => p.title);
  expect(new Set(titles).size).toBe(titles.length);
});

// Issue 23: the scores and softmax views listed '"the cat sat" (000)' twice, because the example's
// second id (weighted-sum.the-cat-sat) also named the softmax concept, whose own id already lists it.
// A view lists its concept's presets (web/lib/view.js presetButtons): one worked example of the notes
// (its note and its claim) at most once per concept.
test('no concept lists the same worked example twice', () => {
  const concepts = new Set(ap.presets.list().flatMap((p) => p.concepts));
  expect(concepts.size).toBeGreaterThan(3);
  const twice = [];
  for (const c of concepts) {
    const seen = new Map();
    for (const p of ap.presets.forConcept(c)) {
      const example = `${p.source}: ${p.claim}`;
      if (seen.has(example)) twice.push(`${c}: ${seen.get(example)} and ${p.id}`);
      seen.set(example, p.id);
    }
  }
  expect(twice).toEqual([]);
  // Each concept keeps the example under its own id.
  expect(ap.presets.forConcept('softmax').map((p) => p.id)).toContain('softmax.the-cat-sat');
  expect(ap.presets.forConcept('weighted-sum').map((p) => p.id)).toContain('weighted-sum.the-cat-sat');
});
