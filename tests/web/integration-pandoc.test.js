// The Pandoc lesson (examples/pandoc/lesson.md) built by Debian's pandoc into a standalone page
// (tests/tools/lib/hosts-static.mjs), served as plain static files: its ```{=html} blocks hold the
// widgets and the one script tag. Checked in Chromium: every widget draws the notes' numbers, the
// text widget agrees with the API run in Node, the math is pandoc's own MathML, nothing is fetched
// from anywhere but the page's folder, and it keeps working offline after it loaded.
import { beforeAll, describe, expect, test } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { requireBundle, useStaticSite } from './harness.js';
import {
  CAT_SAT,
  THINKING,
  drawn,
  expectClose,
  foreignRequests,
  goOffline,
  heatmaps,
  renderAll,
} from './lib/widgets.js';
import { defaultScores } from './lib/models.js';
import { PANDOC_OUT, buildPandocLesson } from '../tools/lib/hosts-static.mjs';

let built;
beforeAll(async () => {
  requireBundle();
  built = await buildPandocLesson();
  console.log(`pandoc lesson built in ${built.ms} ms`);
}, 120_000);
const site = useStaticSite(PANDOC_OUT);
const DESKTOP = { width: 1366, height: 900 };

let ap;
beforeAll(async () => {
  ap = await load();
});

// "Clouds drift across blue sky" (notes 004): the bidirectional weights of the preset's table; the
// notes give the "sky" row. Under the causal mask a row keeps its first i + 1 weights, renormalised.
const CLOUDS = [
  [0.4, 0.3, 0.1, 0.1, 0.1],
  [0.3, 0.4, 0.2, 0.05, 0.05],
  [0.2, 0.3, 0.3, 0.1, 0.1],
  [0.1, 0.05, 0.05, 0.4, 0.4],
  [0.3, 0.1, 0.1, 0.3, 0.2],
];
const causal = (rows) =>
  rows.map((row, i) => {
    const sum = row.slice(0, i + 1).reduce((a, b) => a + b, 0);
    return row.map((v, j) => (j <= i ? v / sum : 0));
  });

