// The induction view's run (<ap-induction>) and its two head scores, shared with the tests that
// check a seeded run forms an induction head within the view's step budget.
//
// The task (cpp/data/tasks.cpp, "induction"): 6 to 12 random letters read twice, "<bos> s s", as a
// language model. The first pass cannot be predicted; each letter of the repeat (but its first) is
// the one that followed the earlier copy of the letter before it. A two-layer attention-only model
// (no FFN) learns to copy with two heads working together (Elhage et al. 2021, Olsson et al. 2022):
// a previous-token head in layer 0 writes into each position "the letter before me was A", and an
// induction head in layer 1 looks, from the current letter A, for the position whose previous
// letter was A and copies the letter found there.

/**
 * Letters per copy of the view's held-out string. Shorter than the task's longest (12): on a
 * 12-letter string a head that looks 11 places back by position alone (which the longest training
 * strings reward) would light the same diagonal as an induction head; at 8 letters only a head that
 * finds the earlier copy by its content does.
 */
export const LETTERS = 8;

/** The view's run: model, schedule and the held-out example whose attention it draws. */
export const INDUCTION_RUN = {
  task: 'induction',
  config: { dModel: 64, nHeads: 2, nLayers: 2, dFf: 64, pos: 'learned', norm: 'pre', ffn: false },
  lr: 3e-3,
  warmupSteps: 50,
  totalSteps: 1000,
  batch: 32,
  evalN: 100,
  evalSeed: 777,
  evalEvery: 1,
  // 8 different letters (so each has one earlier copy); held out: its hash falls in the task's
  // evaluation bucket, so the trainer never draws it.
  // The model's greedy continuation of the string and the first three letters of its repeat.
  example: { src: '', tgt: 'mjsbfvqr'.repeat(2), prompt: 'mjsbfvqrmjs', expected: 'bfvqr' },
  answerTokens: 5,
};

/**
 * The two scores of one head's attention weights `w` (n x n, row-major, n = 2 L + 1) on "<bos> s s"
 * with s of L letters:
 *   induction: mean over the repeat's queries j = L+1 .. 2L of the weight on key j - L + 1, the
 *     letter after the earlier copy of query j's letter (Olsson et al.'s prefix-matching score);
 *     `found[i]`: whether that key is the heaviest of repeat query L+1+i;
 *   previous: mean over the first pass's queries j = 1 .. L of the weight on key j - 1 (what the
 *     induction head needs is at the first copy's positions, its keys: "the letter before me").
 * Each with its chance level: what uniform causal attention (1 / (j + 1) per key) would give.
 */
export function headScores(w, L = LETTERS) {
  const n = 2 * L + 1;
  if (w.length !== n * n) throw new Error(`headScores: expected ${n} x ${n} weights, got ${w.length} values`);
  let induction = 0,
    inductionChance = 0,
    previous = 0,
    previousChance = 0;
  const found = [];
  for (let j = L + 1; j < n; j++) {
    const key = j - L + 1;
    induction += w[j * n + key];
    inductionChance += 1 / (j + 1);
    let best = 0;
    for (let k = 1; k <= j; k++) if (w[j * n + k] > w[j * n + best]) best = k;
    found.push(best === key);
  }
  for (let j = 1; j <= L; j++) {
    previous += w[j * n + (j - 1)];
    previousChance += 1 / (j + 1);
  }
  return {
    induction: induction / L,
    inductionChance: inductionChance / L,
    found,
    previous: previous / L,
    previousChance: previousChance / L,
  };
}
