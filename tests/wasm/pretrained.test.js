// Issue 16: Hugging Face GPT-2 and BERT folders through ap.loadPretrained, against PyTorch. The
// folders and the golden values come from tests/reference/make_hf_fixtures.py: GPT-2 and BERT
// written out in torch from their published definitions, random weights saved with Hugging
// Face's tensor names and layouts (F32, F16 and BF16), every stage recorded in float64. Ours must
// agree within 1e-4 relative to each stage's largest value.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { writeGpt2SmallShape } from '../tools/lib/hf-synthetic.mjs';
import { relativeError } from './lib/compare.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HF = join(ROOT, 'tests/fixtures/hf');
const expected = (name) => JSON.parse(readFileSync(join(HF, 'expected', `${name}.json`), 'utf8'));
const folder = (dir) => ({
  config: readFileSync(join(dir, 'config.json'), 'utf8'),
  tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
});

let ap;
beforeAll(async () => {
  ap = await load();
});

/** max |ours - torch| / max |torch| over a stage: the error relative to the stage's own scale. */
const stageError = relativeError;

function expectStages(trace, stages, what) {
  let worst = 0;
  for (const s of stages) {
    const opts = { stack: s.stack, layer: s.layer < 0 ? undefined : s.layer };
    const where = `${what} ${s.name} (${s.stack} ${s.layer})`;
    expect(trace.shape(s.name, opts), where).toEqual(s.shape);
    const err = stageError(trace.get(s.name, opts), s.data);
    expect(err, `${where}: relative error ${err}`).toBeLessThanOrEqual(1e-4);
    worst = Math.max(worst, err);
  }
  return worst;
}

const argmax = (a, from = 0, to = a.length) => {
  let best = from;
  for (let i = from; i < to; i++) if (a[i] > a[best]) best = i;
  return best - from;
};

describe.each([
  ['gpt2-tiny', 'tests/fixtures/hf/gpt2-tiny', 'F32, names with "transformer."'],
  ['gpt2-tiny', 'tests/fixtures/hf/gpt2-tiny-f16', 'F16, the official gpt2 names and its attn.bias buffers'],
  ['bert-tiny', 'tests/fixtures/hf/bert-tiny', 'F32, BertForMaskedLM names'],
  ['bert-tiny', 'tests/fixtures/hf/bert-tiny-bf16', 'BF16, LayerNorm gamma/beta, pooler and decoder copies'],
  ['distilbert-tiny', 'tests/fixtures/hf/distilbert-tiny', 'F16, DistilBertForMaskedLM names, no token types'],
])('%s from %s (%s)', (name, dir) => {
  test('every traced stage and the logits match PyTorch within 1e-4', async () => {
    const fx = expected(name);
    const model = await ap.loadPretrained(folder(join(ROOT, dir)));
    expect(model.pretrained).toBe(true);
    expect(model.config.family).toBe(name.startsWith('gpt2') ? 'gpt2' : 'bert');
    const trace = model.forward(Int32Array.from(fx.ids));
    const stages = fx.stages.length;
    expect(stages).toBeGreaterThan(35); // every stage of every layer, not a sample
    const worst = expectStages(trace, fx.stages, dir);
    console.log(`${dir}: ${stages} stages, worst relative error ${worst.toExponential(2)}`);
    // The text path gives the fixture's ids (its tokenizer.json is the one the ids came from).
    expect(Array.from(model.tokenizer.encode(fx.text).ids.slice(0, fx.ids.length))).toEqual(fx.ids);
    trace.dispose();
    model.dispose();
  });
});

test("GPT-2: greedy decoding with the KV cache gives PyTorch's next 8 tokens (full recompute there)", async () => {
  const fx = expected('gpt2-tiny');
  const model = await ap.loadPretrained(folder(join(HF, 'gpt2-tiny-f16')));
  const g = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: true });
  expect(Array.from(g.tokens)).toEqual(fx.greedy.next);
  // The cache fed only the new token after the first step: the step traces have one query row.
  expect(g.steps[1].trace.shape('q', { layer: 0 })).toEqual([1, 64]);
  const noCache = model.generate(Int32Array.from(fx.greedy.prompt), { maxTokens: 8, useCache: false });
  expect(Array.from(noCache.tokens)).toEqual(fx.greedy.next);
  g.dispose();
  noCache.dispose();
  model.dispose();
});

