// The sentences under rnn-vanishing's plot against the curves it draws, in the state of the
// chapter's "try this" (ρ = 1.5, T = 32, the page's default text on the English model, the start
// token first): every "rises to" / "falls to" names a plotted value and goes the way the curve does
// between the points it names, the last one ends at the first token, and the ρ = 1 note's figure for
// W_hh alone is a matrix power computed here. (A student read "first grows, then falls" under a
// curve that rises again at 31 steps back, and "falls too" under a curve that grew.)
import { describe, expect, test } from 'vitest';
import { loadEnglish } from '../web/lib/models.js';
import { DEFAULT_TEXT } from '../../web/lib/state.js';
import { LESSONS } from '../../web/lib/lessons.js';
import { RNN, powerNorms, repeatRows, vanishingWords } from '../../web/lib/rnn-view.js';
import { curveMoves, turningPoints } from '../../web/lib/curve-words.js';

const { ap, english } = await loadEnglish();

const value = (v) => v.toPrecision(4);

/** The view's two runs (ρ and ρ = 1) on the text's embedding rows, read again and again up to T. */
function runs(text, radius, T) {
  const ids = Int32Array.from([english.specialTokens.bos, ...english.tokenizer.encode(text).ids]);
  const tr = english.forward(ids);
  const x = tr.get('embed');
  const [n, d] = tr.shape('embed');
  tr.dispose();
  const xs = repeatRows(x, n, d, T);
  const one = (spectralRadius) => {
    const t = ap.rnn({ x: xs, n: T, dIn: d, dHidden: RNN.dHidden, spectralRadius, seed: RNN.seed });
    try {
      return { grad: t.get('rnn_grad_norm'), h: t.get('rnn_h'), whh: t.get('rnn_whh') };
    } finally {
      t.dispose();
    }
  };
  return { cur: one(radius), ref: one(1) };
}

/** Largest singular value of a (d x d) row-major matrix, by power iteration on AᵀA. */
function spectralNorm(a, d) {
  let v = Array.from({ length: d }, (_, i) => 1 + i / d);
  let sigma = 0;
  for (let it = 0; it < 500; it++) {
    const av = Array.from({ length: d }, (_, r) => v.reduce((s, x, c) => s + a[r * d + c] * x, 0));
    const atav = Array.from({ length: d }, (_, c) => av.reduce((s, x, r) => s + a[r * d + c] * x, 0));
    const norm = Math.hypot(...atav);
    sigma = Math.sqrt(norm / Math.hypot(...v));
    v = atav.map((x) => x / norm);
  }
  return sigma;
}

/** Each "rises to V at k steps back" / "falls to V at k" of a text, in order. */
const movesOf = (text) =>
  [...text.matchAll(/(rises|falls)(?: again)? to ([\d.e+−-]+) at (\d+) steps? back/g)].map((m) => ({
    dir: m[1],
    value: Number(m[2].replace('−', '-')),
    at: Number(m[3]),
  }));

/** The moves agree with the curve (index = steps back): values, positions, directions, the end. */
function expectFollows(said, curve, what) {
  const moves = movesOf(said);
  expect(moves.length, `${what}: ${said}`).toBeGreaterThan(0);
  let from = 0;
  for (const m of moves) {
    expect(m.at, what).toBeGreaterThan(from);
    expect(m.value, `${what} at ${m.at}`).toBe(Number(value(curve[m.at])));
    expect(m.dir, `${what}: ${from} → ${m.at}`).toBe(curve[m.at] > curve[from] ? 'rises' : 'falls');
    from = m.at;
  }
  expect(from, `${what} ends at the first token`).toBe(curve.length - 1);
}

