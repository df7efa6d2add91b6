// The translation views in headless Chromium: <ap-translation> shows the trained model's exact
// French for the notes' sentence (004) and the alignments the notes name (zone -> Area,
// 1992 -> 1992, signé -> signed), its numbers equal to the same core run in Node;
// <ap-context-embeddings> shows the two "bank" vectors identical at the embedding and less alike
// after the last encoder layer (cosines recomputed here in Node from the core's vectors);
// <ap-cross-attention> opens on the translation model and explains its largest weight. Both new
// ids open at #concept=<id> with no console errors. Screenshots at 1366x768 and 375x812:
// tests/web/screenshots/translation-*.png, context-embeddings-*.png, cross-attention-translate-*.png.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { NOTES_EN as EN, NOTES_FR as FR, shippedModel } from './lib/models.js';

const playground = usePlayground();
let ap, model;
beforeAll(async () => {
  ap = await load();
  model = ap.loadModel(shippedModel('translate'));
});
afterAll(() => model?.dispose());

const open = (path, viewport = { width: 1366, height: 768 }) => playground.open(path, { viewport });
async function rendered(page, tag) {
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60000 });
  expect(await page.locator(tag).getAttribute('data-error'), tag).toBeNull();
}
const data = (page, tag, name) => page.locator(tag).evaluate((w, n) => w.dataset[n], name);

/** Cosine of the "bank" vectors of two sentences at `stage` (encoder), computed here in Node. */
function bankCosine(a, b, stage, layer) {
  const vec = (text) => {
    const e = model.tokenizer.encode(text),
      d = model.config.dModel,
      at = e.pieces.indexOf('bank');
    const tr = model.forward({ src: e.ids, tgt: [2] });
    try {
      return tr
        .get(stage, layer == null ? { stack: 'encoder' } : { layer, stack: 'encoder' })
        .slice(at * d, (at + 1) * d);
    } finally {
      tr.dispose();
    }
  };
  const x = vec(a),
    y = vec(b);
  let s = 0,
    nx = 0,
    ny = 0;
  for (let k = 0; k < x.length; k++) {
    s += x[k] * y[k];
    nx += x[k] * x[k];
    ny += y[k] * y[k];
  }
  return s / Math.sqrt(nx * ny);
}

