// The quiz view's answers (web/components/quiz/answers.js, which <ap-quiz> shows) are computed by
// the core; here the same functions the view calls run in Node against the real wasm module, and
// their answers are checked against the lecture notes' answers and against hand calculations
// written out below.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import * as quiz from '../../web/components/quiz/answers.js';

let ap;

beforeAll(async () => {
  ap = await load();
});

describe('"Thinking Machines" (notes 003: answer (c), 112 and 96 scaled by 8 -> 0.88, 0.12)', () => {
  test("the core gives the notes' scores, scaled scores and weights, and the answer is (c)", () => {
    const r = quiz.thinkingMachines(ap);
    expect(r.tokens).toEqual(['Thinking', 'Machines']);
    expect(r.dK).toBe(64);
    expect(r.scores).toEqual([112, 96]);
    expect(r.scaled).toEqual([14, 12]);
    // By hand: softmax(14, 12) = (1 / (1 + e^-2), e^-2 / (1 + e^-2)) = (0.880797, 0.119203).
    expect(r.weights[0]).toBeCloseTo(0.880797, 5);
    expect(r.weights[1]).toBeCloseTo(0.119203, 5);
    expect(Number(r.weights[0].toFixed(2))).toBe(0.88);
    expect(Number(r.weights[1].toFixed(2))).toBe(0.12);
    expect(r.answer).toBe('c');
    // Without scaling: softmax(112, 96): 1 / (1 + e^-16) = 0.99999989, e^-16 / (1 + e^-16) = 1.125e-7.
    expect(r.unscaled[0]).toBeCloseTo(0.99999989, 6);
    expect(r.unscaled[1]).toBeCloseTo(1.1254e-7, 10);
    // The output row of "Thinking" is 0.88 v1 + 0.12 v2 (first entries of the core's vectors).
    for (let c = 0; c < 3; c++) {
      expect(r.z1[c]).toBeCloseTo(r.weights[0] * r.v1[c] + r.weights[1] * r.v2[c], 5);
    }
  });

  test("the options are the notes' four (the card writes its labels from them)", () => {
    expect(quiz.TM_OPTIONS).toEqual([
      { key: 'a', coef: [0.5, 0.5] },
      { key: 'b', coef: [0.54, 0.46] },
      { key: 'c', coef: [0.88, 0.12] },
      { key: 'd', coef: [0.12, 0.88] },
    ]);
  });
});

describe('"Transformers vs RNNs" (notes 003: answer (b))', () => {
  test('only statement (b) holds when each is tested with the core', () => {
    const r = quiz.transformersVsRnns(ap);
    expect(r.answer).toEqual(['b']);
    expect(r.holds).toEqual({ a: false, b: true, c: false, d: false });
  });

  test('the numbers behind each statement', () => {
    const r = quiz.transformersVsRnns(ap);
    expect(r.tokens).toEqual(['clouds', 'drift', 'across', 'blue', 'sky']);
    // (a) by hand, n = 1000, d = 512: RNN 1000 * 2 * 512^2 = 524,288,000;
    // attention 4 * 1000 * 512^2 + 2 * 1000^2 * 512 = 1,048,576,000 + 1,024,000,000.
    expect(r.rnnOps).toBe(524_288_000);
    expect(r.attnOps).toBe(2_072_576_000);
    // (b) the RNN's last state depends on all 5 states through the chain; attention is one step
    // whose last row gives every token a positive weight.
    expect(r.chain).toHaveLength(5);
    for (const g of r.chain) expect(g).toBeGreaterThan(0);
    expect(r.rnnDepth).toBe(5);
    expect(r.lastRow).toHaveLength(5);
    for (const w of r.lastRow) expect(w).toBeGreaterThan(0);
    // (c) one encoder layer, d = 512, h = 8, d_ff = 2048, by hand: attention 4 (512*512 + 512)
    // = 1,050,624; FFN 512*2048 + 2048 + 2048*512 + 512 = 2,099,712; two LayerNorms 4 * 512 = 2048.
    expect(r.layerParams).toBe(1_050_624 + 2_099_712 + 2048);
    expect(r.rnnParams).toBe(2 * 512 * 512 + 512);
    // (d) attention without positions: reversing the tokens reverses the output rows (same
    // numbers up to float rounding); the RNN's final state changes.
    expect(r.attnDiff).toBeLessThan(1e-5);
    expect(r.rnnDiff).toBeGreaterThan(0.01);
  });
});