describe('rnn-vanishing: the sentences follow the plotted curves', () => {
  const tryThis = LESSONS.A.extras['rnn-vanishing'].find((x) => x.attrs?.radius === '1.5');
  const radius = Number(tryThis.attrs.radius),
    T = 32;

  test('at the try-this ρ = 1.5 the curve rises, falls and rises again, and the summary says so', () => {
    const { cur, ref } = runs(DEFAULT_TEXT, radius, T);
    const back = Array.from(cur.grad).reverse(); // index = steps back
    const slope = ref.h.reduce((a, v) => a + 1 - v * v, 0) / ref.h.length;
    const w = vanishingWords({
      grad: cur.grad,
      ref: ref.grad,
      alone: powerNorms(ref.whh, RNN.dHidden, T - 1),
      radius,
      T,
      slope,
      value,
    });
    // The state the student saw: the norm's highest point is in the middle, and after its lowest
    // point past the peak it rises again to the first token.
    const peak = back.indexOf(Math.max(...back));
    const dip = back.indexOf(Math.min(...back.slice(peak)));
    expect(peak).toBeGreaterThan(0);
    expect(dip).toBeLessThan(T - 1);
    expect(back[T - 1] / back[dip]).toBeGreaterThan(1.5);
    expectFollows(w.shape, back, 'ρ = 1.5');
    expect(movesOf(w.shape).at(-1).dir).toBe('rises');
    expect(w.trend).toBe('growing');
    // The grey curve's own moves, and no "too" beside a curve that grew.
    expectFollows(w.tanh, Array.from(ref.grad).reverse(), 'ρ = 1');
    expect(w.tanh).not.toMatch(/\btoo\b/);
  });

  test("the ρ = 1 note: W_hh alone against the RNN with tanh's slopes, both computed here", () => {
    const { ref } = runs(DEFAULT_TEXT, radius, T);
    const d = RNN.dHidden,
      K = T - 1;
    // (W_hhᵀ)^K by repeated products, then its largest singular value.
    let p = Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
    for (let k = 0; k < K; k++) {
      const q = new Array(d * d).fill(0);
      for (let i = 0; i < d; i++)
        for (let j = 0; j < d; j++) for (let m = 0; m < d; m++) q[i * d + j] += p[i * d + m] * ref.whh[j * d + m];
      p = q;
    }
    const alone = spectralNorm(p, d);
    const slope = ref.h.reduce((a, v) => a + 1 - v * v, 0) / ref.h.length;
    const w = vanishingWords({
      grad: ref.grad,
      ref: ref.grad,
      alone: powerNorms(ref.whh, d, K),
      radius: 1,
      T,
      slope,
      value,
    });
    expect(w.tanh).toContain(`‖(W_hhᵀ)³¹‖ = ${value(alone)}`); // K = 31
    const end = ref.grad[0];
    if (end < alone) expect(w.tanh).toContain(`it is ${value(end)}, ×${value(end / alone)} of that`);
    else expect(w.tanh).toContain('do not take it below W_hh alone');
    expect(w.tanh).toContain(`mean slope 1 − h² is ${slope.toFixed(2)}`);
  });

  test('turning points: a wiggle under the factor is no turn; a last dip the eye sees is', () => {
    // 1 → 100 (up two decades), a wiggle down to 60 (×1.7), on to 1000, down to 10, end 30 (×3).
    const ys = [1, 10, 100, 60, 200, 1000, 100, 10, 30];
    expect(turningPoints(ys)).toEqual([0, 5, 7, 8]);
    expect(curveMoves(ys).map((m) => m.dir)).toEqual(['rises', 'falls', 'rises']);
    expect(curveMoves([1, 1.5, 0.8, 1.2]).map((m) => m.dir)).toEqual(['level']);
  });

  test('a first bump the eye sees is a turn: the numbers rise before they fall (rho = 0.9)', () => {
    // The table a student read at rho = 0.9: 1.715, 2.349, 2.848 at 1 to 3 steps back, then down
    // past 1 to 0.008 (×2.8 up: under the factor, yet what a table shows first).
    const ys = [1, 1.715, 2.349, 2.848, 2.6, 2.423, 0.991, 0.072, 0.015, 0.00831];
    expect(turningPoints(ys)).toEqual([0, 3, 9]);
    expect(curveMoves(ys).map((m) => m.dir)).toEqual(['rises', 'falls']);
    // A rise of ×1.2 first is a wiggle, not a turn.
    expect(turningPoints([1, 1.2, 0.5, 0.1, 0.01])).toEqual([0, 4]);
    // A curve that never moves ×3.2 from its start: up ×2.9, then down to 0.5.
    expect(curveMoves([1, 2, 2.9, 1, 0.5]).map((m) => m.dir)).toEqual(['rises', 'falls']);
  });
});