describe('translation views', () => {
  test("#concept=translation: the exact French, the notes' three alignments, the core's weights", async () => {
    const { page, errors } = await open('/#concept=translation');
    await rendered(page, 'ap-translation');
    expect(await data(page, 'ap-translation', 'translation')).toBe(FR);
    const align = JSON.parse(await data(page, 'ap-translation', 'alignment')); // [french, english, weight]
    const most = Object.fromEntries(align.map(([fr, en, w]) => [fr, { en, w }]));
    expect(most.zone.en).toBe('area');
    expect(most['1992'].en).toBe('1992');
    expect(most['signé'].en).toBe('signed');
    // The weight shown for zone equals the mean over heads of the last decoder layer, from Node.
    const src = model.tokenizer.encode(EN),
      fr = model.tokenizer.encode(FR);
    const tgt = Int32Array.from([2, ...fr.ids]);
    const tr = model.forward({ src: src.ids, tgt });
    const L = model.config.nLayers - 1,
      H = model.config.nHeads,
      n = tgt.length,
      m = src.ids.length;
    const w = tr.get('cross_weights', { layer: L, stack: 'decoder' });
    tr.dispose();
    const i = fr.pieces.indexOf('zone'),
      j = src.pieces.indexOf('area');
    let mean = 0;
    for (let h = 0; h < H; h++) mean += w[(h * n + i) * m + j] / H;
    expect(Math.abs(most.zone.w - mean)).toBeLessThan(1e-3);
    // Beside it, the RNN with additive attention on the same task: its French and its alignment
    // (the heatmap's numbers), the "zone" row read here: it attends most to "area".
    const rnn = page.locator('ap-translation ap-heatmap[data-name="rnn-alignment"]');
    await rnn.waitFor();
    expect(await page.locator('ap-translation').evaluate((w) => w.shadowRoot.textContent)).toContain(
      `Its French: ${FR}`,
    );
    const a = await rnn.evaluate((h) => ({
      rows: h.matrix.rowLabels,
      cols: h.matrix.colLabels,
      v: Array.from(h.matrix.values),
      m: h.matrix.cols,
    }));
    const zr = a.rows.indexOf('zone');
    const zrow = a.v.slice(zr * a.m, (zr + 1) * a.m);
    expect(a.cols[zrow.indexOf(Math.max(...zrow))]).toBe('area');
    expect(zrow.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 4);
    await page.waitForTimeout(200);
    await page.locator('ap-translation').screenshot({ path: join(SCREENSHOT_DIR, 'translation-1366.png') });
    // The student's own sentence: the river bank goes to "rive".
    const input = page.locator('ap-translation input[aria-label="English sentence to translate"]');
    await input.fill('She sat by the river bank.');
    await page.waitForFunction(
      () => document.querySelector('ap-translation')?.dataset.translation === "Elle s'est assise près de la rive.",
      null,
      { timeout: 30000 },
    );
    // An unknown word is named, nothing breaks.
    await input.fill('The zorblax was signed in 1992.');
    await page.waitForFunction(
      () => !document.querySelector('ap-translation').shadowRoot.querySelector('.unknown-note').hidden,
      null,
      { timeout: 30000 },
    );
    expect(
      await page.locator('ap-translation').evaluate((w) => w.shadowRoot.querySelector('.unknown-note').textContent),
    ).toContain('zorblax');
    expect(errors).toEqual([]);
  }, 120_000);

  // On the grammar model the view reads the translator's encoder (on the English model, the page's
  // default, it reads the English masked LM: tests/web/views-learning.test.js).
  test('#concept=context-embeddings: identical "bank" at the embedding, less alike after the last layer', async () => {
    const { page, errors } = await open('/?model=grammar#concept=context-embeddings');
    await rendered(page, 'ap-context-embeddings');
    const sims = JSON.parse(await data(page, 'ap-context-embeddings', 'sims'));
    expect(sims.length).toBe(model.config.nLayers + 1);
    expect(sims[0]).toBeCloseTo(1, 6);
    const a = 'I went to the bank to deposit my check.',
      b = 'I sat by the river bank.';
    const last = bankCosine(a, b, 'norm2', model.config.nLayers - 1);
    expect(sims[sims.length - 1]).toBeLessThan(sims[0]);
    expect(sims[sims.length - 1]).toBeLessThan(0.9);
    expect(Math.abs(sims[sims.length - 1] - last)).toBeLessThan(1e-4);
    await page.waitForTimeout(200);
    await page
      .locator('ap-context-embeddings')
      .screenshot({ path: join(SCREENSHOT_DIR, 'context-embeddings-1366.png') });
    // A pair without the word says so clearly, and the view recovers.
    const inB = page.locator('ap-context-embeddings input[aria-label="Sentence B"]');
    await inB.fill('I sat by the river.');
    await page.waitForFunction(
      () => /no word "bank"/.test(document.querySelector('ap-context-embeddings')?.dataset.error || ''),
      null,
      { timeout: 30000 },
    );
    await inB.fill('He slept by the river bank.');
    await page.waitForFunction(
      () => {
        const w = document.querySelector('ap-context-embeddings');
        return !w.dataset.error && JSON.parse(w.dataset.sims || '[]')[0] > 0.999;
      },
      null,
      { timeout: 30000 },
    );
    expect(errors).toEqual([]);
  }, 120_000);

  test('cross-attention opens on the translation model and explains its largest weight', async () => {
    const { page, errors } = await open('/#concept=cross-attention');
    await rendered(page, 'ap-cross-attention');
    const largest = JSON.parse(await data(page, 'ap-cross-attention', 'largest'));
    expect(largest.value).toBeGreaterThan(0.5);
    // It opens on the last decoder layer, where the alignment forms; its largest weight is the
    // largest of that layer's head 0 for <bos> + the French, run here in Node.
    const L = model.config.nLayers - 1;
    expect(await data(page, 'ap-cross-attention', 'layer')).toBe(String(L));
    const src = model.tokenizer.encode(EN),
      fr = model.tokenizer.encode(FR);
    const tr = model.forward({ src: src.ids, tgt: Int32Array.from([2, ...fr.ids]) });
    const head = Number(await data(page, 'ap-cross-attention', 'head'));
    // The head shown is the one whose per-row strongest word agrees most with the mean over heads.
    const H = model.config.nHeads,
      n = fr.ids.length + 1,
      m = src.ids.length;
    const maps = Array.from({ length: H }, (_, h) => tr.get('cross_weights', { layer: L, head: h, stack: 'decoder' }));
    tr.dispose();
    const argmax = (a) => a.indexOf(Math.max(...a));
    const agree = maps.map((w) => {
      let k = 0;
      for (let i = 0; i < n; i++) {
        const mean = Array.from({ length: m }, (_, j) => maps.reduce((s, x) => s + x[i * m + j], 0) / H);
        if (argmax(Array.from(w.slice(i * m, (i + 1) * m))) === argmax(mean)) k++;
      }
      return k;
    });
    expect(agree[head]).toBe(Math.max(...agree));
    expect(Math.abs(largest.value - Math.max(...maps[head]))).toBeLessThan(1e-4);
    // The student can pick the first layer.
    await page.locator('ap-cross-attention select[aria-label="Decoder layer"]').selectOption('0');
    await expect.poll(() => data(page, 'ap-cross-attention', 'layer')).toBe('0');
    await page.waitForTimeout(200);
    await page
      .locator('ap-cross-attention')
      .screenshot({ path: join(SCREENSHOT_DIR, 'cross-attention-translate-1366.png') });
    expect(errors).toEqual([]);
  }, 120_000);

  test('on a phone (375x812) both views fit the width', async () => {
    for (const id of ['translation', 'context-embeddings']) {
      const { page, errors } = await open(`/#concept=${id}`, { width: 375, height: 812 });
      await rendered(page, `ap-${id}`);
      // The view itself fits: its box ends inside the screen and nothing in it spills sideways
      // (wide heatmaps scroll inside their own box).
      const box = await page.locator(`ap-${id}`).evaluate((w) => ({
        right: w.getBoundingClientRect().right,
        scroll: w.shadowRoot.querySelector('.widget').scrollWidth,
        client: w.shadowRoot.querySelector('.widget').clientWidth,
      }));
      expect(box.right, id).toBeLessThanOrEqual(375);
      expect(box.scroll, id).toBeLessThanOrEqual(box.client + 1);
      await page.waitForTimeout(200);
      await page.locator(`ap-${id}`).screenshot({ path: join(SCREENSHOT_DIR, `${id}-375.png`) });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${id}-375-page.png`) });
      expect(errors).toEqual([]);
    }
  }, 120_000);
});
