// Chapter I, "After the notes: what changed since 2017", in headless Chromium: the four views
// (rmsnorm, swiglu, gqa, sliding-window) opened once on the playground page, and the switches the
// older views gained (layernorm, ffn, heads, kv-cache, long-context, model-sizes). Every number
// checked is computed here independently: RMSNorm by hand from the trace's input row (the English
// model in Node), the KV cache's bytes from the core's kvCacheSize and from 2 · layers · n · K/V
// heads · d_k · 4, the window's visible keys as min(i + 1, w), score pairs as a hand sum; each
// one-line claim is checked in the state it describes, and each "try this" prompt is clicked.
// Screenshots: tests/web/screenshots/chapter-I-1366.png and chapter-I-375.png.
import { describe, expect, test } from 'vitest';
import { usePlayground } from './harness.js';
import { loadEnglish } from './lib/models.js';
import { LESSONS } from '../../web/lib/lessons.js';
import { CONCEPTS } from '../../web/lib/concepts.js';

const playground = usePlayground();
const { ap, english } = await loadEnglish();

const TEXT = 'the cat sat on the mat';
const IDS = ['rmsnorm', 'swiglu', 'gqa', 'sliding-window'];

// The English model's rows for TEXT as the page runs them (its start token first).
const promptIds = (text) => Int32Array.from(english.prompt(text).ids);

/** Waits until `tag` has drawn for the page's current state, scrolling it into view. */
async function drawn(page, tag, check = () => true) {
  await page.locator(tag).first().scrollIntoViewIfNeeded();
  await page.waitForFunction(
    ([t, f]) => {
      const w = document.querySelector(t);
      return !!w?.dataset.rendered && !w.dataset.error && new Function('w', `return (${f})(w)`)(w);
    },
    [tag, check.toString()],
    { timeout: 60_000 },
  );
  return page.locator(tag).first();
}
const data = (widget) => widget.evaluate((w) => ({ ...w.dataset }));
const text = (widget, sel) => widget.evaluate((w, s) => w.shadowRoot.querySelector(s)?.textContent ?? '', sel);
const cells = (widget, cls) =>
  widget.evaluate((w, c) => [...w.shadowRoot.querySelectorAll(`td.${c}`)].map((td) => Number(td.dataset.value)), cls);

const hand = {
  // x / sqrt(mean(x²) + eps) · g
  rms: (x, g, eps) => {
    const r = Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length + eps);
    return { r, y: x.map((v, c) => (v / r) * g[c]) };
  },
  // (x − μ) / sqrt(var + eps) · g + b
  ln: (x, g, b, eps) => {
    const mu = x.reduce((s, v) => s + v, 0) / x.length;
    const v = x.reduce((s, t) => s + (t - mu) ** 2, 0) / x.length;
    return x.map((t, c) => ((t - mu) / Math.sqrt(v + eps)) * g[c] + b[c]);
  },
  kvBytes: ({ nLayers, dModel, nHeads }, n, kv) => 2 * nLayers * n * kv * (dModel / nHeads) * 4,
  pairs: (n, w) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += w ? Math.min(i + 1, w) : i + 1;
    return s;
  },
};