describe('the dimensions quiz (notes 002)', () => {
  // By hand, from the notes' answer: Q^l, K^l, V^l and O^l are n x d/h, A^l is n x n,
  // [O^1; ...; O^h] and O are n x d, W^l is d x d/h, Y is d x d.
  const hand = (n, d, h) => ({
    I: [n, d],
    W: [d, d / h],
    Q: [n, d / h],
    A: [n, n],
    O: [n, d / h],
    concat: [n, d],
    Y: [d, d],
    out: [n, d],
    heads: h,
  });
  for (const [n, d, h] of [
    [6, 12, 3],
    [5, 16, 4],
    [7, 8, 1],
    [3, 64, 8],
  ]) {
    test(`n = ${n}, d = ${d}, h = ${h}: the core's trace has the hand-computed shapes`, () => {
      expect(quiz.dimensionShapes(ap, { n, d, h })).toEqual(hand(n, d, h));
    });
  }

  test('sizes the core cannot build are a clear error, and the module stays usable', () => {
    expect(() => quiz.dimensionShapes(ap, { n: 4, d: 10, h: 3 })).toThrow(/divisible/);
    expect(quiz.dimensionShapes(ap, { n: 2, d: 4, h: 2 }).Q).toEqual([2, 2]);
  });
});

describe('predict, then reveal: the fixed questions', () => {
  test('"sat" attends most to itself (notes 000: .2 .3 .5); "across" sees 3 words (notes 004)', () => {
    const r = quiz.predictFixed(ap);
    expect(r.p1.tokens).toEqual(['the', 'cat', 'sat']);
    expect(r.p1.row.map((x) => Number(x.toFixed(2)))).toEqual([0.2, 0.3, 0.5]);
    expect(r.p1.argmax).toBe(2);
    expect(r.p2.visible).toEqual(['clouds', 'drift', 'across']);
    expect(r.p2.masked.slice(3)).toEqual([-Infinity, -Infinity]);
    expect(r.p2.weights.slice(3)).toEqual([0, 0]);
    expect(r.p2.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });
});

// Issue 23: a course goal is met by the student's answers (or, in a chapter without questions, the
// student's own tick), never by moving on.
describe('course goals', () => {
  test("B's goal waits for all 3 of its questions answered correctly; A's for its tick; C and D together", async () => {
    const { GOALS, chapterMet, goalMet, questionsOf } = await import('../../web/lib/lessons.js');
    const goal = (id) => GOALS.find((g) => g.id === id);
    expect(questionsOf('B')).toEqual(['thinking-machines', 'predict-cat-sat', 'predict-live']);
    expect(questionsOf('A')).toEqual([]);
    const right = { 'thinking-machines': true, 'predict-cat-sat': true, 'predict-live': true };
    expect(goalMet(goal('sdpa'), { done: { B: true }, answers: {} })).toBe(false);
    expect(goalMet(goal('sdpa'), { done: {}, answers: { ...right, 'predict-live': false } })).toBe(false);
    expect(goalMet(goal('sdpa'), { done: {}, answers: right })).toBe(true);
    expect(goalMet(goal('rnn'), { done: {}, answers: {} })).toBe(false);
    expect(goalMet(goal('rnn'), { done: { A: true }, answers: {} })).toBe(true);
    // heads-pos spans C (one question) and D (none)
    expect(chapterMet('C', { done: { C: true }, answers: {} })).toBe(false);
    expect(goalMet(goal('heads-pos'), { done: { D: true }, answers: { dimensions: true } })).toBe(true);
    expect(goalMet(goal('heads-pos'), { done: {}, answers: { dimensions: true } })).toBe(false);
  });
});
