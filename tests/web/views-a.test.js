// Section A views in headless Chromium ("why attention": rnn-chain, rnn-vanishing, bahdanau,
// soft-lookup): each renders on the playground page (#concept=<id>) and alone in a plain page,
// with no console errors; what it shows is the core's numbers (compared with the same core in
// Node or with a hand calculation); the spectral-radius slider changes the plotted norms and
// the score switch changes the scores. Screenshots: tests/web/screenshots/view-<id>.png.
import { beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { RANDOM_CONFIG } from './lib/models.js';
import { rendered } from './lib/page.js';

const playground = usePlayground();
let ap;
beforeAll(async () => {
  ap = await load();
});

const VIEWS = ['rnn-chain', 'rnn-vanishing', 'bahdanau', 'soft-lookup'];

// The page's default model written out independently (web/lib/models.js randomConfig): a
// word-level decoder, random weights of seed 1, d_model 16, 2 heads, 2 layers. No causal mask
// (the embeddings do not depend on it).
const CONFIG = { ...RANDOM_CONFIG, causal: false };

/** The embedding rows of `text` in the page's default model, computed here in Node. */
function embeddings(text) {
  const model = ap.createModel(CONFIG, { seed: 1 });
  const trace = model.forward(model.tokenizer.encode(text).ids);
  try {
    return { x: trace.get('embed'), n: trace.shape('embed')[0], d: trace.shape('embed')[1] };
  } finally {
    trace.dispose();
    model.dispose();
  }
}

/** Rows of x (n x d) in reverse order (written out here, independent of web/lib/rnn-view.js). */
function reversed(x, n, d) {
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) out.set(x.subarray((n - 1 - i) * d, (n - i) * d), i * d);
  return out;
}

/**
 * The bahdanau view's computation redone in Node with the same core: encoder h_j = [forward RNN
 * (4 units, seed 11); backward RNN (4 units, seed 12, over the reversed tokens)], decoder states
 * s_0 = 0, s_1.. from an 8-unit RNN (seed 13), then additive attention (d_a = 8, seed 17).
 * Returns every recorded stage of the additive trace.
 */
function bahdanauInNode(text) {
  const { x, n, d } = embeddings(text);
  const states = (xs, dHidden, seed) => {
    const r = ap.rnn({ x: xs, n, dIn: d, dHidden, spectralRadius: 0.9, seed });
    try {
      return r.get('rnn_h');
    } finally {
      r.dispose();
    }
  };
  const fwd = states(x, 4, 11),
    bwd = reversed(states(reversed(x, n, d), 4, 12), n, 4);
  const h = new Float32Array(n * 8);
  for (let j = 0; j < n; j++) {
    h.set(fwd.subarray(j * 4, j * 4 + 4), j * 8);
    h.set(bwd.subarray(j * 4, j * 4 + 4), j * 8 + 4);
  }
  const s = new Float32Array(n * 8);
  s.set(states(x, 8, 13).subarray(0, (n - 1) * 8), 8);
  const tr = ap.additiveAttention({ s, n, dS: 8, h, m: n, dH: 8, dA: 8, seed: 17 });
  try {
    return Object.fromEntries(
      ['add_s', 'add_h', 'add_v', 'add_tanh', 'add_scores', 'add_weights', 'add_context'].map((k) => [k, tr.get(k)]),
    );
  } finally {
    tr.dispose();
  }
}

// Float32 in Chromium (perhaps the relaxed-SIMD kernels) against Node: a few ulps apart.
const near = (a, b, what) =>
  expect(Math.abs(a - b), `${what}: ${a} vs ${b}`).toBeLessThanOrEqual(2e-5 * Math.max(1, Math.abs(b)));

async function open(path, waitFor) {
  const p = await playground.open(path);
  if (waitFor) {
    // views draw when they come near the viewport: on #chapter=all the first one sits below the
    // course goals, the page's introduction and the controls
    await p.page.locator(waitFor).scrollIntoViewIfNeeded();
    await p.page.waitForFunction((tag) => document.querySelector(tag)?.dataset.rendered, waitFor, { timeout: 30000 });
  }
  return p;
}

