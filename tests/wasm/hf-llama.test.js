// Issue 26, parts 3 and 4: Hugging Face Llama, Mistral and Qwen2 folders through ap.loadPretrained, against
// PyTorch. The folders and the golden values come from tests/reference/make_llama_fixtures.py: the Llama
// forward written from the published definitions in float64 (RMSNorm, rotate_half RoPE with rope_theta,
// repeat_kv, SwiGLU, causal and sliding-window masks), random weights saved with Hugging Face's config keys,
// tensor names and layouts (F32, F16, BF16). Every stage the core records must agree within 1e-5 relative
// to the stage's largest value (q, k, q_rot, k_rot in the core's column order: the loader permutes
// rotate_half's pairs into the core's, see rope_column in cpp/io/hf_model.cpp).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HF = join(ROOT, 'tests/fixtures/hf');
const expected = (name) => JSON.parse(readFileSync(join(HF, 'expected', `${name}.json`), 'utf8'));
const folder = (name) => ({
  config: readFileSync(join(HF, name, 'config.json'), 'utf8'),
  tokenizer: readFileSync(join(HF, name, 'tokenizer.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(HF, name, 'model.safetensors'))),
});
const SHARDS = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
const sharded = () => ({
  config: readFileSync(join(HF, 'mistral-tiny-sharded', 'config.json'), 'utf8'),
  tokenizer: readFileSync(join(HF, 'mistral-tiny-sharded', 'tokenizer.json'), 'utf8'),
  index: readFileSync(join(HF, 'mistral-tiny-sharded', 'model.safetensors.index.json'), 'utf8'),
  shards: Object.fromEntries(SHARDS.map((f) => [f, new Uint8Array(readFileSync(join(HF, 'mistral-tiny-sharded', f)))])),
});

let ap;
beforeAll(async () => {
  ap = await load();
});

const TOL = 1e-5;
const worstByFamily = {};
afterAll(() => {
  const rows = Object.entries(worstByFamily).map(
    ([name, { err, where }]) => `  ${name.padEnd(24)} ${err.toExponential(2)}  (${where})`,
  );
  console.log(`worst relative stage error against the torch oracle:\n${rows.join('\n')}`);
});

/**
 * max |ours - torch| / max |torch| over the finite entries of a stage; -Infinity (masked keys, written as
 * null) must be -Infinity in ours too, and nowhere else.
 */
function stageError(ours, want, where) {
  expect(ours.length, `${where}: length`).toBe(want.length);
  let diff = 0,
    scale = 0;
  for (let i = 0; i < want.length; i++) {
    if (want[i] === null) {
      expect(ours[i], `${where}[${i}] is masked`).toBe(-Infinity);
      continue;
    }
    expect(Number.isFinite(ours[i]), `${where}[${i}] = ${ours[i]}`).toBe(true);
    diff = Math.max(diff, Math.abs(ours[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return diff / Math.max(scale, 1e-30);
}

/** Softmax of each row of the oracle's logits, in float64: what the core's `probs` must be. */
function softmaxRows(logits, rows, cols) {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let max = -Infinity,
      sum = 0;
    for (let c = 0; c < cols; c++) max = Math.max(max, logits[r * cols + c]);
    for (let c = 0; c < cols; c++) sum += out[r * cols + c] = Math.exp(logits[r * cols + c] - max);
    for (let c = 0; c < cols; c++) out[r * cols + c] /= sum;
  }
  return out;
}

const key = (s) => `${s.stack}:${s.layer ?? -1}:${s.name}`;

describe.each([
  ['llama-tiny', { family: 'llama', nHeads: 4, nKvHeads: 2, window: 0, ropeTheta: 10000, tiedHead: false }],
  ['llama3-tiny', { family: 'llama', nHeads: 4, nKvHeads: 4, window: 0, ropeTheta: 500000, tiedHead: true }],
  ['mistral-tiny', { family: 'mistral', nHeads: 4, nKvHeads: 1, window: 4, ropeTheta: 1e6, tiedHead: false }],
  ['qwen2-tiny', { family: 'qwen2', nHeads: 6, nKvHeads: 2, window: 0, ropeTheta: 1e6, tiedHead: true }],
])('%s', (name, config) => {
  let fx, model;
  beforeAll(async () => {
    fx = expected(name);
    model = await ap.loadPretrained(folder(name));
  });
  afterAll(() => model?.dispose());

  test('config.json is read as the core config the oracle ran', () => {
    expect(model.pretrained).toBe(true);
    expect(model.config).toMatchObject({
      ...config,
      arch: 'decoder',
      normKind: 'rmsnorm',
      ffnKind: 'swiglu',
      pos: 'rope',
      norm: 'pre',
      headBias: false,
    });
  });

  test('every stage the core records matches PyTorch within 1e-5 (probs: the softmax of its logits)', () => {
    const trace = model.forward(Int32Array.from(fx.ids));
    const want = new Map(fx.stages.map((s) => [key(s), s]));
    const logits = want.get(':-1:logits');
    const ours = trace.stages();
    expect(ours.length).toBeGreaterThan(50); // every stage of both layers, not a sample
    let worst = { err: 0, where: '' };
    let worstBeforeProbs = { err: 0, where: '' };
    for (const s of ours) {
      const opts = { stack: s.stack, layer: s.layer ?? undefined };
      const where = `${name} ${key(s)}`;
      let data;
      if (s.name === 'probs') {
        data = softmaxRows(logits.data, logits.shape[0], logits.shape[1]);
        expect(trace.shape('probs')).toEqual(logits.shape);
      } else {
        const w = want.get(key(s));
        expect(w, `${where}: the oracle has this stage`).toBeDefined();
        expect(trace.shape(s.name, opts), where).toEqual(w.shape);
        data = w.data;
        want.delete(key(s));
      }
      const err = stageError(trace.get(s.name, opts), data, where);
      expect(err, `${where}: relative error ${err}`).toBeLessThanOrEqual(TOL);
      if (err > worst.err) worst = { err, where: key(s) };
      if (s.name !== 'probs' && err > worstBeforeProbs.err) worstBeforeProbs = { err, where: key(s) };
    }
    expect([...want.keys()], 'oracle stages the core did not record').toEqual([]);
    worstByFamily[name] = worst;
    worstByFamily[`${name} (not probs)`] = worstBeforeProbs;
    trace.dispose();
  });

  test("the text path gives the oracle's ids (the folder's tokenizer.json, special tokens included)", () => {
    expect(Array.from(model.prompt(fx.text).ids.slice(0, fx.ids.length))).toEqual(fx.ids);
  });

  test("greedy decoding with the KV cache gives PyTorch's next 8 tokens (full recompute there), as does no cache", () => {
    const g = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: true });
    expect(Array.from(g.tokens)).toEqual(fx.greedy.next);
    // After the first step the cache fed one new row; its K/V are n_kv_heads d_k wide.
    const dK = model.config.dModel / model.config.nHeads;
    expect(g.steps[1].trace.shape('q', { layer: 0 })).toEqual([1, model.config.dModel]);
    expect(g.steps[1].trace.shape('k_rot', { layer: 1 })).toEqual([fx.greedy.prompt.length + 1, config.nKvHeads * dK]);
    const noCache = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: false });
    expect(Array.from(noCache.tokens)).toEqual(fx.greedy.next);
    g.dispose();
    noCache.dispose();
  });
});

test("Mistral's window hides the keys before it in the last decoding step (18 positions, window 4)", async () => {
  const fx = expected('mistral-tiny');
  const model = await ap.loadPretrained(folder('mistral-tiny'));
  const g = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: true });
  const last = g.steps.at(-1).trace;
  const m = last.shape('masked', { layer: 0 })[2];
  const row = last.get('masked', { layer: 0, head: 0 });
  expect(Array.from(row.slice(0, m - 4)).every((x) => x === -Infinity)).toBe(true);
  expect(Array.from(row.slice(m - 4)).every(Number.isFinite)).toBe(true);
  g.dispose();
  model.dispose();
});

