// A student opens a real Hugging Face folder (config.json, model.safetensors, tokenizer.json) in the
// page and steps through it: through the file picker, by dropping the files on the page, and with
// ?hf=<folder URL>. What the page shows is compared with the same folder read by the JS API in Node
// (ap.loadPretrained, same text); a bad folder shows the loader's message and the page goes on; a
// GPT-2-small-shaped folder (12 layers x 12 heads, 250 MB of F16) shows its 144 heads at a glance.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { inject } from 'vitest';
import { load } from '../../wasm/index.js';
import { ROOT, usePlayground } from './harness.js';
import { writeGpt2SmallShape } from '../tools/lib/hf-synthetic.mjs';

const playground = usePlayground();
const HF = join(ROOT, 'tests', 'fixtures', 'hf');
const FILES = ['config.json', 'tokenizer.json', 'model.safetensors'];
const SHARDS = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
const RECAP = '/#chapter=recap';
// Same float32 computation; Chromium runs the relaxed-SIMD (fused multiply-add) kernels where Node
// runs plain SIMD, so a few units in the last place of float32 (as tests/web/playground.test.js).
const TOL = 4e-6;

let ap;
const nodeModels = new Map();
beforeAll(async () => {
  ap = await load();
});
afterAll(() => {
  for (const m of nodeModels.values()) m.dispose();
});

async function nodeModel(dir) {
  if (!nodeModels.has(dir)) {
    const m = await ap.loadPretrained({
      config: readFileSync(join(dir, 'config.json'), 'utf8'),
      tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
      weights: readFileSync(join(dir, 'model.safetensors')),
    });
    nodeModels.set(dir, m);
  }
  return nodeModels.get(dir);
}

async function openRecap(viewport) {
  const opened = await playground.open(RECAP, viewport ? { viewport } : undefined);
  await opened.page.waitForFunction(() => document.querySelector('ap-stepper')?.dataset.rendered);
  return opened;
}

// Waits until the controls opened a model (its key) or showed an error (its message).
async function opened(page) {
  const h = await page.waitForFunction(
    () => {
      const c = document.querySelector('ap-controls');
      return c.dataset.opening ? null : c.dataset.opened || (c.dataset.openError && `error: ${c.dataset.openError}`);
    },
    null,
    { timeout: 120_000, polling: 100 },
  );
  return h.jsonValue();
}

async function pickFiles(page, dir) {
  await page.locator('ap-controls summary', { hasText: 'Open a Hugging Face model' }).click();
  await page.locator('ap-controls #hf-files').setInputFiles(FILES.map((f) => join(dir, f)));
  return opened(page);
}

// Waits for the view `tag` to have drawn the page's model `key` on `text` (scrolled into view first).
async function drawn(page, tag, key, text) {
  await page.locator(tag).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    ([t, k, x]) => {
      const w = document.querySelector(t);
      return w?.dataset.rendered?.includes(k) && (x == null || w.dataset.text === x);
    },
    [tag, key, text],
    { timeout: 60_000 },
  );
}

// The stepper on step `id`: its output heatmap's values.
async function stepOut(page, id) {
  await page.locator(`ap-stepper button[data-step="${id}"]`).click();
  await page.waitForFunction((i) => document.querySelector('ap-stepper').dataset.step === i, id);
  return page.locator('ap-stepper').evaluate((s) => {
    const h = s.shadowRoot.querySelector('.out ap-heatmap');
    return { rows: h.matrix.rows, cols: h.matrix.cols, values: Array.from(h.matrix.values) };
  });
}

// Equal to Node's within TOL (relative to the value for values above 1).
function expectClose(got, want) {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++)
    worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i])));
  expect(worst).toBeLessThanOrEqual(TOL);
}

async function setText(page, text) {
  await page.locator('ap-controls #text').fill(text);
}

/**
 * The folder `dir` opened through the file picker: it becomes the page's model, picked in the
 * model picker with a label naming `family` and the size; `text` typed and the stepper drawn.
 * The same folder opened in Node: { key, m, ids } (ids: the text as the model reads it).
 */
