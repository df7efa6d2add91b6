// Issue 13: the module a visitor loads first is small. wasm/build/ap_core.wasm (what load() and
// every page fetch first) is at most 450 KB raw and has no trainer; the trainer lives in the second
// module (ap_train), which createTrainer() / evaluateTask() load on first use. Models cross between
// the two as safetensors bytes, so a trained model opens in the first module like any other.
import { readFileSync, statSync } from 'node:fs';
import { expect, test } from 'vitest';
import { load, loadTrainer } from '../../wasm/index.js';

const build = (name) => new URL(`../../wasm/build/${name}`, import.meta.url);
const FIRST_MODULE_LIMIT = 450 * 1024;

test('ap_core.wasm is at most 450 KB raw and carries no trainer; ap_train.wasm has it', () => {
  const core = readFileSync(build('ap_core.wasm'));
  console.log(`ap_core.wasm ${core.length} B, ap_train.wasm ${statSync(build('ap_train.wasm')).size} B`);
  expect(core.length).toBeLessThanOrEqual(FIRST_MODULE_LIMIT);
  // embind registers functions by name: the names are in the module's data.
  expect(core.includes('createTrainer')).toBe(false);
  expect(core.includes('evaluateTask')).toBe(false);
  expect(core.includes('loadModel')).toBe(true);
  const train = readFileSync(build('ap_train.wasm'));
  expect(train.includes('createTrainer')).toBe(true);
  expect(train.includes('evaluateTask')).toBe(true);
});

test('load() has no trainer until asked; createTrainer() then uses the second module and snapshots open in the first', async () => {
  const ap = await load();
  expect(typeof ap._raw.createTrainer).toBe('undefined');
  const trainer = await ap.createTrainer({
    task: 'sort',
    config: { dModel: 16, nHeads: 2, nLayers: 1, dFf: 32 },
    seed: 2,
    batch: 4,
    totalSteps: 20,
  });
  const tap = await loadTrainer();
  expect(tap).not.toBe(ap);
  expect(typeof tap._raw.createTrainer).toBe('function');
  expect(trainer.step(3)).toBeGreaterThan(0);
  expect(trainer.info().steps).toBe(3);
  const snap = trainer.snapshot();
  expect(snap._ap).toBe(ap); // a model of the first module...
  expect(snap.metadata).toEqual({ task: 'sort', separator: '=' });
  expect(snap.forward([2, 10, 11]).shape('weights', { layer: 0 })).toEqual([2, 3, 3]);
  // ...with the trainer's weights exactly (the same file either side)
  const inner = tap.loadModel(snap.save());
  expect(Array.from(inner.getTensor('tok_emb'))).toEqual(Array.from(snap.getTensor('tok_emb')));
  inner.dispose();
  // evaluateTask on a first-module model runs in the second module on its file
  const r = await ap.evaluateTask(snap, { n: 10, seed: 5 });
  expect(r).toMatchObject({ task: 'sort', total: 10 });
  await expect(
    ap.evaluateTask(ap.createModel({ arch: 'decoder', dModel: 8, nHeads: 2, nLayers: 1, dFf: 16, maxLen: 8 })),
  ).rejects.toThrow(/no "task" in its metadata/);
  snap.dispose();
  trainer.dispose();
  expect(() => trainer.step(1)).toThrow(/disposed/);
  trainer.dispose(); // twice is fine
});
