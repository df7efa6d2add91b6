// The induction view's run (web/lib/induction.js), in the browser's engine: the wasm trainer with
// the view's exact settings and seed forms an induction head within the view's step budget. Checked
// every 25 steps as the view reports: the best layer-1 head's induction score (from the core's
// attention weights on the view's held-out string) passes 0.5, far above uniform attention; by then
// the repeat's held-out loss has fallen far below the first pass's (which stays near ln 26), and
// the model continues the string's repeat letter for letter. A fixed seed and step budget, never a
// time. (Seed 1 forms it at step 375 of 1,000.)
import { beforeAll, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { COPY, INDUCTION_RUN, headScores } from '../../web/lib/induction.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

// The scores by hand on a made-up 25 x 25 map: every repeat query puts 0.8 on its induction key,
// every query 0.5 on its previous key (where the two coincide, none do here: j - 11 != j - 1).
test('headScores reads the induction and previous-token diagonals', () => {
  const n = 2 * COPY + 1;
  const w = new Float32Array(n * n);
  for (let j = 1; j < n; j++) w[j * n + j - 1] = 0.5;
  for (let j = COPY + 1; j < n; j++) w[j * n + j - COPY + 1] = 0.8;
  const s = headScores(w);
  expect(s.induction).toBeCloseTo(0.8, 6);
  expect(s.previous).toBeCloseTo(0.5, 6);
  // Uniform causal attention: query j spreads 1 over j + 1 keys; the repeat's queries are 13..24.
  let chance = 0;
  for (let j = 13; j <= 24; j++) chance += 1 / (j + 1);
  expect(s.inductionChance).toBeCloseTo(chance / 12, 9);
  expect(() => headScores(new Float32Array(10))).toThrow(/25 x 25/);
});

// cpp/core/rng.hpp hash_string (FNV-1a 64, then splitmix64's finish): the task holds a string out
// when its hash % 10 == 0, so the view's string is one the trainer never draws.
test("the view's string has 12 different letters and is held out", () => {
  const s = INDUCTION_RUN.example.tgt.slice(0, COPY);
  expect(INDUCTION_RUN.example.tgt).toBe(s + s);
  expect(new Set(s).size).toBe(COPY);
  expect(INDUCTION_RUN.example.prompt + INDUCTION_RUN.example.expected).toBe(s + s);
  const M = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & M;
  let z = (h + 0x9e3779b97f4a7c15n) & M;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  expect((z ^ (z >> 31n)) % 10n).toBe(0n);
});

test("the view's seeded run forms an induction head within its step budget", async () => {
  const run = INDUCTION_RUN;
  const trainer = await ap.createTrainer({
    task: run.task,
    config: run.config,
    seed: 1,
    lr: run.lr,
    warmupSteps: run.warmupSteps,
    totalSteps: run.totalSteps,
    batch: run.batch,
  });
  let formed = null;
  const log = [];
  try {
    while (trainer.info().steps < run.totalSteps && !formed) {
      trainer.step(25);
      const model = trainer.snapshot();
      try {
        const prompt = model.prompt(run.example.tgt);
        expect(prompt.unknown).toEqual([]);
        const trace = model.forward(prompt.ids);
        try {
          const scores = [];
          for (let layer = 0; layer < 2; layer++)
            for (let head = 0; head < 2; head++)
              scores.push({ layer, head, ...headScores(trace.get('weights', { layer, head })) });
          const best = scores.filter((s) => s.layer === 1).sort((a, b) => b.induction - a.induction)[0];
          const prev = scores.filter((s) => s.layer === 0).sort((a, b) => b.previous - a.previous)[0];
          const e = trainer.evaluate(run.evalN, run.evalSeed);
          const step = trainer.info().steps;
          log.push(
            `${step}: induction ${best.induction.toFixed(2)}, previous ${prev.previous.toFixed(2)}, ` +
              `loss first ${e.byKind['first pass'].loss.toFixed(2)} repeat ${e.byKind.repeat.loss.toFixed(2)}`,
          );
          if (best.induction > 0.5) formed = { step, best, prev, e };
          if (formed) {
            const g = model.generate(run.example.prompt, { maxTokens: run.answerTokens });
            formed.continuation = g.text;
            g.dispose();
          }
        } finally {
          trace.dispose();
        }
      } finally {
        model.dispose();
      }
    }
  } finally {
    trainer.dispose();
  }
  console.log(`induction run, seed 1:\n  ${log.join('\n  ')}`);
  expect(formed, `no layer-1 head passed 0.5 in ${run.totalSteps} steps`).not.toBeNull();
  expect(formed.step).toBeLessThanOrEqual(run.totalSteps);
  expect(formed.best.induction).toBeGreaterThan(10 * formed.best.inductionChance);
  console.log(`formed at step ${formed.step}: continuation "${formed.continuation}"`);
  const { e } = formed;
  expect(e.byKind['first pass'].loss).toBeGreaterThan(Math.log(26) - 0.1);
  expect(e.byKind.repeat.loss).toBeLessThan(e.byKind['first pass'].loss / 2);
  expect(formed.continuation).toBe(run.example.expected);
}, 600_000);
