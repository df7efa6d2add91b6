// The Observable Framework example (examples/observable): built by `observable build` from the
// packed package (tests/tools/lib/observable.mjs), served as plain static files, opened in
// Chromium. Live widgets show the notes' numbers, the Plot chart shows what ap.attention gives in
// Node, the Inputs text box drives a widget, nothing comes from any other host, and it keeps working
// offline. The numbers are checked against the API run here in Node, not against the page.
import { beforeAll, describe, expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { buildObservable, OUT } from '../tools/lib/observable.mjs';
import { requireBundle, useStaticSite } from './harness.js';
import { CAT_SAT, THINKING, drawn, foreignRequests, goOffline, heatmaps, renderAll } from './lib/widgets.js';
import { defaultScores, englishModel } from './lib/models.js';

let ap;
let built;
// Registered before useStaticSite's hook, so the site exists before its server starts.
beforeAll(async () => {
  requireBundle();
  built = await buildObservable({ out: OUT });
  console.log(`examples/observable built in ${built.seconds.toFixed(1)} s`);
  ap = await load();
}, 300_000);
const site = useStaticSite(OUT);

const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

// "the cat sat" through ap.attention in Node: the weights the plot must show.
function catSatWeights() {
  const preset = ap.presets.get('softmax.the-cat-sat');
  const trace = ap.attention(preset);
  try {
    return { tokens: preset.tokens, weights: Array.from(trace.get('weights')) };
  } finally {
    trace.dispose();
  }
}

// Observable runs its cells reactively: <ap-scores> is made by the cell that reads the Inputs text
// box, which can come a moment after <ap-softmax>'s. A student sees it appear; a test waits for it
// (one CI run listed only ap-softmax when it looked at once).
const bothCells = (page) =>
  page.waitForFunction(() => document.querySelectorAll('ap-softmax, ap-scores').length === 2, null, {
    timeout: 30_000,
  });

// The square heatmap of <ap-scores> once it shows `rows` tokens.
async function scoresShown(page, rows) {
  const scores = page.locator('ap-scores');
  await expect.poll(async () => (await heatmaps(scores)).some((h) => h.rows === rows && h.cols === rows)).toBe(true);
  return (await heatmaps(scores)).find((h) => h.rows === rows && h.cols === rows);
}

async function expectScores(shown, text) {
  const expected = await defaultScores(ap, text);
  // The English decoder's pieces, <|endoftext|> first (its tokenizer in Node).
  const model = await englishModel(ap);
  const pieces = Array.from(model.tokenizer.encode(text).ids, (id) => model.tokenizer.decode([id]));
  expect(shown.rowLabels).toEqual(['<|endoftext|>', ...pieces]);
  expect(shown.values.length).toBe(expected.length);
  shown.values.forEach((v, i) =>
    expect(Math.abs(v - expected[i])).toBeLessThanOrEqual(4e-6 * Math.max(1, Math.abs(expected[i]))),
  );
}

// Types into the Inputs text box as a student would (select all, then type).
async function typeSentence(page, text) {
  const input = page.locator('form input[type="text"]');
  await input.scrollIntoViewIfNeeded();
  await input.fill('');
  await input.pressSequentially(text);
}

// The chart's numbers: the data attribute (full precision) and the labels Plot drew (two decimals).
function plotNumbers(page) {
  return page.locator('figure[data-weights]').evaluate((fig) => ({
    weights: JSON.parse(fig.dataset.weights),
    labels: [...fig.querySelectorAll('svg g[aria-label="text"] text')].map((t) => t.textContent),
    cells: fig.querySelectorAll('svg g[aria-label="cell"] rect').length,
    ticks: [...fig.querySelectorAll('svg g[aria-label="x-axis tick label"] text')].map((t) => t.textContent),
  }));
}

describe('the Observable Framework example (examples/observable)', () => {
  test('builds offline into a static site holding the re-bundled package and its wasm, models and worker', async () => {
    expect(built.seconds).toBeGreaterThan(0);
    // Framework printed every import as a node_modules resolution; nothing came from jsDelivr (npm:).
    expect(built.log).toContain('attention-playground/widgets →');
    expect(built.log).toContain('@observablehq/plot →');
    expect(built.log).not.toMatch(/npm:|jsdelivr|fonts\.googleapis/);
    const html = await readFile(join(OUT, 'index.html'), 'utf8');
    expect(html).not.toMatch(/https?:\/\/(?!observablehq\.com)/); // no remote script, stylesheet or font
    const assets = readdirSync(join(OUT, '_node', `attention-playground@${built.version}`, 'attention-playground'));
    expect(assets.some((f) => /^ap_core-.*\.wasm$/.test(f))).toBe(true);
    expect(assets.some((f) => /^english-.*\.safetensors$/.test(f))).toBe(true);
    expect(assets.some((f) => /^training-worker-.*\.js$/.test(f))).toBe(true);
  });

  test('live widgets with the notes numbers, and a plot of ap.attention equal to the API in Node', async () => {
    const { page, errors, requests } = await site.open('/', { viewport: LAPTOP });
    await bothCells(page);
    const widgets = await renderAll(page);
    expect(widgets.map((w) => w.tag)).toEqual(['ap-softmax', 'ap-scores']);
    expect(widgets.filter((w) => w.error)).toEqual([]);

    // <ap-softmax preset="softmax.the-cat-sat">: the notes' weight table (000).
    const soft = await heatmaps(page.locator('ap-softmax'));
    const table = soft.find((h) => h.rows === 3 && h.cols === 3 && /weight/i.test(h.title));
    expect(table, JSON.stringify(soft.map((h) => h.title))).toBeTruthy();
    CAT_SAT.forEach((v, i) => expect(table.values[i]).toBeCloseTo(v, 5));

    // The plot: ap.attention on the same preset, computed in the page; checked against Node.
    const node = catSatWeights();
    node.weights.forEach((v, i) => expect(v).toBeCloseTo(CAT_SAT[i], 5)); // the API agrees with the notes
    await page.locator('figure[data-weights] svg').first().scrollIntoViewIfNeeded();
    const plotted = await plotNumbers(page);
    expect(plotted.cells).toBe(9);
    expect(plotted.ticks).toEqual(node.tokens);
    plotted.weights.forEach((v, i) => expect(Math.abs(v - node.weights[i])).toBeLessThanOrEqual(1e-7));
    expect(plotted.labels).toEqual(node.weights.map((w) => w.toFixed(2)));

    // The input's first value drives <ap-scores>: the trained English decoder, as in Node.
    await expectScores(await scoresShown(page, 8), 'the cat sat on the mat'); // " m" + "at"

    await page.evaluate(() => window.scrollTo(0, 0));
    await site.screenshot(page, 'integration-observable');
    expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('the Inputs text box recomputes the widget, online and after going offline', async () => {
    const { page, errors, requests } = await site.open('/', { viewport: LAPTOP });
    await drawn(page.locator('ap-scores'));
    await drawn(page.locator('ap-softmax'));
    await scoresShown(page, 8);

    await typeSentence(page, 'the dogs sleep');
    await expect.poll(() => page.locator('ap-scores').getAttribute('text')).toBe('the dogs sleep');
    await expectScores(await scoresShown(page, 5), 'the dogs sleep'); // " dog" + "s"

    await goOffline(page);
    const before = requests.length;
    await typeSentence(page, 'a cat near the dogs sleeps');
    await expect.poll(() => page.locator('ap-scores').getAttribute('text')).toBe('a cat near the dogs sleeps');
    await expectScores(await scoresShown(page, 9), 'a cat near the dogs sleeps');
    // A preset button still works offline too: "Thinking Machines" (003).
    const soft = page.locator('ap-softmax');
    await soft.locator('button[data-preset="softmax.thinking-machines"]').click();
    await expect
      .poll(async () => (await heatmaps(soft)).some((h) => h.cols === 2 && Math.abs(h.values[0] - THINKING) < 1e-5))
      .toBe(true);
    expect(requests.slice(before)).toEqual([]);
    expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('on a phone: the widgets and the plot fit the width', async () => {
    const { page, errors } = await site.open('/', { viewport: PHONE });
    await bothCells(page);
    await renderAll(page);
    await page.locator('figure[data-weights] svg').first().scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await site.screenshot(page, 'integration-observable-phone');
    expect(errors).toEqual([]);
  });
});