async function pickedWithText(page, dir, family, text) {
  const key = await pickFiles(page, dir);
  expect(key).toMatch(/^hf:/);
  expect(await page.locator('ap-controls #model option:checked').textContent()).toMatch(
    new RegExp(`^${family} \\(your files, \\d+ k parameters\\)$`),
  );
  await setText(page, text);
  await drawn(page, 'ap-stepper', key, text);
  const m = await nodeModel(dir);
  return { key, m, ids: m.prompt(text).ids };
}

/** The heads view on the opened model: `maps` small maps (every layer x head), the enlarged one equal to Node's weights. */
async function expectHeadsView(page, { key, text, m, ids }, maps) {
  await page.evaluate(() => (location.hash = '#concept=heads'));
  await drawn(page, 'ap-heads', key, text);
  expect(await page.locator('ap-heads .all-heads button.mini-map').count()).toBe(maps);
  const big = await page.locator('ap-heads .big-head ap-heatmap').evaluate((h) => Array.from(h.matrix.values));
  const layer = Number(await page.locator('ap-heads .big-head').getAttribute('data-layer'));
  const head = Number(await page.locator('ap-heads .big-head').getAttribute('data-head'));
  const t = m.forward(ids, {}, { layers: [layer] });
  try {
    expectClose(big, t.get('weights', { layer, head }));
  } finally {
    t.dispose();
  }
}