describe('a sharded checkpoint (model.safetensors.index.json and its shards)', () => {
  test('opens from bytes or Files, and equals the single-file folder to the bit', async () => {
    const fx = expected('mistral-tiny');
    const one = await ap.loadPretrained(folder('mistral-tiny'));
    const want = one.forward(Int32Array.from(fx.ids)).get('logits');
    const parts = sharded();
    const progress = [];
    const fromBytes = await ap.loadPretrained(parts, { onProgress: (p) => progress.push(p) });
    const total = SHARDS.reduce((n, f) => n + parts.shards[f].length, 0);
    expect(progress.at(-1)).toEqual({ loaded: total, total });
    const fromFiles = await ap.loadPretrained({
      ...parts,
      shards: (file) => Promise.resolve(new Blob([parts.shards[file]])),
    });
    for (const m of [fromBytes, fromFiles])
      expect(Array.from(m.forward(Int32Array.from(fx.ids)).get('logits'))).toEqual(Array.from(want));
    for (const m of [one, fromBytes, fromFiles]) m.dispose();
  });

  const editIndex = (edit) => {
    const p = sharded();
    const index = JSON.parse(p.index);
    edit(index, p);
    return { ...p, index: JSON.stringify(index) };
  };
  test.each([
    [
      'a shard missing',
      () => {
        const p = sharded();
        delete p.shards[SHARDS[1]];
        return p;
      },
      /model-00002-of-00002\.safetensors is missing \(model\.safetensors\.index\.json names 2 shards/,
    ],
    [
      'a tensor in another shard than the index says',
      () =>
        editIndex((i) => {
          i.weight_map['model.norm.weight'] = i.weight_map['model.norm.weight'] === SHARDS[0] ? SHARDS[1] : SHARDS[0];
        }),
      /model-0000\d-of-00002\.safetensors: tensor 'model\.norm\.weight' is not where model\.safetensors\.index\.json puts it/,
    ],
    [
      'a tensor the shards lack',
      () =>
        editIndex((i, p) => {
          // the index and the second shard both forget lm_head.weight: the shard is rewritten without it
          const file = i.weight_map['lm_head.weight'];
          delete i.weight_map['lm_head.weight'];
          p.shards[file] = withoutTensor(p.shards[file], 'lm_head.weight');
        }),
      /the shards of model\.safetensors\.index\.json: tensor 'lm_head\.weight' is missing \(mistral: config\.json's tie_word_embeddings is false/,
    ],
    [
      'an index without weight_map',
      () => editIndex((i) => delete i.weight_map),
      /model\.safetensors\.index\.json: weight_map is missing/,
    ],
    [
      'a shard path outside the folder',
      () => editIndex((i) => (i.weight_map['model.norm.weight'] = '../x.safetensors')),
      /model\.safetensors\.index\.json: weight_map\['model\.norm\.weight'\] is not a \.safetensors file in the folder/,
    ],
  ])('%s: an Error naming the file, and the module stays usable', async (_name, make, message) => {
    const full = await ap._loadTrainer();
    await expect(ap.loadPretrained(make())).rejects.toThrow(message);
    const before = full.heapUsed();
    await expect(ap.loadPretrained(make())).rejects.toThrow(message);
    expect(full.heapUsed()).toBe(before);
  });
});

/** A safetensors file's bytes without one tensor (its header entry dropped; the data stays, unreferenced). */
function withoutTensor(bytes, name) {
  const len = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len)));
  delete header[name];
  return withHeader(bytes, len, header);
}