/** A plain page (served by the same dev server) holding only `html` and the widget modules. */
function openStandalone(html) {
  return playground.openHtml(
    `<!doctype html><html><head><meta charset="utf-8"><title>standalone</title>
      ${VIEWS.map((id) => `<script type="module" src="/components/ap-${id}.js"></script>`).join('\n')}
      </head><body style="margin:16px;max-width:1000px">${html}</body></html>`,
    { path: '/standalone-a.html' },
  );
}

/** A widget's data-* attribute (parsed as JSON when `json`). */
async function data(page, tag, name, json = false) {
  const v = await page.locator(tag).evaluate((w, n) => w.dataset[n], name);
  return json ? JSON.parse(v) : v;
}

describe('on the playground page', () => {
  test("each view opens at #concept=<id>, renders the core's numbers with no console errors, light and dark", async () => {
    const { page, errors } = await open('/#chapter=all', 'ap-rnn-chain');
    for (const id of VIEWS) {
      await page.evaluate((c) => {
        location.hash = `concept=${c}`;
      }, id);
      const tag = `ap-${id}`;
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 30000 });
      expect(await page.locator(tag).getAttribute('data-error'), id).toBeNull();
      expect(await page.locator(tag).getAttribute('data-concept')).toBe(id);
      await page.waitForTimeout(150); // KaTeX fonts and heatmap layout settle
      await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, `view-${id}.png`) });
    }
    // The RNN reads the page's text as the page's trained model does: <|endoftext|> + "the cat sat
    // on the mat" in the English decoder's pieces (" m" + "at"), eight states.
    expect(await data(page, 'ap-rnn-chain', 'n')).toBe('8');
    await page.locator('#theme-toggle').click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    for (const id of VIEWS) {
      const w = page.locator(`ap-${id}`);
      await w.scrollIntoViewIfNeeded();
      const bg = await w.evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('.widget')).backgroundColor);
      expect(bg, id).toBe('rgb(22, 24, 29)');
      await w.screenshot({ path: join(SCREENSHOT_DIR, `view-${id}-dark.png`) });
    }
    expect(errors).toEqual([]);
  }, 120_000);

  test('the notes\' "the cat sat down" chain is one click away, and the state shown is the core\'s h_t', async () => {
    const { page, errors } = await open('/?model=random#concept=rnn-chain', 'ap-rnn-chain');
    const before = await data(page, 'ap-rnn-chain', 'rendered');
    await page.locator('ap-rnn-chain [data-example="cat-sat-down"]').click();
    await rendered(page, 'ap-rnn-chain', before);
    expect(await data(page, 'ap-rnn-chain', 'n')).toBe('4');
    // The whole page follows (same tokens as the attention views): the page's state and URL.
    await expect.poll(() => page.url()).toContain('text=the+cat+sat+down');
    expect(await page.locator('ap-controls #text').inputValue()).toBe('the cat sat down');
    // Step back to t = 2 with the ◀ button: h_2 of the core's RNN on the same embeddings.
    for (const t of [3, 2]) {
      const b = await data(page, 'ap-rnn-chain', 'rendered');
      await page.locator('ap-rnn-chain button[aria-label="previous step"]').click();
      await rendered(page, 'ap-rnn-chain', b);
      expect(await data(page, 'ap-rnn-chain', 't')).toBe(String(t));
    }
    const { x, n, d } = embeddings('the cat sat down');
    const r = ap.rnn({ x, n, dIn: d, dHidden: 8, spectralRadius: 0.9, seed: 1 });
    const h = r.get('rnn_h');
    r.dispose();
    const shown = await data(page, 'ap-rnn-chain', 'state', true);
    expect(shown).toHaveLength(8);
    shown.forEach((v, c) => near(v, h[8 + c], `h_2[${c}]`));
    // The chain marks steps 1 done, 2 current, 3 and 4 waiting.
    const states = await page
      .locator('ap-rnn-chain')
      .evaluate((w) => [...w.shadowRoot.querySelectorAll('svg.rnn-chain [data-step]')].map((g) => g.dataset.state));
    expect(states).toEqual(['done', 'current', 'waiting', 'waiting']);
    // One hop: an arc from "cat" to each token it may read. The page's decoder has its causal
    // mask on, so "cat" (the 2nd token) reads "the" and itself: 2 arcs, whatever the distance.
    expect(
      await page
        .locator('ap-rnn-chain')
        .evaluate((w) => w.shadowRoot.querySelectorAll('svg.attn-hops path[data-key]').length),
    ).toBe(2);
    await page.locator('ap-rnn-chain').screenshot({ path: join(SCREENSHOT_DIR, 'view-rnn-chain-cat-sat-down.png') });
    expect(errors).toEqual([]);
  }, 60_000);
  test('at phone width the views fit: the page never scrolls sideways (the RNN chain scrolls inside its box)', async () => {
    const p = await playground.open('/#concept=rnn-chain', { viewport: { width: 375, height: 800 } });
    const { page, errors } = p;
    for (const id of VIEWS) {
      await page.evaluate((c) => {
        location.hash = `concept=${c}`;
      }, id);
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, `ap-${id}`, { timeout: 30000 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), id).toBeLessThanOrEqual(375);
    }
    await page.locator('ap-rnn-chain').scrollIntoViewIfNeeded();
    await page.locator('ap-rnn-chain').screenshot({ path: join(SCREENSHOT_DIR, 'view-rnn-chain-phone.png') });
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('standalone, in a plain page', () => {
  test('each view works alone from its attributes, with no console errors', async () => {
    const { page, errors } = await openStandalone(`
      <ap-rnn-chain model="random" text="the cat sat down"></ap-rnn-chain>
      <ap-rnn-vanishing model="random" text="the cat sat down" radius="0.6" length="20"></ap-rnn-vanishing>
      <ap-bahdanau model="random" weights="random" text="the cat sat down" t="1"></ap-bahdanau>
      <ap-soft-lookup model="random" text="the cat sat down" score="dot" query="2"></ap-soft-lookup>`);
    for (const id of VIEWS) {
      const tag = `ap-${id}`;
      await page.locator(tag).scrollIntoViewIfNeeded();
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 30000 });
      expect(await page.locator(tag).getAttribute('data-error'), id).toBeNull();
      await page.waitForTimeout(100);
      await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, `view-${id}-standalone.png`) });
    }
    const { x, n, d } = embeddings('the cat sat down');
    expect(n).toBe(4);

    // rnn-chain: t defaults to the last step; its h_4 is the core's.
    expect(await data(page, 'ap-rnn-chain', 't')).toBe('4');
    const r = ap.rnn({ x, n, dIn: d, dHidden: 8, spectralRadius: 0.9, seed: 1 });
    const h4 = r.get('rnn_h').slice(24, 32);
    r.dispose();
    (await data(page, 'ap-rnn-chain', 'state', true)).forEach((v, c) => near(v, h4[c], `h_4[${c}]`));

    // rnn-vanishing: radius 0.6 over the text repeated to 20 tokens, the same norms as Node's.
    expect(await data(page, 'ap-rnn-vanishing', 'radius')).toBe('0.6');
    const xs = new Float32Array(20 * d);
    for (let i = 0; i < 20; i++) xs.set(x.subarray((i % n) * d, ((i % n) + 1) * d), i * d);
    const g = ap.rnn({ x: xs, n: 20, dIn: d, dHidden: 8, spectralRadius: 0.6, seed: 1 });
    const want = g.get('rnn_grad_norm');
    g.dispose();
    const norms = await data(page, 'ap-rnn-vanishing', 'gradNorms', true);
    expect(norms).toHaveLength(20);
    norms.forEach((v, i) => near(v, want[i], `norm ${i}`));
    // The note under it: at ρ = 1, tanh's slope 1 - h² (mean over the ρ = 1 run's states, recomputed
    // here) and about ×(g_19 / g_0)^(1/19) per step over the 19 steps back to the first token.
    const one = ap.rnn({ x: xs, n: 20, dIn: d, dHidden: 8, spectralRadius: 1, seed: 1 });
    const h1 = one.get('rnn_h'),
      g1 = one.get('rnn_grad_norm');
    one.dispose();
    const slope = h1.reduce((a, v) => a + 1 - v * v, 0) / h1.length;
    const perStep = Math.pow(g1[0] / g1[19], 1 / 19);
    const note = page.locator('ap-rnn-vanishing .tanh-note');
    near(Number(await note.getAttribute('data-slope')), slope, 'mean tanh slope');
    near(Number(await note.getAttribute('data-per-step')), perStep, 'per-step factor at ρ = 1');
    expect(slope).toBeLessThan(1);
    const said = await note.textContent();
    // It sets the ρ = 1 curve against W_hh alone, 19 times over (tests/wasm/rnn-vanishing-words.test.js
    // checks its figures and the curves' rises and falls).
    expect(said).toContain('W_hh alone, 19 times over');
    // The line above it, at ρ = 0.6: the norm at the first token (19 steps back) against the last.
    const p6 = Math.pow(want[0] / want[19], 1 / 19);
    const summary = await page.locator('ap-rnn-vanishing .summary').textContent();
    expect(summary).toContain(`from 19 steps back (the first token)`);
    expect(summary).toContain(`on average ×${p6.toFixed(2)} per step`);
    expect(summary).toContain(
      p6 < 0.97
        ? want[0] < 1e-2
          ? 'all but vanished'
          : 'it is fading'
        : p6 > 1.03
          ? 'it has grown'
          : 'neither faded nor grown',
    );
    expect(said).toContain(`mean slope 1 − h² is ${slope.toFixed(2)}`);

    // bahdanau at t = 1: the decoder state s_0 is 0, so every dot-product score is exactly 0
    // (and the additive scores, v . tanh(W_h h_j), are not all equal).
    expect(await data(page, 'ap-bahdanau', 't')).toBe('1');
    expect(await data(page, 'ap-bahdanau', 'dotScores', true)).toEqual([0, 0, 0, 0]);
    expect(new Set(await data(page, 'ap-bahdanau', 'addScores', true)).size).toBe(4);

    // soft-lookup: query 2 ("cat") with the plain dot product; the hard output is a value row.
    expect(await data(page, 'ap-soft-lookup', 'query')).toBe('2');
    expect(await data(page, 'ap-soft-lookup', 'score')).toBe('dot');
    expect(await page.locator('ap-soft-lookup .hard-note').getAttribute('data-exact')).toBe('true');
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('controls', () => {
  test('the spectral-radius slider changes the plotted norms (larger radius, more of the far gradient kept)', async () => {
    const { page, errors } = await openStandalone('<ap-rnn-vanishing text="the cat sat down"></ap-rnn-vanishing>');
    await rendered(page, 'ap-rnn-vanishing');
    const before = await data(page, 'ap-rnn-vanishing', 'gradNorms', true);
    const plotBefore = await page
      .locator('ap-rnn-vanishing')
      .evaluate((w) => w.shadowRoot.querySelector('svg.plot polyline').getAttribute('points'));
    const slider = page.locator('ap-rnn-vanishing input[data-control="radius"]');
    const key = await data(page, 'ap-rnn-vanishing', 'rendered');
    await slider.fill('1.5');
    await rendered(page, 'ap-rnn-vanishing', key);
    expect(await data(page, 'ap-rnn-vanishing', 'radius')).toBe('1.5');
    const after = await data(page, 'ap-rnn-vanishing', 'gradNorms', true);
    const plotAfter = await page
      .locator('ap-rnn-vanishing')
      .evaluate((w) => w.shadowRoot.querySelector('svg.plot polyline').getAttribute('points'));
    expect(plotAfter).not.toBe(plotBefore);
    expect(after).toHaveLength(before.length);
    expect(after[0]).toBeGreaterThan(before[0] * 10); // 31 steps back
    expect(after.at(-1)).toBe(1);
    // Slider down to 0.5: contractive. ρ bounds the rate in the long run, not each single step
    // (W_hh is not symmetric, so one step can stretch a vector by more than ρ): over four steps
    // back the norm always shrinks, and 31 steps back it is below 0.6^31 = 1.3e-7.
    const key2 = await data(page, 'ap-rnn-vanishing', 'rendered');
    await slider.fill('0.5');
    await rendered(page, 'ap-rnn-vanishing', key2);
    const low = await data(page, 'ap-rnn-vanishing', 'gradNorms', true);
    for (let i = 0; i + 4 < low.length; i++) expect(low[i], `${i}: ${low}`).toBeLessThan(low[i + 4]);
    expect(low[0]).toBeLessThan(0.6 ** 31);
    await page.locator('ap-rnn-vanishing').screenshot({ path: join(SCREENSHOT_DIR, 'view-rnn-vanishing-0.5.png') });
    expect(errors).toEqual([]);
  }, 60_000);

  test('switching the score function changes the scores: dot = scaled × √d_k, additive different', async () => {
    const { page, errors } = await openStandalone('<ap-soft-lookup text="the cat sat on the mat"></ap-soft-lookup>');
    await rendered(page, 'ap-soft-lookup');
    const tag = 'ap-soft-lookup';
    expect(await data(page, tag, 'score')).toBe('scaled');
    const scaled = await data(page, tag, 'scores', true);
    const pick = async (score) => {
      const key = await data(page, tag, 'rendered');
      await page.locator(`${tag} button[data-score="${score}"]`).click();
      await rendered(page, tag, key);
      expect(await data(page, tag, 'score')).toBe(score);
      return data(page, tag, 'scores', true);
    };
    const dot = await pick('dot');
    // the default model, the trained English decoder: d_model 128, 4 heads, so d_k = 32
    dot.forEach((v, j) => near(v, scaled[j] * Math.sqrt(32), `dot score ${j}`));
    const additive = await pick('additive');
    expect(additive.some((v, j) => Math.abs(v - dot[j]) > 1e-3)).toBe(true);
    // The hard side follows the argmax of the current scores.
    const best = Number(await data(page, tag, 'best'));
    expect(best).toBe(additive.indexOf(Math.max(...additive)));
    expect(await page.locator(`${tag} .hard-note`).getAttribute('data-exact')).toBe('true');
    // Choosing another query token moves the row.
    const key = await data(page, tag, 'rendered');
    await page.locator(`${tag} button[data-query="3"]`).click();
    await rendered(page, tag, key);
    expect(await data(page, tag, 'query')).toBe('3');
    await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, 'view-soft-lookup-additive.png') });
    expect(errors).toEqual([]);
  }, 60_000);

  test("bahdanau: every step of e_tj = vᵀ tanh(W_s s_{t-1} + W_h h_j) for t is the core's; a clicked tanh cell is explained", async () => {
    const { page, errors } = await openStandalone(
      '<ap-bahdanau model="random" weights="random" text="the cat sat down" t="3"></ap-bahdanau>',
    );
    const tag = 'ap-bahdanau';
    await rendered(page, tag);
    expect(await page.locator(tag).getAttribute('data-error')).toBeNull();
    expect(await data(page, tag, 't')).toBe('3');
    const want = bahdanauInNode('the cat sat down');
    const n = 4,
      dA = 8,
      i = 2; // t = 3: decoder state s_2
    const shown = (name) =>
      page
        .locator(`${tag} ap-heatmap[data-name="${name}"]`)
        .evaluate((h) => ({ rows: h.matrix.rows, cols: h.matrix.cols, values: Array.from(h.matrix.values) }));
    // The tanh layer for t = 3: n x d_a, the core's add_tanh[2] (all 32 cells, a few by name).
    const th = await shown('add_tanh');
    expect([th.rows, th.cols]).toEqual([n, dA]);
    th.values.forEach((v, k) => near(v, want.add_tanh[i * n * dA + k], `tanh[t=3][${Math.floor(k / dA)}, ${k % dA}]`));
    for (const [j, c] of [
      [0, 0],
      [1, 5],
      [3, 7],
    ])
      near(th.values[j * dA + c], want.add_tanh[(i * n + j) * dA + c], `tanh[t=3, j=${j}, c=${c}]`);
    expect(th.values.every((v) => v > -1 && v < 1)).toBe(true);
    expect(new Set(th.values.map((v) => v.toFixed(3))).size).toBeGreaterThan(16); // not a constant layer
    // The other stages of step t: W_s s_2 (1 x 8), W_h h_j (4 x 8), v, scores, weights, context.
    const rowOfT = (a, cols) => Array.from(a.slice(i * cols, (i + 1) * cols));
    const cases = [
      ['add_s', [1, dA], rowOfT(want.add_s, dA)],
      ['add_h', [n, dA], Array.from(want.add_h)],
      ['add_v', [1, dA], Array.from(want.add_v)],
      ['add_scores', [1, n], rowOfT(want.add_scores, n)],
      ['add_weights', [1, n], rowOfT(want.add_weights, n)],
      ['add_context', [1, 8], rowOfT(want.add_context, 8)],
    ];
    for (const [name, shape, values] of cases) {
      const m = await shown(name);
      expect([m.rows, m.cols], name).toEqual(shape);
      m.values.forEach((v, k) => near(v, values[k], `${name}[${k}]`));
    }
    // Every step has its formula (KaTeX) and a one-line caption (what changed), in order.
    const steps = await page.locator(tag).evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('.add-step')].map((s) => ({
        name: s.dataset.step,
        katex: !!s.querySelector('.katex'),
        caption: s.querySelector('p.changed')?.textContent ?? '',
      })),
    );
    expect(steps.map((s) => s.name)).toEqual([
      'add_s',
      'add_h',
      'add_tanh',
      'add_v',
      'add_scores',
      'add_weights',
      'add_context',
    ]);
    for (const s of steps) {
      expect(s.katex, s.name).toBe(true);
      expect(s.caption.length, s.name).toBeGreaterThan(20);
    }
    // Click the tanh cell (j = 1 "cat", c = 5): the box adds (W_s s_2)[5] + (W_h h_2)[5], and
    // its result is the core's number.
    const canvas = page.locator(`${tag} ap-heatmap[data-name="add_tanh"] .hm-plot canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.click(box.x + box.width * (5.5 / dA), box.y + box.height * (1.5 / n));
    const explain = page.locator(`${tag} .explain[data-cell="add_tanh:1,5"]`);
    await explain.waitFor({ timeout: 10000 });
    const text = await explain.textContent();
    const core = Number(/core: (−?[\d.]+)/.exec(await explain.locator('.result').textContent())[1].replace('−', '-'));
    const cell = want.add_tanh[(i * n + 1) * dA + 5];
    expect(Math.abs(core - cell)).toBeLessThan(1e-4);
    expect(text).toContain('"cat"');
    const terms = await explain.locator('.terms div').allTextContents();
    // (shown to 4 decimals)
    const term = (line) =>
      Number(
        line
          .replace(/^\s*\+?\s*/, '')
          .split(/\s+/)[0]
          .replace('−', '-'),
      );
    expect(Math.abs(term(terms[0]) - want.add_s[i * dA + 5]), '(W_s s_2)[5] in the explanation').toBeLessThan(1e-4);
    expect(Math.abs(term(terms[1]) - want.add_h[1 * dA + 5]), '(W_h h_2)[5] in the explanation').toBeLessThan(1e-4);
    await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, 'view-bahdanau-explain.png') });
    // A score cell: v . (row j of the tanh layer), the sum's result is the core's e_3j.
    const eCanvas = page.locator(`${tag} ap-heatmap[data-name="add_scores"] .hm-plot canvas`);
    await eCanvas.scrollIntoViewIfNeeded();
    const eb = await eCanvas.boundingBox();
    await page.mouse.click(eb.x + eb.width * (2.5 / n), eb.y + eb.height / 2);
    const eBox = page.locator(`${tag} .explain[data-cell="add_scores:0,2"]`);
    await eBox.waitFor({ timeout: 10000 });
    expect(await eBox.locator('.terms div').count()).toBe(dA);
    const eCore = Number(/core: (−?[\d.]+)/.exec(await eBox.locator('.result').textContent())[1].replace('−', '-'));
    expect(Math.abs(eCore - want.add_scores[i * n + 2])).toBeLessThan(1e-4);
    expect(await page.locator(`${tag} .explain`).count()).toBe(1); // one explanation at a time
    expect(errors).toEqual([]);
  }, 60_000);

  test('bahdanau: clicking a row of the alignment matrix chooses the decoder step', async () => {
    const { page, errors } = await openStandalone(
      '<ap-bahdanau model="random" weights="random" text="the cat sat down"></ap-bahdanau>',
    );
    await rendered(page, 'ap-bahdanau');
    expect(await data(page, 'ap-bahdanau', 't')).toBe('4');
    const key = await data(page, 'ap-bahdanau', 'rendered');
    // Click row 3 (t = 3) of the additive alignment heatmap.
    const canvas = page.locator('ap-bahdanau ap-heatmap[data-name="align-add"] .hm-plot canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.click(box.x + box.width / 8, box.y + box.height * (2.5 / 4));
    await rendered(page, 'ap-bahdanau', key);
    expect(await data(page, 'ap-bahdanau', 't')).toBe('3');
    expect(await data(page, 'ap-bahdanau', 'dotScores', true)).not.toEqual([0, 0, 0, 0]);
    expect(errors).toEqual([]);
  }, 60_000);
});