test.each(['bert-tiny', 'distilbert-tiny'])(
  "%s: the [MASK] predictions are PyTorch's top 5 with their probabilities",
  async (name) => {
    const fx = expected(name);
    const model = await ap.loadPretrained(folder(join(HF, name)));
    expect(model.specialTokens.mask).toBe(model.vocab.indexOf('[MASK]'));
    const { ids } = model.prompt(fx.text); // [CLS] ... [SEP] from the tokenizer's own template
    expect(Array.from(ids)).toEqual(fx.ids);
    expect(ids[fx.mlm.position]).toBe(model.specialTokens.mask);
    const t = model.forward(ids);
    const probs = t.get('probs');
    const V = model.config.vocabSize;
    const row = Array.from(probs.subarray(fx.mlm.position * V, (fx.mlm.position + 1) * V));
    const top = row
      .map((p, id) => [p, id])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5);
    expect(top.map((x) => x[1])).toEqual(fx.mlm.ids);
    top.forEach(([p], i) => expect(Math.abs(p - fx.mlm.probs[i])).toBeLessThan(1e-5));
    t.dispose();
    model.dispose();
  },
);

describe("GPT-2 small's real shape (124 M parameters, generated F16 weights)", () => {
  const dir = join(ROOT, 'build/hf/gpt2-small-shape');
  let fx, model;
  beforeAll(async () => {
    fx = expected('gpt2-small-shape');
    await writeGpt2SmallShape(dir);
    const bytes = readFileSync(join(dir, 'model.safetensors'));
    expect(bytes.length).toBe(fx.bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(fx.sha256);
    // Streamed from a Blob (as a File from the page's picker is), not read whole.
    model = await ap.loadPretrained({
      config: readFileSync(join(dir, 'config.json'), 'utf8'),
      tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
      weights: new Blob([bytes]),
    });
  }, 120_000);

  test('attention of layers 0, 5, 11, the last hidden states and the logits match PyTorch', () => {
    expect(model.config).toMatchObject({
      dModel: 768,
      nHeads: 12,
      nLayers: 12,
      dFf: 3072,
      vocabSize: 50257,
      maxLen: 1024,
    });
    // Only what the check needs is kept: all layers' weights, layer 0 in full, no 50257-wide probs.
    const t = model.forward(Int32Array.from(fx.ids), {}, { layers: [0], stages: ['weights'], drop: ['probs'] });
    expect(() => t.shape('q', { layer: 3 })).toThrow(/has no layer 3/);
    expect(() => t.shape('probs')).toThrow(/no stage 'probs'/);
    expectStages(t, fx.stages, 'gpt2-small-shape');
    const logits = t.get('logits');
    const V = 50257,
      last = (fx.ids.length - 1) * V;
    const want = fx.last_logits;
    const got = Float32Array.from(want.indices, (i) => logits[last + i]);
    expect(stageError(got, want.values)).toBeLessThanOrEqual(1e-4);
    expect(argmax(logits, last, last + V)).toBe(fx.argmax);
    t.dispose();
  });

  test("greedy decoding with the KV cache gives PyTorch's next 8 tokens", () => {
    const g = model.generate(Int32Array.from(fx.greedy.prompt), {
      maxTokens: 8,
      keep: { layers: [], drop: ['probs'] },
    });
    expect(Array.from(g.tokens)).toEqual(fx.greedy.next);
    g.dispose();
  });
});

describe('bad folders: an Error naming the file and the field, and the module stays usable', () => {
  const good = () => folder(join(HF, 'gpt2-tiny'));
  const withConfig = (edit) => {
    const f = good();
    const c = JSON.parse(f.config);
    edit(c);
    return { ...f, config: JSON.stringify(c) };
  };
  const withHeader = (edit) => {
    const f = good();
    const w = f.weights;
    const len = Number(new DataView(w.buffer, w.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(w.subarray(8, 8 + len)));
    edit(header);
    let text = JSON.stringify(header);
    text += ' '.repeat((8 - (text.length % 8)) % 8);
    const out = new Uint8Array(8 + text.length + (w.length - 8 - len));
    new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
    out.set(new TextEncoder().encode(text), 8);
    out.set(w.subarray(8 + len), 8 + text.length);
    return { ...f, weights: out };
  };
  const cases = [
    ['config.json not JSON', () => ({ ...good(), config: '{"model_type": "gpt2",' }), /config\.json is not JSON/],
    ['model_type missing', () => withConfig((c) => delete c.model_type), /config\.json: model_type is missing/],
    [
      'an unsupported model_type',
      () => withConfig((c) => (c.model_type = 't5')),
      /config\.json: model_type 't5' is not supported/,
    ],
    ['n_head missing', () => withConfig((c) => delete c.n_head), /config\.json: n_head is missing/],
    [
      'n_head not dividing n_embd',
      () => withConfig((c) => (c.n_head = 5)),
      /config\.json: .*d_model.*n_heads|config\.json: .*divid/,
    ],
    ['n_embd a string', () => withConfig((c) => (c.n_embd = '64')), /config\.json: n_embd must be an integer/],
    [
      'an unknown activation',
      () => withConfig((c) => (c.activation_function = 'swish')),
      /config\.json: activation_function 'swish' is not supported/,
    ],
    [
      'scale_attn_by_inverse_layer_idx',
      () => withConfig((c) => (c.scale_attn_by_inverse_layer_idx = true)),
      /config\.json: scale_attn_by_inverse_layer_idx/,
    ],
    [
      'vocab_size smaller than the tokenizer',
      () => withConfig((c) => (c.vocab_size = 100)),
      /tokenizer\.json has \d+ tokens but config\.json's vocab_size is 100/,
    ],
    [
      'a config of another size',
      () => withConfig((c) => (c.n_embd = 32)),
      /model\.safetensors: tensor 'transformer\.h\.0\.attn\.c_attn\.bias' has shape \[192\] but config\.json gives \[96\]/,
    ],
    [
      'a tensor missing',
      () => withHeader((h) => delete h['transformer.h.1.mlp.c_fc.weight']),
      /model\.safetensors: tensor 'h\.1\.mlp\.c_fc\.weight' is missing/,
    ],
    [
      'a tensor of the wrong shape',
      () => withHeader((h) => (h['transformer.ln_f.weight'].shape = [32, 2])),
      /model\.safetensors: tensor 'transformer\.ln_f\.weight' has shape \[32, 2\]/,
    ],
    [
      'a tensor of a dtype not read',
      () =>
        withHeader((h) => {
          const t = h['transformer.ln_f.weight'];
          t.dtype = 'I32';
        }),
      /model\.safetensors: tensor 'transformer\.ln_f\.weight' has dtype I32/,
    ],
    [
      'a tensor from another model',
      () => withHeader((h) => (h['bert.pooler.dense.weight'] = { ...h['transformer.ln_f.bias'] })),
      /model\.safetensors: tensor 'bert\.pooler\.dense\.weight' is not part of a gpt2 model/,
    ],
    [
      'a truncated file',
      () => {
        const f = good();
        return { ...f, weights: f.weights.subarray(0, f.weights.length - 1000) };
      },
      /model\.safetensors: .*out of range/,
    ],
    [
      'a header cut short',
      () => ({ ...good(), weights: good().weights.subarray(0, 100) }),
      /model\.safetensors: safetensors header length \d+ is larger than the file/,
    ],
    ['tokenizer.json not JSON', () => ({ ...good(), tokenizer: '{]' }), /tokenizer\.json/],
    [
      'a tokenizer.json of an unsupported kind',
      () => {
        const f = good();
        const t = JSON.parse(f.tokenizer);
        t.model.type = 'Unigram';
        return { ...f, tokenizer: JSON.stringify(t) };
      },
      /tokenizer\.json: model\.type 'Unigram' is not supported/,
    ],
    ['weights missing', () => ({ ...good(), weights: undefined }), /model\.safetensors \(weights\) is missing/],
    // issue 25 item 2: 100,000 nested arrays overflowed the wasm stack ("Maximum call stack size exceeded")
    [
      'a config.json nested 100,000 deep',
      () => ({ ...good(), config: `{"junk": ${'['.repeat(1e5)}${']'.repeat(1e5)}, ${good().config.slice(1)}` }),
      /config\.json nests more than 64 levels deep/,
    ],
    [
      'a tokenizer.json nested 100,000 deep',
      () => ({ ...good(), tokenizer: `{"junk": ${'['.repeat(1e5)}${']'.repeat(1e5)}, ${good().tokenizer.slice(1)}` }),
      /tokenizer\.json nests more than 64 levels deep/,
    ],
  ];

  test.each(cases)('%s', async (_name, make, message) => {
    const parts = make();
    const full = await ap._loadTrainer();
    await expect(ap.loadPretrained(parts)).rejects.toThrow(message);
    // Twice: the second failure must leave the heap exactly as the first did (the half-read model
    // and the loader are freed; only the core's last-error text may have grown the first time).
    const before = full.heapUsed();
    await expect(ap.loadPretrained(parts)).rejects.toThrow(message);
    expect(full.heapUsed()).toBe(before);
  });

  // A hostile file may put megabytes in a field the reader quotes when it refuses it (issue 25
  // item 3): the Error names the field and stays short, and the module goes on.
  test.each([
    // [field, edit, message, quoted: the reader quotes the value: its first 40 bytes at most, cut at
    // a character (before the core quoted 40 bytes, the bindings cut the whole message at 400)]
    [
      'model.type',
      (t) => (t.model.type = 'X'.repeat(5e6)),
      /^tokenizer\.json: model\.type 'X{37}\.\.\.' is not supported \(/,
      true,
    ],
    [
      'unk_token',
      (t) => (t.model.unk_token = 'é'.repeat(2.5e6)),
      /^tokenizer\.json: model\.unk_token 'é{18}\.\.\.' is not in model\.vocab$/,
      true,
    ],
    [
      'a merge',
      (t) => (t.model.merges[0] = 'Y'.repeat(5e6)),
      /^tokenizer\.json: model\.merges\[0\] is not a pair$/,
      false,
    ],
  ])('a 5 MB %s: the message names it in at most 400 bytes', async (_name, edit, message, quoted) => {
    const f = good();
    const t = JSON.parse(f.tokenizer);
    edit(t);
    const err = await ap.loadPretrained({ ...f, tokenizer: JSON.stringify(t) }).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(message);
    expect(new TextEncoder().encode(err.message).length).toBeLessThanOrEqual(400);
    if (quoted) expect(err.message.match(/'([^']*)'/)[1]).toMatch(/\.\.\.$/); // a prefix, marked as cut
  });

  // A weights Response (as fetch gives one) whose body stalls, breaks or closes early (issue 25
  // item 1 and 2): an Error naming model.safetensors and how far it came, never a promise pending
  // for ever, and the heap as it was.
  const streamed = (bytes, { stopAt = Infinity, then = 'stall' } = {}) => {
    let at = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (at >= stopAt) {
          if (then === 'error') controller.error(new TypeError('network error'));
          else if (then === 'close') controller.close();
          return new Promise(() => {}); // 'stall': no more bytes, ever
        }
        const end = Math.min(bytes.length, stopAt, at + 65536);
        controller.enqueue(bytes.slice(at, end));
        at = end;
        if (at >= bytes.length) controller.close();
      },
    });
    return new Response(body, { headers: { 'content-length': String(bytes.length) } });
  };
  test.each([
    [
      'stalls after its headers',
      { stopAt: 0 },
      /^loadPretrained: model\.safetensors stopped arriving \(after 0 of \d+ bytes; nothing for 0\.3 s\)/,
    ],
    [
      'stalls halfway',
      { stopAt: 131072 },
      /^loadPretrained: model\.safetensors stopped arriving \(after 131072 of \d+ bytes/,
    ],
    [
      'breaks halfway',
      { stopAt: 131072, then: 'error' },
      /^loadPretrained: model\.safetensors could not be read after 131072 of \d+ bytes \(network error\)/,
    ],
    [
      'closes early',
      { stopAt: 131072, then: 'close' },
      /^loadPretrained: model\.safetensors ended after 131072 of its \d+ bytes/,
    ],
  ])('a weights Response that %s: an Error naming the file', async (_name, how, message) => {
    const full = await ap._loadTrainer();
    const f = good();
    await expect(ap.loadPretrained({ ...f, weights: streamed(f.weights, how) }, { stallMs: 300 })).rejects.toThrow(
      message,
    );
    const before = full.heapUsed();
    await expect(ap.loadPretrained({ ...f, weights: streamed(f.weights, how) }, { stallMs: 300 })).rejects.toThrow(
      message,
    );
    expect(full.heapUsed()).toBe(before);
    // The same folder streamed whole loads.
    const model = await ap.loadPretrained({ ...f, weights: streamed(f.weights) }, { stallMs: 300 });
    model.dispose();
  });

  test('a 200 MB config.json (by its Content-Length) is refused before it is read', async () => {
    const f = good();
    const huge = new Response(new ReadableStream({ pull() {} }), { headers: { 'content-length': String(200 << 20) } });
    await expect(ap.loadPretrained({ ...f, config: huge })).rejects.toThrow(
      /^loadPretrained: config\.json is 200\.0 MB, more than the 1 MB such a file can be$/,
    );
  });

  // Without a Content-Length (a chunked answer) the text is read chunk by chunk and stopped once it
  // passes the limit: an endless config.json would otherwise fill the tab's memory.
  test('a config.json streamed with no Content-Length that never ends is stopped past 1 MB', async () => {
    const f = good();
    let sent = 0;
    let cancelled = false;
    const endless = new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(65536).fill(0x20)); // spaces, for ever
          sent += 65536;
        },
        cancel() {
          cancelled = true;
        },
      }),
    );
    expect(endless.headers.get('content-length')).toBe(null);
    await expect(ap.loadPretrained({ ...f, config: endless })).rejects.toThrow(
      /^loadPretrained: config\.json is more than the 1 MB such a file can be \(1\.1 MB had come, and it went on\)$/,
    );
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan(2 << 20);
    // the same file with an end under the limit, no Content-Length either: read as before
    const once = new Response(
      new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(f.config)), c.close()) }),
    );
    const model = await ap.loadPretrained({ ...f, config: once });
    expect(model.config.nLayers).toBeGreaterThan(0);
    model.dispose();
  });

  test('after every failure a good folder still loads and gives the same numbers', async () => {
    const fx = expected('gpt2-tiny');
    const model = await ap.loadPretrained(good());
    const t = model.forward(Int32Array.from(fx.ids));
    expect(stageError(t.get('logits'), fx.stages.find((s) => s.name === 'logits').data)).toBeLessThanOrEqual(1e-4);
    t.dispose();
    model.dispose();
  });

  test("a pretrained model is not saved in the playground's own format", async () => {
    const model = await ap.loadPretrained(good());
    expect(() => model.save()).toThrow(/Hugging Face folder is the file to keep/);
    model.dispose();
  });
});