describe('chapter I: after the notes', () => {
  test('the chapter sits after F, with its four views, and each shows numbers checked by hand', async () => {
    expect(CONCEPTS.filter((c) => c.chapter === 'I').map((c) => c.id)).toEqual(IDS);
    const { page, errors } = await playground.open('/#chapter=I', { viewport: { width: 1366, height: 900 } });
    await expect.poll(() => page.evaluate(() => document.body.dataset.chapter)).toBe('I');
    expect(
      await page.evaluate(() =>
        [...document.querySelectorAll('section.chapter[data-chapter="I"] [data-concept]')].map(
          (n) => n.dataset.concept,
        ),
      ),
    ).toEqual(IDS);
    const cfg = english.config;
    const ids = promptIds(TEXT);
    const n = ids.length;

    // RMSNorm beside LayerNorm on row 0 of layer 0's first norm (pre-norm: its input is x).
    const rmsView = await drawn(page, 'ap-rmsnorm');
    const t = english.forward(ids);
    const x = Array.from(t.get('x').subarray(0, cfg.dModel));
    t.dispose();
    const g = Array.from(english.getTensor('decoder.0.norm1.gamma'));
    const b = Array.from(english.getTensor('decoder.0.norm1.beta'));
    const want = hand.rms(x, g, cfg.eps);
    const d = await data(rmsView);
    expect(Number(d.rms)).toBeCloseTo(want.r, 5);
    const shownX = await cells(rmsView, 'x');
    shownX.forEach((v, c) => expect(v).toBeCloseTo(x[c], 5));
    (await cells(rmsView, 'rmsn')).forEach((v, c) => expect(v).toBeCloseTo(want.y[c], 4));
    const ln = hand.ln(x, g, b, cfg.eps);
    (await cells(rmsView, 'ln')).forEach((v, c) => expect(v).toBeCloseTo(ln[c], 4));
    let diff = 0;
    for (let c = 0; c < x.length; c++) diff = Math.max(diff, Math.abs(ln[c] - want.y[c]));
    expect(Number(d.maxDiff)).toBeCloseTo(diff, 4);
    // The model was trained with LayerNorm: the view says so.
    expect(await text(rmsView, '.rms-warn')).toMatch(/trained with LayerNorm.*drops its β/);

    // The gated FFN: product = gate × up (the view's check), and the parameter counts by hand.
    const swiglu = await drawn(page, 'ap-swiglu');
    let s = await data(swiglu);
    expect(s.ffnKind).toBe('swiglu');
    expect(Number(s.maxDiff)).toBeLessThan(1e-6);
    expect(Number(s.ffnMlp)).toBe(2 * 16 * 64 + 64 + 16); // W_1, W_2, b_1, b_2 at d = 16, d_ff = 64
    expect(Number(s.ffnGated)).toBe(3 * 16 * 64 + 64 + 16); // + W_gate, no bias
    expect(await text(swiglu, '.swiglu-warn')).toMatch(/Random weights.*never trained/);

    // Grouped-query attention: the page has multi-head, so the view shows 2 K/V heads of 4.
    const gqa = await drawn(page, 'ap-gqa');
    const q = await data(gqa);
    expect(q.kvHeads).toBe('2');
    expect(q.kvGroup).toBe([0, 1, 2, 3].map((i) => Math.floor(i / 2)).join(','));
    expect(Number(q.positions)).toBe(n);
    const rows = await gqa.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('td.gqa-bytes')].map((td) => [Number(td.dataset.kv), Number(td.dataset.bytes)]),
    );
    expect(rows.map((r) => r[0])).toEqual(english.switchChoices.nKvHeads);
    const mha = hand.kvBytes(cfg, n, cfg.nHeads);
    for (const [kv, bytes] of rows) {
      expect(bytes).toBe(hand.kvBytes(cfg, n, kv));
      expect(bytes).toBe(ap.kvCacheSize({ ...sizeOf(cfg), nKvHeads: kv }, n).bytes);
      expect(bytes / mha).toBe(kv / cfg.nHeads);
    }
    expect(await text(gqa, '.gqa-warn')).toMatch(/trained with a K and V per head.*mean of its 2 heads/);

    // The sliding window: w = 3 while the page has none; row i sees min(i + 1, 3) keys.
    const sw = await drawn(page, 'ap-sliding-window');
    const v = await data(sw);
    expect(v.window).toBe('3');
    expect(v.visible).toBe(Array.from({ length: n }, (_, i) => Math.min(i + 1, 3)).join(','));
    expect(Number(v.pairsFull)).toBe(hand.pairs(4096, 0));
    expect(Number(v.pairsWindow)).toBe(hand.pairs(4096, 3));
    expect(await text(sw, '.window-warn')).toMatch(/trained seeing every earlier token/);
    expect(await text(sw, '.cost-line')).toContain(
      `${(hand.pairs(4096, 0) / hand.pairs(4096, 3)).toFixed(1)} times fewer. Per query, the causal mask's (n + 1)/2 keys grow with n; the window's stay at w or fewer`,
    );

    await playground.screenshot(page, 'chapter-I-1366');
    expect(realErrors(errors)).toEqual([]);
  }, 240_000);

  test('each "try this" prompt changes the views as it says', async () => {
    const { page, errors } = await playground.open('/#chapter=I', { viewport: { width: 375, height: 812 } });
    await expect.poll(() => page.evaluate(() => document.body.dataset.chapter)).toBe('I');
    const click = async (concept, i) => {
      const button = page.locator(`aside.try[data-for="${concept}"] button`).nth(i);
      await button.scrollIntoViewIfNeeded();
      await button.click();
    };
    const cfg = english.config;
    // RMSNorm for the whole page: the model note says this LayerNorm model was not trained with it.
    expect(LESSONS.I.extras.rmsnorm[0].patch.normkind).toBe('rmsnorm');
    await click('rmsnorm', 0);
    await expect
      .poll(() => page.evaluate(() => document.querySelector('ap-controls').shadowRoot.textContent))
      .toMatch(/RMSNorm: this model was trained with LayerNorm/);
    await click('rmsnorm', 1);

    // GeGLU: the view's gate switches (the choices are the core's).
    await click('swiglu', 0);
    const swiglu = await drawn(page, 'ap-swiglu', (w) => w.dataset.ffnKind === 'geglu');
    expect(Number((await data(swiglu)).maxDiff)).toBeLessThan(1e-6);

    // Multi-query: every head reads K/V head 0, and the cache is 1 / nHeads of multi-head's.
    await click('gqa', 0);
    const gqa = await drawn(page, 'ap-gqa', (w) => w.dataset.kvHeads === '1');
    const q = await data(gqa);
    expect(q.kvGroup).toBe(Array(cfg.nHeads).fill(0).join(','));
    expect(await text(gqa, '.gqa-line')).toContain(
      `${cfg.nHeads} query heads share 1 K/V head, ${cfg.nHeads} per group`,
    );
    await click('gqa', 1);
    await drawn(page, 'ap-gqa', (w) => w.dataset.kvHeads === '2');

    // A window of 2 on the longer sentence: each word sees itself and the word before.
    const { text: sentence, window } = LESSONS.I.extras['sliding-window'][0].patch;
    await click('sliding-window', 0);
    const sw = await drawn(page, 'ap-sliding-window', (w) => w.dataset.window === '2');
    const n = promptIds(sentence).length;
    expect((await data(sw)).visible).toBe(Array.from({ length: n }, (_, i) => Math.min(i + 1, window)).join(','));
    expect(await text(sw, '.window-line')).toContain(`w = 2: row i sees keys i − 1 … i`);
    await click('sliding-window', 1);
    await drawn(page, 'ap-sliding-window', (w) => w.dataset.window === '3');
    await click('sliding-window', 0);
    await drawn(page, 'ap-sliding-window', (w) => w.dataset.window === '2');
    await playground.screenshot(page, 'chapter-I-375');
    expect(realErrors(errors)).toEqual([]);
  }, 240_000);
});