function withHeader(bytes, len, header) {
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + (bytes.length - 8 - len));
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  out.set(bytes.subarray(8 + len), 8 + text.length);
  return out;
}

describe('bad Llama-family folders: an Error naming the file and the field, and the module stays usable', () => {
  const withConfig = (name, edit) => () => {
    const f = folder(name);
    const c = JSON.parse(f.config);
    edit(c);
    return { ...f, config: JSON.stringify(c) };
  };
  const withTensors = (name, edit) => () => {
    const f = folder(name);
    const w = f.weights;
    const len = Number(new DataView(w.buffer, w.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(w.subarray(8, 8 + len)));
    edit(header);
    return { ...f, weights: withHeader(w, len, header) };
  };
  test.each([
    [
      'rope_scaling set',
      withConfig('llama-tiny', (c) => (c.rope_scaling = { rope_type: 'llama3', factor: 8 })),
      /config\.json: rope_scaling is \{"factor":8,"rope_type":"llama3"\}: scaled RoPE .* is not supported/,
    ],
    [
      'num_key_value_heads not dividing num_attention_heads',
      withConfig('llama-tiny', (c) => (c.num_key_value_heads = 3)),
      /config\.json: num_key_value_heads \(3\) must divide num_attention_heads \(4\)/,
    ],
    [
      'an unknown hidden_act',
      withConfig('mistral-tiny', (c) => (c.hidden_act = 'gelu')),
      /config\.json: hidden_act 'gelu' is not supported \(silu: SwiGLU\)/,
    ],
    [
      'rope_theta out of range',
      withConfig('qwen2-tiny', (c) => (c.rope_theta = -1)),
      /config\.json: rope_theta is out of range \(-1\)/,
    ],
    [
      'a head_dim that is not hidden_size / heads',
      withConfig('llama-tiny', (c) => (c.head_dim = 16)),
      /config\.json: head_dim is not hidden_size \/ num_attention_heads \(8\)/,
    ],
    ['mlp_bias', withConfig('llama-tiny', (c) => (c.mlp_bias = true)), /config\.json: mlp_bias is true/],
    [
      "Qwen2's window on some layers only",
      withConfig('qwen2-tiny', (c) => Object.assign(c, { use_sliding_window: true, max_window_layers: 1 })),
      /config\.json: max_window_layers \(1\) windows some layers only/,
    ],
    [
      'an untied config with no lm_head.weight',
      withConfig('qwen2-tiny', (c) => (c.tie_word_embeddings = false)),
      /model\.safetensors: tensor 'lm_head\.weight' is missing \(qwen2: config\.json's tie_word_embeddings is false/,
    ],
    [
      'a missing tensor',
      withTensors('llama-tiny', (h) => delete h['model.layers.1.mlp.gate_proj.weight']),
      /model\.safetensors: tensor 'model\.layers\.1\.mlp\.gate_proj\.weight' is missing/,
    ],
    [
      'a missing Qwen2 bias',
      withTensors('qwen2-tiny', (h) => delete h['model.layers.0.self_attn.k_proj.bias']),
      /model\.safetensors: tensor 'model\.layers\.0\.self_attn\.k_proj\.bias' is missing/,
    ],
    [
      'a bias Llama without attention_bias does not have',
      withTensors('llama-tiny', (h) => (h['model.layers.0.self_attn.q_proj.bias'] = h['model.norm.weight'])),
      /model\.safetensors: tensor 'model\.layers\.0\.self_attn\.q_proj\.bias' is not part of a llama model/,
    ],
    [
      'a K projection of the multi-head width in a grouped model',
      withTensors('llama-tiny', (h) => (h['model.layers.0.self_attn.k_proj.weight'].shape = [32, 16])),
      /model\.safetensors: tensor 'model\.layers\.0\.self_attn\.k_proj\.weight' has shape \[32, 16\] but config\.json gives \[16, 32\]/,
    ],
  ])('%s', async (_name, make, message) => {
    const full = await ap._loadTrainer();
    await expect(ap.loadPretrained(make())).rejects.toThrow(message);
    const before = full.heapUsed();
    await expect(ap.loadPretrained(make())).rejects.toThrow(message);
    expect(full.heapUsed()).toBe(before);
    const ok = await ap.loadPretrained(folder('llama-tiny')); // and the module goes on
    expect(ok.forward(Int32Array.from([1, 2, 3])).shape('logits')).toEqual([3, 2000]);
    ok.dispose();
  });

  test("the core checks ropeTheta for every model (the project's own too), naming it", () => {
    expect(() => ap.createModel({ pos: 'rope', ropeTheta: 1 })).toThrow(
      /rope_theta must be a finite number > 1 \(got 1\)/,
    );
    const m = ap.createModel({ pos: 'rope', ropeTheta: 500000 });
    expect(m.config.ropeTheta).toBe(500000);
    expect(ap.createModel({ pos: 'rope' }).config.ropeTheta).toBe(10000);
    m.dispose();
  });
});