// Issue 25: loadPretrained's AbortSignal, and 50 refused loads of assorted hostile folders leave
// the heap where it was (one warm-up round first: the core keeps its last error text).
describe('cancelled and refused loads free what they held', () => {
  const good = () => {
    const dir = join(HF, 'gpt2-tiny');
    return {
      config: readFileSync(join(dir, 'config.json'), 'utf8'),
      tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
      weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
    };
  };

  test('an AbortSignal aborted while the weights stall: a cancelled Error, the heap as before', async () => {
    const full = await ap._loadTrainer();
    const f = good();
    const stalling = () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(f.weights.slice(0, 70000)); // the header and a little, then nothing
          },
        }),
        { headers: { 'content-length': String(f.weights.length) } },
      );
    const before = full.heapUsed();
    for (let i = 0; i < 3; i++) {
      const abort = new AbortController();
      const loading = ap.loadPretrained({ ...f, weights: stalling() }, { signal: abort.signal });
      setTimeout(() => abort.abort(), 50);
      const err = await loading.catch((e) => e);
      expect(err.message).toBe('loadPretrained: cancelled');
      expect(err.cancelled).toBe(true);
    }
    expect(full.heapUsed()).toBe(before);
    const already = new AbortController();
    already.abort();
    await expect(ap.loadPretrained(f, { signal: already.signal })).rejects.toThrow('loadPretrained: cancelled');
  });

  test('50 refused hostile folders (7 kinds): heapUsed returns to its start, and a good folder gives the same logits', async () => {
    const full = await ap._loadTrainer();
    const f = good();
    const deep = `${'['.repeat(1e5)}${']'.repeat(1e5)}`;
    const kinds = [
      { ...f, config: '{' },
      { ...f, config: `{"junk": ${deep}, ${f.config.slice(1)}` },
      { ...f, tokenizer: `{"junk": ${deep}, ${f.tokenizer.slice(1)}` },
      { ...f, tokenizer: '{"model": {"type": "BPE"}}' },
      { ...f, weights: f.weights.slice(0, f.weights.length - 100) },
      { ...f, weights: Uint8Array.from([16, 0, 0, 0, 0, 0, 0, 0, ...new TextEncoder().encode('{"x":{"dtype":1}}')]) },
      { ...f, config: JSON.stringify({ ...JSON.parse(f.config), model_type: 'x'.repeat(5e6) }) },
    ];
    const logits = async () => {
      const m = await ap.loadPretrained(f);
      const t = m.forward(Int32Array.of(1, 2, 3));
      const out = Array.from(t.get('logits'));
      t.dispose();
      m.dispose();
      return out;
    };
    const first = await logits();
    for (const k of kinds)
      await expect(ap.loadPretrained(k)).rejects.toThrow(/^loadPretrained: |config\.json|tokenizer\.json|safetensors/);
    const start = full.heapUsed();
    let refused = 0;
    for (let i = 0; i < 50; i++) {
      await expect(ap.loadPretrained(kinds[i % kinds.length])).rejects.toThrow();
      refused++;
    }
    expect(refused).toBe(50);
    expect(full.heapUsed()).toBe(start);
    expect(await logits()).toEqual(first);
  });
});