describe('the Pandoc lesson (examples/pandoc/lesson.md -> build/examples/pandoc/lesson.html)', () => {
  test('pandoc kept the raw HTML blocks and wrote the math as MathML, with no CDN', async () => {
    const html = await readFile(join(PANDOC_OUT, 'lesson.html'), 'utf8');
    expect(html).toContain('<script type="module" src="attention-playground.js"></script>');
    expect(html).toContain('<ap-softmax preset="softmax.the-cat-sat" hide="text"></ap-softmax>');
    expect(html).toContain('<link rel="stylesheet" href="attention-playground.css">'); // header.html
    expect(html).not.toMatch(/mathjax|katex|cdn\.|https?:\/\/(?!www\.w3\.org)/i);
    expect((html.match(/<math /g) || []).length).toBeGreaterThan(10);
  });

  test("every widget draws the notes' numbers, with no console errors and no request off the page's server", async () => {
    const { page, errors, requests } = await site.open('lesson.html', { viewport: DESKTOP });
    const widgets = await renderAll(page);
    expect(widgets.map((w) => w.tag)).toEqual(['ap-scores', 'ap-softmax', 'ap-causal-mask']);
    expect(widgets.filter((w) => w.error)).toEqual([]);
    // The browser laid the MathML out as math (a fraction is taller than a line of text).
    const frac = await page.locator('math[display="block"] mfrac').first().boundingBox();
    expect(frac.height).toBeGreaterThan(25);

    // "the cat sat" (notes 000): .7 .2 .1 / .1 .6 .3 / .2 .3 .5.
    const soft = (await heatmaps(page.locator('ap-softmax'))).find((h) => h.rows === 3 && /weight/i.test(h.title));
    expect(soft, 'the softmax weights heatmap').toBeTruthy();
    CAT_SAT.forEach((v, i) => expect(soft.values[i]).toBeCloseTo(v, 5));

    // "Clouds drift across blue sky" (notes 004) under the mask: "across" sees clouds, drift and
    // itself only (0.25, 0.375, 0.375), "sky" keeps the notes' row.
    const mask = (await heatmaps(page.locator('ap-causal-mask'))).find((h) => h.title === 'weights, mask = −∞');
    expect(mask.rowLabels).toEqual(['clouds', 'drift', 'across', 'blue', 'sky']);
    expectClose(mask.values, causal(CLOUDS).flat(), 1e-5);
    expectClose(mask.values.slice(10, 15), [0.25, 0.375, 0.375, 0, 0], 1e-5);
    expectClose(mask.values.slice(20, 25), [0.3, 0.1, 0.1, 0.3, 0.2], 1e-5);

    // <ap-scores text="the cat sat">: the trained English decoder, as the API computes it in Node.
    const scores = (await heatmaps(page.locator('ap-scores'))).find((h) => h.rows === 4 && h.cols === 4);
    expect(scores.rowLabels).toEqual(['<|endoftext|>', 'the', ' cat', ' sat']);
    expectClose(scores.values, await defaultScores(ap, 'the cat sat'));

    await page.evaluate(() => window.scrollTo(0, 0));
    await site.screenshot(page, 'integration-pandoc');
    expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("a student's own sentence recomputes, still equal to the API in Node", async () => {
    const { page, errors } = await site.open('lesson.html', { viewport: DESKTOP });
    const scores = page.locator('ap-scores');
    await drawn(scores);
    const text = 'the dogs near the cat sleep.';
    await scores.locator('.own-text input').fill(text);
    await expect.poll(() => scores.getAttribute('text')).toBe(text);
    // The English decoder reads it as 8 pieces after its <|endoftext|> ("dogs" is " dog" + "s").
    const pieces = ['<|endoftext|>', 'the', ' dog', 's', ' near', ' the', ' cat', ' sleep', '.'];
    await expect.poll(async () => (await heatmaps(scores)).some((h) => h.rows === 9 && h.cols === 9)).toBe(true);
    const shown = (await heatmaps(scores)).find((h) => h.rows === 9 && h.cols === 9);
    expect(shown.rowLabels).toEqual(pieces);
    expectClose(shown.values, await defaultScores(ap, text));
    expect(errors).toEqual([]);
  });

  test('works offline once loaded: a preset button and new text recompute with the network gone', async () => {
    const { page, errors, requests } = await site.open('lesson.html', { viewport: DESKTOP });
    await drawn(page.locator('ap-scores'));
    await goOffline(page);
    const before = requests.length;
    const widgets = await renderAll(page); // the two widgets below the fold draw only now
    expect(widgets.filter((w) => w.error)).toEqual([]);
    // The lesson's "try this": the Thinking Machines button of the softmax box (notes 003).
    const soft = page.locator('ap-softmax');
    await soft.locator('button[data-preset="softmax.thinking-machines"]').click();
    await expect
      .poll(async () => (await heatmaps(soft)).some((h) => h.cols === 2 && Math.abs(h.values[0] - THINKING) < 1e-5))
      .toBe(true);
    const scores = page.locator('ap-scores');
    await scores.locator('.own-text input').fill('a dog ran');
    const mine = (hs) =>
      hs.find((h) => h.cols === 4 && JSON.stringify(h.rowLabels) === '["<|endoftext|>","a"," dog"," ran"]');
    await expect.poll(async () => Boolean(mine(await heatmaps(scores)))).toBe(true);
    const shown = mine(await heatmaps(scores));
    expectClose(shown.values, await defaultScores(ap, 'a dog ran'));
    expect(requests.slice(before)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('on a phone (390 x 844) the lesson and its widgets fit the width', async () => {
    const { page, errors } = await site.open('lesson.html', { viewport: { width: 390, height: 844 } });
    const widgets = await renderAll(page);
    expect(widgets.filter((w) => w.error)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const tag of ['ap-scores', 'ap-softmax', 'ap-causal-mask']) {
      const box = await page.locator(tag).boundingBox();
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await site.screenshot(page, 'integration-pandoc-phone');
    expect(errors).toEqual([]);
  });
});