describe("the older views' switches", () => {
  const alone = (tag, attrs) =>
    playground.openAlone(tag, attrs, { viewport: { width: 1100, height: 900 }, timeout: 60_000 });

  test('layernorm with normkind=rmsnorm divides row 0 by its RMS, computed by hand', async () => {
    const { widget, errors } = await alone('ap-layernorm', { normkind: 'rmsnorm' });
    const cfg = english.config;
    const t = english.forward(promptIds(TEXT));
    const x = Array.from(t.get('x').subarray(0, cfg.dModel));
    t.dispose();
    const d = await data(widget);
    expect(d.normKind).toBe('rmsnorm');
    expect(Number(d.rms)).toBeCloseTo(hand.rms(x, Array(x.length).fill(1), cfg.eps).r, 5);
    expect(await text(widget, '.kind-line')).toMatch(
      /trained with LayerNorm: RMSNorm keeps its learned γ and drops its β/,
    );
    expect(realErrors(errors)).toEqual([]);
  }, 120_000);

  test('heads and kv-cache with kvheads=2: which heads share, and a cache half of multi-head', async () => {
    const cfg = english.config;
    const heads = await alone('ap-heads', { kvheads: '2' });
    expect((await data(heads.widget)).kvHeads).toBe('2');
    const line = await text(heads.widget, '.kv-line');
    expect(line).toContain('heads 0, 1 read K/V head 0; heads 2, 3 read K/V head 1');
    expect(line).toContain(`${cfg.nHeads / 2} times smaller`);
    expect(line).toMatch(/mean of its heads' learned ones/);
    const kv = await alone('ap-kv-cache', { kvheads: '2' });
    await kv.page.waitForFunction(() => document.querySelector('ap-kv-cache').dataset.kvBytes, null, {
      timeout: 60_000,
    });
    const d = await data(kv.widget);
    const perPosition = hand.kvBytes(cfg, 1, cfg.nHeads);
    const positions = Number(d.mhaBytes) / perPosition;
    expect(Number.isInteger(positions)).toBe(true);
    expect(Number(d.kvBytes)).toBe(hand.kvBytes(cfg, positions, 2));
    expect(Number(d.kvBytes)).toBe(ap.kvCacheSize({ ...sizeOf(cfg), nKvHeads: 2 }, positions).bytes);
    expect(await text(kv.widget, '.kv-line')).toMatch(
      /4 query heads share 2 K\/V heads: the cache is 2(\.00)? times smaller/,
    );
    expect(realErrors([...heads.errors, ...kv.errors])).toEqual([]);
  }, 120_000);

  test('the stepper with kvheads=2: head 3 scores against K/V head 1, the K slice the core says', async () => {
    const cfg = english.config;
    const { page, widget, errors } = await alone('ap-stepper', { kvheads: '2', step: 'decoder:0:scores', head: '3' });
    await page.waitForFunction(() => document.querySelector('ap-stepper').dataset.stage === 'scores');
    const shown = await widget.evaluate((s) =>
      Object.fromEntries(
        [...s.shadowRoot.querySelectorAll('ap-heatmap')].map((h) => [h.matrix.name, Array.from(h.matrix.values)]),
      ),
    );
    const t = english.forward(promptIds(TEXT), { nKvHeads: 2 });
    const dK = cfg.dModel / cfg.nHeads;
    const k = t.get('k', { layer: 0 }); // n x (2 d_k)
    const group = Array.from(t.get('kv_group', { layer: 0 }));
    const scores = Array.from(t.get('scores', { layer: 0, head: 3 }));
    t.dispose();
    expect(group[3]).toBe(1); // head 3 of 4 with 2 K/V heads: 3 / 2 = 1
    const n = k.length / (2 * dK);
    const want = [];
    for (let i = 0; i < n; i++) for (let c = 0; c < dK; c++) want.push(k[i * 2 * dK + dK + c]);
    expect(shown.k_h.length).toBe(n * dK);
    expect(shown.scores.length).toBe(n * n);
    shown.k_h.forEach((v, j) => expect(v).toBeCloseTo(want[j], 5));
    shown.scores.forEach((v, j) => expect(v).toBeCloseTo(scores[j], 4));
    expect(realErrors(errors)).toEqual([]);
  }, 120_000);

  test('long-context with window=64: the score pairs are the sum of min(i + 1, w)', async () => {
    const { widget, errors } = await alone('ap-long-context', { window: '64', n: '1000' });
    const d = await data(widget);
    expect(Number(d.windowPairs)).toBe(hand.pairs(1000, 64));
    expect(Number(d.causalPairs)).toBe((1000 * 1001) / 2);
    expect(hand.pairs(1000, 64)).toBeLessThanOrEqual(1000 * 64);
    expect(await text(widget, '.window-line')).toMatch(/grow as n·w, linear in n/);
    expect(realErrors(errors)).toEqual([]);
  }, 120_000);

  test('model-sizes with 8 K/V heads on GPT-3: the cache and W_K, W_V shrink', async () => {
    const { page, widget, errors } = await alone('ap-model-sizes', { preset: 'gpt3' });
    const input = widget.locator('[data-input="nKvHeads"]');
    expect(await input.inputValue()).toBe('96');
    expect(await text(widget, '.ms-kv')).toMatch(/multi-head attention/);
    await input.fill('8');
    await page.waitForFunction(() => {
      const w = document.querySelector('ap-model-sizes');
      return Number(w.dataset.mhaBytes) === 12 * Number(w.dataset.kvBytes);
    });
    const d = await data(widget);
    // GPT-3: 96 layers, d_model 12288, 96 heads of d_k 128, 2048 positions.
    expect(Number(d.kvBytes)).toBe(2 * 96 * 2048 * 8 * 128 * 4);
    expect(await text(widget, '.ms-kv')).toContain('8 K/V heads for 96 heads');
    expect(await text(widget, '.ms-kv')).toContain('12 times smaller');
    // W_K, W_V (and b_K, b_V) of 96 layers shrink from 12288 to 8 · 128 = 1024 columns.
    const fewer = 96 * 2 * (12288 + 1) * (12288 - 1024);
    expect(await text(widget, '.ms-kv')).toContain(`${fewer.toLocaleString('en-US')} fewer parameters`);
    expect(await text(widget, '.ms-ratio')).toContain(
      `2 · d² + 2 · d · 1024 (K/V heads · d_k) = ${(2 * 12288 ** 2 + 2 * 12288 * 1024).toLocaleString('en-US')}`,
    );
    expect(realErrors(errors)).toEqual([]);
  }, 120_000);

  test('ffn: the gate line prices W_gate at d x d_ff and says this model has none', async () => {
    const { widget, errors } = await alone('ap-ffn', {});
    const cfg = english.config;
    expect(english.switchChoices.ffnKind).toEqual(['mlp']);
    const line = await text(widget, '.gate-line');
    expect(line).toContain(`${(cfg.dModel * cfg.dFf).toLocaleString('en')} more parameters per block`);
    expect(line).toContain("This model has no W_gate, and the core will not invent one (it offers only 'mlp' here)");
    expect(realErrors(errors)).toEqual([]);
  }, 120_000);
});

// In a git worktree node_modules is a symlink, and Vite refuses KaTeX's fonts through it (403):
// those are not the page's errors.
function realErrors(errors) {
  const fonts = errors.some((e) => /katex\/dist\/fonts/.test(e));
  return errors.filter((e) => !/katex\/dist\/fonts/.test(e) && !(fonts && /403 \(Forbidden\)/.test(e)));
}

// The calculator's config from a model's (kvCacheSize counts a model's sizes, not its run options).
function sizeOf(c) {
  return { arch: c.arch, dModel: c.dModel, nHeads: c.nHeads, nLayers: c.nLayers, vocabSize: c.vocabSize };
}
