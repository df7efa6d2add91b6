// The reveal.js deck (examples/reveal/) built into a self-contained folder
// (tests/tools/lib/hosts-static.mjs: reveal.js's dist files from node_modules, the deck, the widget
// bundle), served as plain static files. Checked in Chromium: the widgets draw the notes' numbers
// inside the scaled slide, each only once its slide is shown (not while hidden, not when a jump
// sweeps its slide past), the arrow keys change slides unless a widget has the focus, nothing is
// fetched from anywhere but the deck's folder, and slides not yet seen still draw offline.
/* global Reveal -- reveal.js's global in the deck's page, where the page.evaluate callbacks below run */
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { requireBundle, useStaticSite } from './harness.js';
import { CAT_SAT, THINKING, expectClose, foreignRequests, goOffline, heatmaps } from './lib/widgets.js';
import { defaultScores } from './lib/models.js';
import { REVEAL_OUT, buildRevealDeck } from '../tools/lib/hosts-static.mjs';

let built;
beforeAll(async () => {
  requireBundle();
  built = await buildRevealDeck();
  console.log(`reveal.js deck built in ${built.ms} ms`);
}, 120_000);
const site = useStaticSite(REVEAL_OUT);
const DESKTOP = { width: 1366, height: 900 };

let ap;
beforeAll(async () => {
  ap = await load();
});

// The slides, in order, and the widget each holds (null: none).
const SLIDES = [null, 'ap-scores', 'ap-softmax', 'ap-softmax', 'ap-causal-mask', null];

// Opens the deck (optionally at #/<slide>) once reveal.js is ready, counting every widget drawing
// (the ap-rendered event each widget sends when it has drawn) by slide.
async function openDeck(hash = '', viewport = DESKTOP) {
  const opened = await site.open(`index.html${hash}`, { viewport });
  const { page } = opened;
  await page.waitForFunction(() => window.Reveal?.isReady());
  await page.evaluate(() => {
    window.__ends = 0; // slide transitions finished
    Reveal.on('slidetransitionend', () => window.__ends++);
    window.__draws = [];
    const slides = [...document.querySelectorAll('.reveal .slides > section')];
    document.addEventListener('ap-rendered', (e) => window.__draws.push(slides.indexOf(e.target.closest('section'))));
  });
  return opened;
}

// Per slide: does its widget hold data-rendered (null: a slide without a widget)?
const renderedBySlide = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('.reveal .slides > section')].map((s) => {
      const w = [...s.querySelectorAll('*')].find((e) => e.localName.startsWith('ap-'));
      return w ? w.hasAttribute('data-rendered') : null;
    }),
  );

const widgetOn = (page, index) => page.locator(`.reveal .slides > section:nth-child(${index + 1}) > [data-concept]`);
const slideIndex = (page) => page.evaluate(() => Reveal.getIndices().h);

// Runs `action` (a key press, a jump) and waits until the slide transition it started has ended.
async function navigate(page, action) {
  const ends = await page.evaluate(() => window.__ends);
  await action();
  await expect.poll(() => page.evaluate(() => window.__ends)).toBeGreaterThan(ends);
}