describe('a Hugging Face folder in the page', () => {
  test('gpt2-tiny through the file picker: the stepper and the heads show the Node API numbers', async () => {
    const { page, errors } = await openRecap();
    const dir = join(HF, 'gpt2-tiny');
    const text = 'the cat sat on the mat';
    const { key, m, ids } = await pickedWithText(page, dir, 'GPT-2', text);
    const t0 = m.forward(ids, {}, { layers: [0], stages: ['weights'] });
    try {
      const q = await stepOut(page, 'decoder:0:q');
      expect([q.rows, q.cols]).toEqual([ids.length, m.config.dModel]);
      expectClose(q.values, t0.get('q', { layer: 0 }));
      const w = await stepOut(page, 'decoder:0:weights');
      expectClose(w.values, t0.get('weights', { layer: 0, head: 0 }));
    } finally {
      t0.dispose();
    }
    // GPT-2's activation is GELU with the tanh approximation (config "gelu_new"; the core's gelu_tanh):
    // the step names it so and writes its formula (it once said ReLU, and zeroed nothing).
    expect(m.config.act).toBe('gelu_tanh');
    const act = await stepOut(page, 'decoder:0:ffn_act');
    const hid = m.forward(ids, {}, { layers: [0] });
    try {
      expectClose(act.values, hid.get('ffn_act', { layer: 0 }));
    } finally {
      hid.dispose();
    }
    expect(await page.locator('ap-stepper .step-title').textContent()).toBe(
      'Activation: GELU (tanh approximation), a smooth ReLU',
    );
    expect(await page.locator('ap-stepper').evaluate((s) => s.shadowRoot.textContent)).not.toMatch(/ReLU zeroed/);
    // Layer 1 in full: the page's layer picker.
    await page.locator('ap-stepper #step-layer').selectOption('1');
    await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.layer === '1');
    await page.locator('ap-stepper button[data-step="decoder:1:q"]').waitFor({ state: 'attached' });
    const t1 = m.forward(ids, {}, { layers: [1] });
    try {
      const q1 = await stepOut(page, 'decoder:1:q');
      expectClose(q1.values, t1.get('q', { layer: 1 }));
    } finally {
      t1.dispose();
    }

    // The heads view: every layer x head (2 x 4), one map each, equal to Node's weights.
    await expectHeadsView(page, { key, text, m, ids }, m.config.nLayers * m.config.nHeads);
    // Click a small map: it becomes the enlarged one.
    await page.locator('ap-heads button.mini-map[data-layer="1"][data-head="2"]').click();
    await page.waitForFunction(() => {
      const b = document.querySelector('ap-heads').shadowRoot.querySelector('.big-head');
      return b.dataset.layer === '1' && b.dataset.head === '2';
    });

    // Decoding, sampling and the KV cache generate with it (greedy: Node's tokens).
    const g = m.generate(text, { maxTokens: 14 });
    const tokens = Array.from(g.tokens);
    g.dispose();
    for (const view of ['decoding', 'sampling', 'kv-cache']) {
      await page.evaluate((v) => (location.hash = `#concept=${v}`), view);
      await drawn(page, `ap-${view}`, key, text);
      expect(await page.locator(`ap-${view}`).getAttribute('data-error')).toBeNull();
      expect(await page.locator(`ap-${view} select`).first().inputValue()).toBe(key);
    }
    const chosen = await page.locator('ap-decoding').getAttribute('data-chosen');
    expect(chosen).toBe(m.tokenizer.decode([tokens[0]]) || m.vocab[tokens[0]]);

    // The FFN view names the same activation.
    await page.evaluate(() => (location.hash = '#concept=ffn'));
    await drawn(page, 'ap-ffn', key, text);
    expect(await page.locator('ap-ffn h4', { hasText: /^2\. / }).textContent()).toMatch(
      /^2\. GELU \(tanh approximation\): which hidden units pass/,
    );

    // model-sizes: its config.json in the calculator, beside the count of its tensors.
    await page.evaluate(() => (location.hash = '#concept=model-sizes'));
    await drawn(page, 'ap-model-sizes', key, null);
    const count = m.tensors().reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0);
    expect(Number(await page.locator('ap-model-sizes').getAttribute('data-hf-params'))).toBe(count);
    expect(Number(await page.locator('ap-model-sizes').getAttribute('data-total'))).toBe(count);

    // context-embeddings follows a one-token word through its layers.
    await page.evaluate(() => (location.hash = '#concept=context-embeddings'));
    await page.locator('ap-context-embeddings').waitFor({ state: 'attached' });
    await page.evaluate(() => {
      const w = document.querySelector('ap-context-embeddings');
      w.setAttribute('a', 'the cat sat on it');
      w.setAttribute('b', 'it is on the mat');
      w.setAttribute('word', 'on');
    });
    await page.waitForFunction(
      () => document.querySelector('ap-context-embeddings').dataset.rendered?.includes('it is on the mat'),
      null,
      { timeout: 60_000 },
    );
    await drawn(page, 'ap-context-embeddings', key, null);
    expect(await page.locator('ap-context-embeddings').getAttribute('data-error')).toBeNull();
    const sims = JSON.parse(await page.locator('ap-context-embeddings').getAttribute('data-sims'));
    expect(sims.length).toBe(m.config.nLayers + 1);
    expect(sims[0]).toBeCloseTo(1, 5); // the same token, the same embedding row
    expect(errors).toEqual([]);
  }, 240_000);

  test('bert-tiny dropped on the page: the stepper, and its [MASK] predictions in bert-gpt', async () => {
    const { page, errors } = await openRecap();
    const dir = join(HF, 'bert-tiny');
    const files = FILES.map((name) => ({ name, b64: readFileSync(join(dir, name)).toString('base64') }));
    await page.evaluate((list) => {
      const dt = new DataTransfer();
      for (const f of list) {
        const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], f.name));
      }
      document.body.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, files);
    const key = await opened(page);
    expect(key).toMatch(/^hf:/);
    expect(await page.locator('ap-controls #model option:checked').textContent()).toMatch(/^BERT \(/);
    const text = 'the [MASK] sat';
    await setText(page, text);
    await drawn(page, 'ap-stepper', key, text);
    const m = await nodeModel(dir);
    const p = m.prompt(text);
    expect(p.pieces[0]).toBe('[CLS]');
    const t = m.forward(p.ids, {}, { layers: [0], stages: ['weights'] });
    try {
      const q = await stepOut(page, 'encoder:0:q');
      expectClose(q.values, t.get('q', { layer: 0 }));
      const w = await stepOut(page, 'encoder:0:weights');
      expectClose(w.values, t.get('weights', { layer: 0, head: 0 }));

      // bert-gpt: BERT's side is the folder's model, read at the [MASK] the student typed.
      await page.evaluate(() => (location.hash = '#concept=bert-gpt'));
      await drawn(page, 'ap-bert-gpt', key, text);
      const top = JSON.parse(await page.locator('ap-bert-gpt').getAttribute('data-bert-top'));
      const at = Array.from(p.ids).indexOf(m.specialTokens.mask);
      const V = m.config.vocabSize;
      const probs = t.get('probs').subarray(at * V, (at + 1) * V);
      const want = Array.from(probs.keys())
        .sort((a, b) => probs[b] - probs[a])
        .slice(0, top.length);
      expect(top.map((x) => x[0])).toEqual(want);
      for (const [id, v] of top) expect(Math.abs(v - probs[id])).toBeLessThanOrEqual(TOL);
      const title = await page.locator('ap-bert-gpt [data-model="bert"] h4').textContent();
      expect(title).toContain('BERT (your files');
      // The objectives note speaks of the folder's heads, not of the project's own encoder.
      expect(await page.locator('ap-bert-gpt .nsp').textContent()).toMatch(
        /your folder's masked-LM head \(cls\.predictions\)\. A BERT checkpoint's NSP head \(cls\.seq_relationship\) is not read/,
      );
    } finally {
      t.dispose();
    }
    // The decoding views say the BERT does not generate, and run another model.
    await page.evaluate(() => (location.hash = '#concept=decoding'));
    await page.locator('ap-decoding').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('ap-decoding').dataset.rendered, null, {
      timeout: 60_000,
    });
    expect(await page.locator('ap-decoding .note').first().textContent()).toContain('encoder-only');
    expect(errors).toEqual([]);
  }, 240_000);

  // Issue 26: a Llama folder (RMSNorm, RoPE with the loader's permuted Q/K rows, 4 query heads over 2 K/V
  // heads, SwiGLU, its own lm_head) through the picker: the stepper's RMSNorm and gated-FFN steps, the heads
  // and greedy decoding show the Node API's numbers.
  test('llama-tiny through the file picker: RMSNorm, SwiGLU and grouped heads in the stepper, heads, decoding', async () => {
    const { page, errors } = await openRecap();
    const dir = join(HF, 'llama-tiny');
    const text = 'the cat sat on the mat';
    const { key, m, ids } = await pickedWithText(page, dir, 'Llama', text);
    const t = m.forward(ids, {}, { layers: [0], stages: ['weights'] });
    try {
      // Each step's output and short label; the labels and titles are what a student reads.
      const steps = [
        ['norm1', 'norm', /^RMS norm \(pre-norm: before the sublayer\)/],
        ['q_rot', 'rotate Q', null],
        ['weights', 'softmax', null],
        ['ffn_gate', 'FFN gate', /^Gated FFN, the gate/],
        ['ffn_gate_act', 'gate activation', /^The gate's activation: SiLU/],
        ['ffn_up', 'FFN up', /^Gated FFN, the up projection/],
        ['ffn_prod', 'gate ⊙ up', /^Gate times up projection/],
        ['ffn_out', 'FFN out', null],
      ];
      for (const [name, short, title] of steps) {
        const id = `decoder:0:${name}`;
        expect(await page.locator(`ap-stepper button[data-step="${id}"]`).textContent()).toContain(short);
        const out = await stepOut(page, id);
        expectClose(out.values, t.get(name, { layer: 0, head: name === 'weights' ? 0 : undefined }));
        if (title) expect(await page.locator('ap-stepper .step-title').textContent()).toMatch(title);
      }
      // Query head 3 reads K/V head 1 (kv_group): its scores are the core's.
      await page.locator('ap-stepper button[data-step="decoder:0:scores"]').click();
      await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.step === 'decoder:0:scores');
      expect(await page.locator('ap-stepper').evaluate((s) => s.shadowRoot.textContent)).not.toMatch(/undefined|NaN/);
    } finally {
      t.dispose();
    }
    // The heads view: 2 layers x 4 heads, the enlarged map equal to Node's weights.
    await expectHeadsView(page, { key, text, m, ids }, 8);
    // Decoding and the KV cache generate with it (greedy: Node's first token).
    const g = m.generate(text, { maxTokens: 4 });
    const first = Array.from(g.tokens)[0];
    g.dispose();
    const view = async (v) => {
      await page.evaluate((c) => (location.hash = `#concept=${c}`), v);
      await drawn(page, `ap-${v}`, key, text);
      expect(await page.locator(`ap-${v}`).getAttribute('data-error'), v).toBeNull();
    };
    await view('kv-cache');
    await view('decoding');
    // The page shows the token's piece (SentencePiece's "▁" as a space), as the core gives it.
    expect(await page.locator('ap-decoding').getAttribute('data-chosen')).toBe(m.pieces[first]);
    // ... and the views of the block draw its RMSNorm and its gated FFN (the FFN view once asked for
    // ffn_hidden, which a gated FFN does not record, and showed an error).
    await view('layernorm');
    await view('ffn');
    expect(await page.locator('ap-ffn').evaluate((w) => w.shadowRoot.textContent)).toContain('This model has a gate');

    // A sharded folder through the same picker: the index and its two shards stand for model.safetensors.
    const sharded = join(HF, 'mistral-tiny-sharded');
    await page
      .locator('ap-controls #hf-files')
      .setInputFiles(
        ['config.json', 'tokenizer.json', 'model.safetensors.index.json', ...SHARDS].map((f) => join(sharded, f)),
      );
    const key2 = await opened(page);
    expect(key2).toMatch(/^hf:/);
    expect(await page.locator('ap-controls #model option:checked').textContent()).toMatch(/^Mistral \(your files,/);
    await page.evaluate(() => (location.hash = '#chapter=recap'));
    await setText(page, text);
    await drawn(page, 'ap-stepper', key2, text);
    const ms = await nodeModel(join(HF, 'mistral-tiny'));
    const t3 = ms.forward(ms.prompt(text).ids, {}, { layers: [0] });
    try {
      // The window of 4: the last query's weights are 0 on every key but its 4 last.
      const w = (await stepOut(page, 'decoder:0:weights')).values;
      expectClose(w, t3.get('weights', { layer: 0, head: 0 }));
      const n = Math.sqrt(w.length);
      expect(n).toBeGreaterThan(4);
      expect(w.slice((n - 1) * n, n * n - 4).every((x) => x === 0)).toBe(true);
    } finally {
      t3.dispose();
    }
    expect(errors).toEqual([]);
  }, 240_000);

  test('a bad folder (n_head 5) names config.json, and the page goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-bad-hf-'));
    try {
      for (const f of FILES) copyFileSync(join(HF, 'gpt2-tiny', f), join(dir, f));
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      config.n_head = 5;
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      const { page, errors } = await openRecap();
      const result = await pickFiles(page, dir);
      expect(result).toMatch(/^error: /);
      const alert = await page.locator('ap-controls .hf-error[role="alert"]').textContent();
      expect(alert).toContain('config.json');
      // The page still works: the model picker is unchanged and a new text is drawn.
      expect(await page.locator('ap-controls #model').inputValue()).toBe('english');
      await setText(page, 'the dog sleeps');
      await page.locator('ap-stepper').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.text === 'the dog sleeps');
      // Missing files are named too.
      await page.locator('ap-controls #hf-files').setInputFiles([join(dir, 'config.json')]);
      const missing = await opened(page);
      expect(missing).toContain('model.safetensors');
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  test('?hf=<folder URL> opens the static server copy of a fixture (CORS)', async () => {
    const staticUrl = inject('apStaticUrl');
    const folder = new URL('tests/fixtures/hf/gpt2-tiny', staticUrl).href;
    const context = await playground.browser.newContext({ viewport: { width: 1100, height: 800 } });
    try {
      const page = await context.newPage();
      // The test's static server sends no CORS headers: answer as a CORS-enabled host would.
      await page.route(`${new URL(staticUrl).origin}/**`, async (route) => {
        const res = await route.fetch();
        await route.fulfill({ response: res, headers: { ...res.headers(), 'access-control-allow-origin': '*' } });
      });
      await page.goto(new URL(`/?hf=${encodeURIComponent(folder)}#chapter=recap`, playground.baseUrl).href);
      const key = await opened(page);
      expect(key).toBe('hf:gpt2-tiny');
      expect(await page.locator('ap-controls #model option:checked').textContent()).toMatch(
        /^GPT-2 \(your folder: gpt2-tiny,/,
      );
      await drawn(page, 'ap-stepper', key, null);
      // The URL keeps ?hf= (a reload opens it again) and names the model.
      expect(new URL(page.url()).searchParams.get('hf')).toBe(folder);
    } finally {
      await context.close();
    }
  }, 240_000);

  // issue 25 item 1: a ?hf= server that answers the two JSON files and then never sends the weights
  // left "Reading…" with no way out; Cancel stops it, says so, and the page keeps its model.
  test('?hf= to a server that stalls on the weights: Cancel stops the load and the page keeps its model', async () => {
    const { page, errors } = await playground.open('/#chapter=recap');
    await expect.poll(() => page.locator('ap-controls #model').inputValue(), { timeout: 30_000 }).toBe('english');
    const dir = join(HF, 'gpt2-tiny');
    let asked = false;
    await page.route('http://stall.test/**', async (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop();
      if (file === 'model.safetensors') {
        asked = true;
        return; // never answered
      }
      await route.fulfill({
        body: readFileSync(join(dir, file)),
        headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
      });
    });
    await page.evaluate(() => {
      document.querySelector('ap-controls').open({ url: 'http://stall.test/gpt2' }); // not awaited: it stalls
    });
    const cancel = page.locator('ap-controls .hf-cancel');
    await expect.poll(() => cancel.isVisible(), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => asked).toBe(true);
    await cancel.click();
    const alert = page.locator('ap-controls .hf-error[role="alert"]');
    await expect
      .poll(() => alert.textContent(), { timeout: 10_000 })
      .toBe('Cancelled: http://stall.test/gpt2 was not opened. The page keeps its model.');
    expect(await page.locator('ap-controls').evaluate((c) => c.dataset.opening ?? null)).toBe(null);
    expect(await page.locator('ap-controls .hf-progress').isVisible()).toBe(false);
    expect(await page.locator('ap-controls #model').inputValue()).toBe('english');
    expect(errors.filter((e) => !/stall\.test|Cancelled|Failed to load resource/.test(e))).toEqual([]);
  });

  // issue 25 item 2: a ?hf= that is not an http(s) folder says so, naming it, and the page goes on
  // with its own model.
  test.each(['javascript:alert(1)', 'http://[::1', 'data:text/plain,hello'])(
    '?hf=%s: an alert naming it, the page keeps its model',
    async (hf) => {
      const { page, errors } = await playground.open(`/?hf=${encodeURIComponent(hf)}#chapter=recap`);
      const alert = page.locator('ap-controls .hf-error[role="alert"]');
      await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/is not (an http\(s\)|a) folder URL/);
      expect(await alert.textContent()).toContain(hf.slice(0, 10));
      await expect.poll(() => page.locator('ap-controls #model').inputValue()).toBe('english');
      expect(errors.filter((e) => !/hf-error|folder URL/.test(e))).toEqual([]);
    },
  );

  test('a GPT-2-small-shaped folder (124 M parameters): 144 heads at a glance; screenshots', async () => {
    const dir = join(ROOT, 'build', 'hf', 'gpt2-small-shape');
    await writeGpt2SmallShape(dir);
    const { page, errors } = await openRecap({ width: 1350, height: 900 });
    const key = await pickFiles(page, dir);
    expect(key).toMatch(/^hf:/);
    expect(await page.locator('ap-controls #model option:checked').textContent()).toMatch(
      /^GPT-2 \(your files, 124 M parameters\)$/,
    );
    await drawn(page, 'ap-stepper', key, null);
    // The layer picker goes up to 11.
    const layers = await page.locator('ap-stepper #step-layer option').count();
    expect(layers).toBe(12);
    await page.locator('ap-stepper #step-layer').selectOption('5');
    await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.layer === '5');
    await page.locator('ap-stepper button[data-step="decoder:5:weights"]').click();
    await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.step === 'decoder:5:weights');
    await page.locator('ap-stepper').scrollIntoViewIfNeeded();
    await page.locator('ap-stepper').screenshot({ path: join(ROOT, 'tests/web/screenshots/hf-gpt2-stepper.png') });

    await page.evaluate(() => (location.hash = '#concept=heads'));
    await drawn(page, 'ap-heads', key, null);
    expect(await page.locator('ap-heads .all-heads button.mini-map').count()).toBe(144);
    expect(await page.locator('ap-heads').getAttribute('data-maps')).toBe('144');
    await page.locator('ap-heads').scrollIntoViewIfNeeded();
    await page.locator('ap-heads').screenshot({ path: join(ROOT, 'tests/web/screenshots/hf-gpt2-heads.png') });
    await page.setViewportSize({ width: 412, height: 900 });
    await page.locator('ap-heads').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300); // the grid's new layout (no data changes, nothing to wait on)
    await page.locator('ap-heads').screenshot({ path: join(ROOT, 'tests/web/screenshots/hf-gpt2-heads-phone.png') });
    expect(errors).toEqual([]);
  }, 240_000);
});
