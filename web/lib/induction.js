// The induction view's run (<ap-induction>) and its two head scores, shared with the tests that
// check a seeded run forms an induction head within the view's step budget.
//
// The task (cpp/train/tasks.cpp, "induction"): 6 to 12 random letters read twice, "<bos> s s", as a
// language model. The first pass cannot be predicted; each letter of the repeat (but its first) is
// the one that followed the earlier copy of the letter before it. A two-layer attention-only model
// (no FFN) learns to copy with two heads working together (Elhage et al. 2021, Olsson et al. 2022):
// a previous-token head in layer 0 writes into each position "the letter before me was A", and an
// induction head in layer 1 looks, from the current letter A, for the position whose previous
// letter was A and copies the letter found there.

/** Letters per copy of the view's held-out string (the task's longest, kInductionLength in cpp/train/tasks.cpp). */
export const COPY = 12;

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
  // 12 different letters (so each has one earlier copy); held out: its hash falls in the task's
  // evaluation bucket, so the trainer never draws it.
  // The model's greedy continuation of the string and the first three letters of its repeat.
  example: { src: '', tgt: 'xjqzvkmwbhdf'.repeat(2), prompt: 'xjqzvkmwbhdfxjq', expected: 'zvkmwbhdf' },
  answerTokens: 9,
};

/**
 * The two scores of one head's attention weights `w` (n x n, row-major) on "<bos> s s":
 *   induction: mean over the repeat's queries j = COPY+1 .. 2 COPY of the weight on key j - COPY + 1,
 *     the letter after the earlier copy of query j's letter (Olsson et al.'s prefix-matching score);
 *   previous: mean over queries j >= 1 of the weight on key j - 1.
 * Each with its chance level: what uniform causal attention (1 / (j + 1) per key) would give.
 */
export function headScores(w, n = 2 * COPY + 1) {
  if (w.length !== n * n) throw new Error(`headScores: expected ${n} x ${n} weights, got ${w.length} values`);
  let induction = 0,
    inductionChance = 0,
    previous = 0,
    previousChance = 0;
  for (let j = COPY + 1; j < n; j++) {
    induction += w[j * n + (j - COPY + 1)];
    inductionChance += 1 / (j + 1);
  }
  for (let j = 1; j < n; j++) {
    previous += w[j * n + (j - 1)];
    previousChance += 1 / (j + 1);
  }
  const q = n - COPY - 1;
  return {
    induction: induction / q,
    inductionChance: inductionChance / q,
    previous: previous / (n - 1),
    previousChance: previousChance / (n - 1),
  };
}
