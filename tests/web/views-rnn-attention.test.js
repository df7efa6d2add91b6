// The views on the trained RNN encoder-decoder with additive attention, in headless Chromium:
// bahdanau opens on the notes' sentence (004) and its alignment shows the notes' three pairs;
// birnn shows that changing a later word moves an earlier state only in its backward half (the
// numbers compared with the same core run in Node); both reachable by #concept= with no console
// errors; words outside the vocabulary give a one-line note, not a failure. Screenshots at
// 1366x768 and 375x812: tests/web/screenshots/rnn-attention-*.png.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { rendered } from './lib/page.js';
import { NOTES_EN, NOTES_FR, shippedModel } from './lib/models.js';

const playground = usePlayground();
let ap, model;
beforeAll(async () => {
  ap = await load();
  model = ap.loadRnnAttention(shippedModel('translate-rnn'));
});
afterAll(() => model?.dispose());

async function open(path, tag, viewport) {
  const p = await playground.open(path, viewport ? { viewport } : undefined);
  await p.page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 45000 });
  return p;
}

const data = (page, tag, name) => page.locator(tag).evaluate((w, n) => w.dataset[n], name);
const json = async (page, tag, name) => JSON.parse(await data(page, tag, name));

describe('bahdanau on the trained translation model', () => {
  test("opens on the notes' sentence: the exact translation and the notes' three alignments", async () => {
    const { page, errors } = await open('/#concept=bahdanau', 'ap-bahdanau');
    const tag = 'ap-bahdanau';
    expect(await page.locator(tag).getAttribute('data-error')).toBeNull();
    expect(await data(page, tag, 'weights')).toBe('trained');
    expect(await data(page, tag, 'translation')).toBe(NOTES_FR);
    const align = Object.fromEntries((await json(page, tag, 'alignment')).map(([o, s, w]) => [o, { s, w }]));
    expect(align.zone.s).toBe('area');
    expect(align['1992'].s).toBe('1992');
    expect(align['signé'].s).toBe('signed');
    // The view's alignment rows are the core's (the same model run here in Node).
    const tr = model.translate(NOTES_EN);
    const [, T, S] = tr.shape('add_weights');
    const w = tr.get('add_weights');
    const t = tr.output.indexOf('zone');
    const area = tr.tokens.indexOf('area');
    expect(align.zone.w).toBeCloseTo(w[t * S + area], 5);
    // It opens at the step that writes "zone", with that row of the additive scores shown.
    expect(await data(page, tag, 't')).toBe(String(t + 1));
    expect((await json(page, tag, 'addScores')).length).toBe(S);
    expect(T).toBe((await json(page, tag, 'output')).length);
    tr.dispose();
    await page.waitForTimeout(200);
    await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, 'rnn-attention-bahdanau-1366.png') });
    expect(errors).toEqual([]);
  }, 90_000);

  test("a clicked score cell is explained term by term with the core's number", async () => {
    const { page, errors } = await open('/#concept=bahdanau', 'ap-bahdanau');
    const tag = 'ap-bahdanau';
    const canvas = page.locator(`${tag} ap-heatmap[data-name="add_scores"] .hm-plot canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const src = await json(page, tag, 'source');
    const area = src.indexOf('area');
    await page.mouse.click(box.x + box.width * ((area + 0.5) / src.length), box.y + box.height / 2);
    const e = page.locator(`${tag} .explain[data-cell="add_scores:0,${area}"]`);
    await e.waitFor({ timeout: 10000 });
    const core = Number(/core: (−?[\d.]+)/.exec(await e.locator('.result').textContent())[1].replace('−', '-'));
    const scores = await json(page, tag, 'addScores');
    expect(Math.abs(core - scores[area])).toBeLessThan(1e-3 * Math.max(1, Math.abs(scores[area]))); // shown to 4 significant digits
    // v . tanh(...) over the d_a = 32 units: the first 10 and last 4 terms, the middle elided.
    const terms = await e.locator('.terms div').allTextContents();
    expect(terms.join('\n')).toContain(`${model.config.dAtt - 14} more terms`);
    expect(terms[0]).toContain('v[0]');
    expect(errors).toEqual([]);
  }, 90_000);

  test('words outside the vocabulary: a one-line note, and the view still draws', async () => {
    const { page, errors } = await open('/#concept=bahdanau', 'ap-bahdanau');
    const tag = 'ap-bahdanau';
    const before = await data(page, tag, 'rendered');
    await page
      .locator(tag)
      .evaluate((w) => w.setAttribute('source', 'The zorblax on the European Area was signed in May 1990.'));
    await rendered(page, tag, before);
    expect(await page.locator(tag).getAttribute('data-error')).toBeNull();
    const note = await page.locator(`${tag} .unknown-note`).textContent();
    expect(note).toContain('"zorblax"');
    expect(await page.locator(tag).getAttribute('data-translation')).not.toBe('');
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('birnn', () => {
  test("changing a later word moves the earlier states only in their backward half (the core's numbers)", async () => {
    const { page, errors } = await open('/#concept=birnn', 'ap-birnn');
    const tag = 'ap-birnn';
    expect(await page.locator(tag).getAttribute('data-error')).toBeNull();
    const words = await json(page, tag, 'words');
    const at = Number(await data(page, tag, 'at'));
    expect(words[at - 1]).toBe('signed');
    expect((await json(page, tag, 'other'))[at - 1]).toBe('ratified');
    const fwd = await json(page, tag, 'fwdDiff'),
      bwd = await json(page, tag, 'bwdDiff');
    for (let j = 0; j < at - 1; j++) {
      expect(fwd[j], `forward half of word ${j + 1}`).toBe(0);
      expect(bwd[j], `backward half of word ${j + 1}`).toBeGreaterThan(0);
    }
    expect(fwd[at - 1]).toBeGreaterThan(0); // the changed word itself: both halves read it
    // The same distances from the core in Node.
    const a = model.encode(NOTES_EN),
      b = model.encode(NOTES_EN.replace('signed', 'ratified'));
    const H = a.shape('enc_bwd')[1],
      ba = a.get('enc_bwd'),
      bb = b.get('enc_bwd');
    a.dispose();
    b.dispose();
    for (let j = 0; j < words.length; j++) {
      let s = 0;
      for (let c = 0; c < H; c++) s += (ba[j * H + c] - bb[j * H + c]) ** 2;
      expect(bwd[j]).toBeCloseTo(Math.sqrt(s), 5);
    }
    expect(await page.locator(`${tag} .birnn-table tbody tr`).count()).toBe(words.length);
    expect(await page.locator(`${tag} .lesson`).textContent()).toContain('exactly the same numbers');
    await page.waitForTimeout(200);
    await page.locator(tag).screenshot({ path: join(SCREENSHOT_DIR, 'rnn-attention-birnn-1366.png') });

    // Choosing another word to change redraws with it.
    const before = await data(page, tag, 'rendered');
    // A widget redraws only while it is in view (its IntersectionObserver): keep it there.
    await page.locator(`${tag} select[aria-label="word to change"]`).scrollIntoViewIfNeeded();
    await page.locator(`${tag} select[aria-label="word to change"]`).selectOption('5');
    await rendered(page, tag, before);
    expect(await data(page, tag, 'at')).toBe('5');
    const fwd5 = await json(page, tag, 'fwdDiff');
    expect(fwd5.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('small and large screens', () => {
  test('both views at 1366x768 and 375x812 render with no console errors', async () => {
    for (const [w, h] of [
      [1366, 768],
      [375, 812],
    ]) {
      for (const id of ['birnn', 'bahdanau']) {
        const { page, errors } = await open(`/#concept=${id}`, `ap-${id}`, { width: w, height: h });
        expect(await page.locator(`ap-${id}`).getAttribute('data-error')).toBeNull();
        await page.waitForTimeout(300);
        await playground.screenshot(page, `rnn-attention-${id}-page-${w}x${h}`);
        expect(errors).toEqual([]);
      }
    }
  }, 180_000);
});
