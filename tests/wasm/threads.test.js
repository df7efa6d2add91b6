// Issue 27 item 1: the threaded module (wasm/build/ap_mt.*, pthreads on shared memory) gives the
// same numbers as the single-thread modules, bit for bit: the core splits work only over independent
// outputs (rows and column panels of the products, query blocks and heads of attention), never a sum.
// Checked on the PyTorch fixtures (every attention stage and whole models, also against PyTorch
// itself), on attention big enough to be split over threads, and on GPT-2 small's real shape
// (PyTorch's greedy ids, and the prefill's logits equal to the single-thread module's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { load, loadTrainer, threadPlan } from '../../wasm/index.js';
import { writeGpt2SmallShape } from '../tools/lib/hf-synthetic.mjs';
import { attentionOptions, expectClose, fixtureModel, fixtureNames, loadFixture } from './fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HF = join(ROOT, 'tests/fixtures/hf');
const expected = (name) => JSON.parse(readFileSync(join(HF, 'expected', `${name}.json`), 'utf8'));

// Two threads: the machines this runs on have two cores (threadPlan caps a larger count to the cores).
const THREADS = 2;
let one, full, mt;
beforeAll(async () => {
  one = await load(); // the first module (single thread)
  full = await loadTrainer({ threads: 1 }); // the trainer module (single thread): the Hugging Face reader
  mt = await load({ threads: THREADS });
}, 60_000);

test('load({ threads }) gives the threaded module, its pool at the count asked for; load() stays single-thread', () => {
  expect(threadPlan({ threads: THREADS })).toMatchObject({ threads: THREADS, allowed: true });
  expect(mt).not.toBe(one);
  expect(mt.kernels.info()).toMatchObject({ variant: 'simd128', threads: THREADS });
  expect(one.kernels.info().threads).toBe(1);
  expect(full.kernels.info().threads).toBe(1);
  // The threaded module has the whole API: the trainer module behind it is itself.
  expect(typeof mt._raw.createTrainer).toBe('function');
});

test('a thread count that is not a positive integer is an Error naming the option', () => {
  for (const bad of [0, -1, 1.5, '2', NaN])
    expect(() => threadPlan({ threads: bad })).toThrow(/threads must be a positive integer/);
  expect(() => load({ threads: 0 })).toThrow(/threads must be a positive integer/);
  // More threads than cores: capped, the core's pool clamps again.
  expect(threadPlan({ threads: 100000 }).threads).toBe(threadPlan({ threads: 100000 }).max);
});

test('bad input to the threaded module is an Error naming the problem, and the module stays usable', async () => {
  // (A C++ exception must reach the bindings' catch by its type: the core's message is the Error's.)
  const dir = join(HF, 'gpt2-tiny');
  const parts = (edit) => ({
    config: JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')), ...edit }),
    tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
  });
  await expect(mt.loadPretrained(parts({ n_head: 5 }))).rejects.toThrow(
    'config.json: d_model (64) is not divisible by n_heads (5)',
  );
  expect(() => mt.loadModel(new Uint8Array(20))).toThrow(/^loadModel: .*(safetensors|header)/);
  const model = await mt.loadPretrained(parts({}));
  expect(model.config.nHeads).toBe(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).n_head);
  model.dispose();
});

const bitsEqual = (a, b) => {
  expect(a.length).toBe(b.length);
  expect(
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ),
  ).toBe(0);
};

describe.each([...fixtureNames('attention_'), ...fixtureNames('torch_mha')])('%s', (name) => {
  test('every attention stage: the single-thread bits, and PyTorch within 1e-5', () => {
    const fx = loadFixture(name);
    const opts = attentionOptions(fx);
    const a = one.attention(opts),
      b = mt.attention(opts);
    for (const [stage, want] of Object.entries(fx.stages)) {
      bitsEqual(b.get(stage), a.get(stage));
      expectClose(b.get(stage), want, `${name}.${stage}`);
    }
    a.dispose();
    b.dispose();
  });
});

