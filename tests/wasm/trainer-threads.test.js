// Issue 27: the trainer's batch shards on the threaded module's pool (wasm/build/ap_mt) give the
// same losses and the same weights, bit for bit, as the single-thread trainer module
// (wasm/build/ap_train), and as ap_mt itself on one thread: the shards' count and boundaries are the
// batch's alone, and their gradients are summed in shard order (cpp/train/trainer.cpp).
// The trained weights are compared as the files the two modules save.
import { beforeAll, expect, test } from 'vitest';
import { loadTrainer } from '../../wasm/index.js';

const THREADS = 2; // the machines this runs on have two cores
let single, mt;
beforeAll(async () => {
  single = await loadTrainer({ threads: 1, relaxed: false }); // ap_train: SIMD128, one thread
  mt = await loadTrainer({ threads: THREADS }); // ap_mt: SIMD128, its pool at THREADS
}, 60_000);

const STEPS = 4;
// The shipped reverse model's sizes at batch 32 (8 shards); a 1-layer encoder-decoder (dates, ReLU);
// an encoder (mlm) at an odd batch (5 shards, the last of 2 sequences).
const RUNS = [
  {
    task: 'reverse',
    config: { dModel: 64, nHeads: 4, nLayers: 2, dFf: 256, pos: 'learned', act: 'gelu' },
    batch: 32,
    shards: 8,
  },
  { task: 'dates', config: { dModel: 32, nHeads: 2, nLayers: 1, dFf: 64, act: 'relu' }, batch: 16, shards: 4 },
  { task: 'mlm', config: { dModel: 32, nHeads: 4, nLayers: 1, dFf: 64, pos: 'learned' }, batch: 18, shards: 5 },
];

// Losses of STEPS steps and the saved weights, on the module `ap` with its pool at `threads`.
async function train(ap, threads, { task, config, batch }) {
  if (ap === mt) ap._raw.setThreads(threads);
  const trainer = await ap.createTrainer({ task, config, batch, seed: 5, lr: 3e-3, warmupSteps: 2, totalSteps: 50 });
  try {
    const info = trainer.info();
    const losses = Array.from({ length: STEPS }, () => trainer.step(1));
    const model = trainer.snapshot();
    try {
      return { info, losses, weights: model.save() };
    } finally {
      model.dispose();
    }
  } finally {
    trainer.dispose();
    if (ap === mt) ap._raw.setThreads(THREADS);
  }
}

test.each(RUNS)(
  '$task at batch $batch: ap_mt on 1 and 2 threads trains the weights of ap_train',
  async (run) => {
    const one = await train(single, 1, run);
    const mt1 = await train(mt, 1, run);
    const mt2 = await train(mt, THREADS, run);
    expect(one.info).toMatchObject({ shards: run.shards, threads: 1 });
    expect(mt1.info).toMatchObject({ shards: run.shards, threads: 1 });
    expect(mt2.info).toMatchObject({ shards: run.shards, threads: THREADS });
    // Training happened: the loss moved, and every loss is a number.
    expect(one.losses.every(Number.isFinite)).toBe(true);
    expect(one.losses[STEPS - 1]).toBeLessThan(one.losses[0]);
    expect(mt1.losses).toEqual(one.losses);
    expect(mt2.losses).toEqual(one.losses);
    expect(Buffer.from(mt1.weights).equals(Buffer.from(one.weights))).toBe(true);
    expect(Buffer.from(mt2.weights).equals(Buffer.from(one.weights))).toBe(true);
  },
  120_000,
);

test('a trainer on the threaded module still reports bad options as an Error, and the module stays usable', async () => {
  await expect(mt.createTrainer({ task: 'reverse', batch: 0 })).rejects.toThrow(/batch must be >= 1 \(got 0\)/);
  const t = await mt.createTrainer({
    task: 'reverse',
    batch: 4,
    config: { dModel: 16, nHeads: 2, nLayers: 1, dFf: 32 },
  });
  expect(Number.isFinite(t.step(1))).toBe(true);
  expect(t.info().threads).toBe(THREADS);
  t.dispose();
});