async function drawnOn(page, index) {
  await expect.poll(() => widgetOn(page, index).getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
}

// "Clouds drift across blue sky" (notes 004) under the causal mask: the row of "across" keeps its
// first three weights of [0.2, 0.3, 0.3, 0.1, 0.1], renormalised; "sky" keeps the notes' row.
const ACROSS = [0.25, 0.375, 0.375, 0, 0];
const SKY = [0.3, 0.1, 0.1, 0.3, 0.2];

// The widget's box on screen lies within the slide's (.slides, scaled by reveal.js), once the
// slide transition has brought it in, and it is as wide as the slide's content.
async function expectInsideSlides(page, index) {
  const boxes = async () => ({
    slides: await page.locator('.reveal .slides').boundingBox(),
    w: await widgetOn(page, index).boundingBox(),
  });
  const inside = ({ slides, w }) =>
    w.x >= slides.x - 0.5 &&
    w.y >= slides.y - 0.5 &&
    w.x + w.width <= slides.x + slides.width + 0.5 &&
    w.y + w.height <= slides.y + slides.height + 0.5;
  await expect.poll(async () => inside(await boxes())).toBe(true);
  const { slides, w } = await boxes();
  expect(w.width).toBeGreaterThan(0.8 * slides.width);
}

describe('the reveal.js deck (examples/reveal/ -> build/examples/reveal/)', () => {
  test("ArrowRight goes slide by slide; each widget draws only when its slide is shown, with the notes' numbers, inside the scaled slide", async () => {
    const { page, errors, requests } = await openDeck();
    expect(await slideIndex(page)).toBe(0);
    // reveal.js scales the 1280 x 800 slide to the window with a CSS transform.
    expect(await page.evaluate(() => Reveal.getScale())).toBeGreaterThan(1);
    // Every widget has been told by its IntersectionObserver whether it is in sight; none is.
    await expect
      .poll(() => page.evaluate(() => [...document.querySelectorAll('[data-concept]')].every((w) => w._ioSeen)))
      .toBe(true);
    expect(await renderedBySlide(page)).toEqual([null, false, false, false, false, null]);

    for (let i = 1; i < SLIDES.length; i++) {
      await navigate(page, () => page.keyboard.press('ArrowRight'));
      expect(await slideIndex(page)).toBe(i);
      if (SLIDES[i]) {
        await drawnOn(page, i);
        await expectInsideSlides(page, i);
      }
      // Every widget up to this slide has drawn, none after it.
      expect(await renderedBySlide(page)).toEqual(SLIDES.map((tag, j) => (tag ? j <= i : null)));
      if (i === 2) {
        // "the cat sat" (notes 000), the softmax slide: the screenshot a student sees.
        const soft = (await heatmaps(widgetOn(page, 2))).find((h) => h.rows === 3 && /weight/i.test(h.title));
        CAT_SAT.forEach((v, k) => expect(soft.values[k]).toBeCloseTo(v, 5));
        await site.screenshot(page, 'integration-reveal');
      }
    }
    // Each widget drew once: at its slide, not before.
    expect(await page.evaluate(() => window.__draws.slice().sort())).toEqual([1, 2, 3, 4]);

    const scores = (await heatmaps(widgetOn(page, 1))).find((h) => h.rows === 4 && h.cols === 4);
    expect(scores.rowLabels).toEqual(['<|endoftext|>', 'the', ' cat', ' sat']);
    expectClose(scores.values, await defaultScores(ap, 'the cat sat'), 4e-6);
    const thinking = (await heatmaps(widgetOn(page, 3))).find((h) => h.rows === 2 && h.cols === 2);
    expect(thinking.values[0]).toBeCloseTo(THINKING, 5); // notes 003: 0.88
    const mask = (await heatmaps(widgetOn(page, 4))).find((h) => h.title === 'weights, mask = −∞');
    expectClose(mask.values.slice(10, 15), ACROSS, 1e-5);
    expectClose(mask.values.slice(20, 25), SKY, 1e-5);

    expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a jump sweeps slides across the window, but only the slide jumped to draws', async () => {
    const { page, errors } = await openDeck();
    await navigate(page, () => page.evaluate(() => Reveal.slide(4)));
    await drawnOn(page, 4);
    expect(await renderedBySlide(page)).toEqual([null, false, false, false, true, null]);
    expect(await page.evaluate(() => window.__draws)).toEqual([4]);
    // The overview shows the slides as thumbnails: the widgets of those in the window draw there.
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => Reveal.isOverview())).toBe(true);
    await drawnOn(page, 3);
    expect(errors).toEqual([]);
  });

  test('with the focus in a widget the arrow keys stay in it; Escape gives them back to the slides', async () => {
    const { page, errors } = await openDeck('#/1');
    await drawnOn(page, 1);
    const scores = widgetOn(page, 1);
    const input = scores.locator('.own-text input');
    await input.click();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await input.evaluate((i) => i.selectionStart)).toBe(2); // the caret moved
    expect(await slideIndex(page)).toBe(1); // reveal.js changes the slide as it handles the key
    // Typing in it (letters reveal.js would take: f, o, s, b...) edits the text and recomputes.
    await input.fill('');
    await page.keyboard.type('the dogs sleep');
    await expect.poll(() => scores.getAttribute('text')).toBe('the dogs sleep');
    expect(await page.evaluate(() => Reveal.isOverview() || Reveal.isPaused())).toBe(false);
    // The English decoder's pieces: "dogs" is " dog" + "s".
    const mine = (hs) =>
      hs.find((h) => h.cols === 5 && JSON.stringify(h.rowLabels) === '["<|endoftext|>","the"," dog","s"," sleep"]');
    await expect.poll(async () => Boolean(mine(await heatmaps(scores)))).toBe(true);
    expectClose(mine(await heatmaps(scores)).values, await defaultScores(ap, 'the dogs sleep'), 4e-6);

    // The heatmap: with a cell focused, the arrows move the cell, not the slide.
    const canvas = scores.locator('.out ap-heatmap .hm-plot canvas');
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    expect(await slideIndex(page)).toBe(1);

    // Escape: the focus leaves the widget and the arrows change slides again.
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => Reveal.isOverview())).toBe(false);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => slideIndex(page)).toBe(2);
    expect(errors).toEqual([]);
  });

  test("without the deck's keyboardCondition, reveal.js would take the text box's arrows (why deck.js sets it)", async () => {
    const { page, errors } = await openDeck('#/1');
    await drawnOn(page, 1);
    await page.evaluate(() => Reveal.configure({ keyboardCondition: null }));
    await widgetOn(page, 1).locator('.own-text input').click();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => slideIndex(page)).toBe(2);
    expect(errors).toEqual([]);
  });

  test('works offline once loaded: slides never shown before draw with the network gone', async () => {
    const { page, errors, requests } = await openDeck('#/1');
    await drawnOn(page, 1);
    await goOffline(page);
    const before = requests.length;
    for (const i of [2, 3, 4]) {
      await page.keyboard.press('ArrowRight');
      await drawnOn(page, i);
    }
    const soft = (await heatmaps(widgetOn(page, 2))).find((h) => h.rows === 3 && /weight/i.test(h.title));
    CAT_SAT.forEach((v, k) => expect(soft.values[k]).toBeCloseTo(v, 5));
    const mask = (await heatmaps(widgetOn(page, 4))).find((h) => h.title === 'weights, mask = −∞');
    expectClose(mask.values.slice(10, 15), ACROSS, 1e-5);
    expect(requests.slice(before)).toEqual([]);
    expect(errors).toEqual([]);
  });

  // ap-heatmap maps a click to a cell in the canvas's own CSS pixels, whatever reveal.js's scale.
  test('a click on a heatmap cell selects that cell at any slide scale (1920 x 1080: scale 1.3)', async () => {
    const { page } = await openDeck('#/1', { width: 1920, height: 1080 });
    await drawnOn(page, 1);
    await page.evaluate(() => {
      window.__picked = [];
      document.addEventListener('ap-cell-select', (e) => window.__picked.push([e.detail.row, e.detail.col]));
    });
    const canvas = widgetOn(page, 1).locator('.out ap-heatmap .hm-plot canvas');
    const box = await canvas.boundingBox();
    await page.mouse.click(box.x + box.width * (3.5 / 4), box.y + box.height * (1.5 / 4)); // query 1, key 3
    await page.mouse.click(box.x + box.width * (0.5 / 4), box.y + box.height * (2.5 / 4)); // query 2, key 0
    expect(await page.evaluate(() => window.__picked)).toEqual([
      [1, 3],
      [2, 0],
    ]);
  });
});