describe.each(fixtureNames('model_'))('%s', (name) => {
  test('every stage of the whole model: the single-thread bits', () => {
    const fx = loadFixture(name);
    const run = (ap) => {
      const model = fixtureModel(ap, fx);
      const t =
        fx.config.arch === 'encoder-decoder'
          ? model.forward({ src: fx.inputs.src_ids, tgt: fx.inputs.tgt_ids })
          : model.forward(fx.inputs.ids);
      const out = Object.fromEntries(t.stages().map((s) => [JSON.stringify(s), t.get(s.name, s)]));
      t.dispose();
      model.dispose();
      return out;
    };
    const a = run(one),
      b = run(mt);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    expect(Object.keys(a).length).toBeGreaterThan(20);
    for (const k of Object.keys(a)) bitsEqual(b[k], a[k]);
  });
});

// Shapes the core splits over the two threads (every call above a few hundred thousand
// multiply-adds): n = 256 and 1024 at d_k = 64, causal and not, a sliding window, 12 heads.
test.each([
  [256, 1, false, 0],
  [1024, 1, false, 0],
  [1000, 1, true, 0],
  [300, 12, true, 0],
  [700, 2, true, 64],
])('kernels.attention n = %i, %i heads, causal %s, window %i: the single-thread bits', (n, nHeads, causal, window) => {
  const dK = 64,
    size = n * nHeads * dK;
  let s = 12345;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const q = Float32Array.from({ length: size }, rand),
    k = Float32Array.from({ length: size }, rand),
    v = Float32Array.from({ length: size }, rand);
  const opts = { q, k, v, n, dK, nHeads, causal, window };
  const a = one.kernels.attention(opts),
    b = mt.kernels.attention(opts);
  bitsEqual(b, a);
  // ... and the threaded online kernel agrees with the threaded full path (an independent order).
  const f = mt.kernels.attention({ ...opts, full: true });
  let worst = 0;
  for (let i = 0; i < size; i++) worst = Math.max(worst, Math.abs(f[i] - b[i]));
  expect(worst).toBeLessThanOrEqual(1e-5);
});

test("GPT-2 (tiny fixture): greedy decoding gives PyTorch's next 8 tokens on the threaded module", async () => {
  const fx = expected('gpt2-tiny');
  const dir = join(HF, 'gpt2-tiny-f16');
  const model = await mt.loadPretrained({
    config: readFileSync(join(dir, 'config.json'), 'utf8'),
    tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
  });
  const g = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: true });
  expect(Array.from(g.tokens)).toEqual(fx.greedy.next);
  g.dispose();
  model.dispose();
});

describe("GPT-2 small's real shape on the threaded module", () => {
  const dir = join(ROOT, 'build/hf/gpt2-small-shape');
  let fx, parts;
  beforeAll(async () => {
    fx = expected('gpt2-small-shape');
    await writeGpt2SmallShape(dir);
    parts = () => ({
      config: readFileSync(join(dir, 'config.json'), 'utf8'),
      tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
      weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
    });
  }, 120_000);

  test("greedy decoding with the KV cache gives PyTorch's next 8 tokens; the prefill's logits are the single-thread module's bits", async () => {
    const logits = async (ap) => {
      const model = await ap.loadPretrained(parts());
      const t = model.forward(Int32Array.from(fx.ids), {}, { layers: [], drop: ['probs'] });
      const out = t.get('logits');
      t.dispose();
      if (ap === mt) {
        const g = model.generate(Int32Array.from(fx.greedy.prompt), {
          maxTokens: 8,
          keep: { layers: [], drop: ['probs'] },
        });
        expect(Array.from(g.tokens)).toEqual(fx.greedy.next);
        g.dispose();
      }
      model.dispose();
      return out;
    };
    const b = await logits(mt);
    const a = await logits(full);
    expect(a.length).toBe(fx.ids.length * 50257);
    bitsEqual(b, a);
  }, 300_000);
});
