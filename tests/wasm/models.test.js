// The trained models the playground ships (web/models/), loaded through the JS API and measured
// on 2,000 held-out examples of their own task by the core: the thresholds of the training issue.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';

const dir = fileURLToPath(new URL('../../web/models/', import.meta.url));
let ap;
beforeAll(async () => { ap = await load(); });

const HELD_OUT = 2000;
const SEED = 20261122; // the held-out seed the trainer reports with (README, Models)

describe.each([
  ['sort', 0.995, 'decoder'],
  ['reverse', 0.995, 'decoder'],
  ['dates', 0.99, 'encoder-decoder'],
  ['grammar', 0.95, 'decoder'],
])('%s model', (task, threshold, arch) => {
  test(`is at most 500 KB, a ${arch} model, and scores >= ${threshold * 100}% on ${HELD_OUT} held-out examples`, () => {
    const bytes = readFileSync(`${dir}${task}.safetensors`);
    expect(bytes.length).toBeLessThanOrEqual(500 * 1024);
    const model = ap.loadModel(bytes);
    expect(model.metadata.task).toBe(task);
    expect(model.config.arch).toBe(arch);
    const r = ap.evaluateTask(model, { n: HELD_OUT, seed: SEED });
    console.log(`${task}: ${r.correct}/${r.total} = ${(100 * r.accuracy).toFixed(2)}%`, JSON.stringify(r.byKind));
    expect(r.total).toBe(HELD_OUT);
    expect(r.accuracy).toBeGreaterThanOrEqual(threshold);
    model.dispose();
  }, 300_000);
});

test('sort generates with the KV cache exactly what it generates without it', () => {
  const model = ap.loadModel(readFileSync(`${dir}sort.safetensors`));
  const a = model.generate('q7c3zb9a', { maxTokens: 12, useCache: true });
  const b = model.generate('q7c3zb9a', { maxTokens: 12, useCache: false });
  expect(a.text).toBe('379abcqz');
  expect(Array.from(a.tokens)).toEqual(Array.from(b.tokens));
  for (let i = 0; i < a.steps.length; i++) {
    const la = a.steps[i].trace.get('logits'), lb = b.steps[i].trace.get('logits');
    const V = model.vocab.length;
    const lastA = la.subarray(la.length - V), lastB = lb.subarray(lb.length - V);
    for (let v = 0; v < V; v++) expect(Math.abs(lastA[v] - lastB[v])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(lastB[v])));
  }
  a.dispose(); b.dispose(); model.dispose();
});
