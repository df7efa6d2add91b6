// Looking at widgets in a Playwright page, as any host page holds them (the course page, the
// example books, decks and sites of examples/): waiting for them to draw, and reading the numbers
// their heatmaps hold. Shared by the embed and the course-tool integration tests.
import { expect } from 'vitest';

// The notes' numbers (docs/concepts.md worked examples):
// "the cat sat" attention weights (notes 000), row by row.
export const CAT_SAT = [0.7, 0.2, 0.1, 0.1, 0.6, 0.3, 0.2, 0.3, 0.5];

// Scrolls every widget into view in turn (they render when visible) and waits for each to draw.
export async function renderAll(page, selector = '*') {
  const tags = await page.evaluate(
    (sel) =>
      [...document.querySelectorAll(sel)]
        .filter((e) => e.tagName.startsWith('AP-'))
        .map((e, i) => {
          e.dataset.testIndex = String(i);
          return i;
        }),
    selector,
  );
  for (const i of tags) {
    const w = page.locator(`[data-test-index="${i}"]`);
    await w.scrollIntoViewIfNeeded();
    await expect
      .poll(() => w.evaluate((e) => e.dataset.rendered !== undefined || e.dataset.error !== undefined), {
        timeout: 30_000,
      })
      .toBe(true);
  }
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-test-index]')].map((e) => ({
      tag: e.tagName.toLowerCase(),
      error: e.dataset.error || '',
    })),
  );
}

// Scrolls a widget into view (a view draws when it is seen) and waits until it has drawn (the first
// widget of a page waits for the second module and the 2.8 MB English model on a loaded machine).
export async function drawn(widget) {
  await widget.scrollIntoViewIfNeeded();
  await expect.poll(() => widget.getAttribute('data-rendered'), { timeout: 60_000 }).toBeTruthy();
}

// The values of the heatmaps in a widget's shadow root: [{ title, rows, cols, values }].
export function heatmaps(locator) {
  return locator.evaluate((w) =>
    [...w.shadowRoot.querySelectorAll('ap-heatmap')]
      .filter((h) => h.matrix)
      .map((h) => ({
        title: h.matrix.title || '',
        rows: h.matrix.rows,
        cols: h.matrix.cols,
        rowLabels: h.matrix.rowLabels || [],
        values: Array.from(h.matrix.values),
      })),
  );
}

// "Thinking Machines" (notes 001): softmax of [112, 96] / sqrt(64): exp(14) / (exp(14) + exp(12)) = 1 / (1 + e^-2), written out.
export const THINKING = 1 / (1 + Math.exp(-2)); // 0.8808

/**
 * "Embed this view" on the playground page (`playground`, a harness site) opened at `path`: the
 * three snippets of the view `concept` ({ html, iframe, myst }), and the heatmaps the view shows.
 */
export async function copyEmbed(playground, path, concept) {
  const { page, errors } = await playground.open(path);
  const view = page.locator(`#concept-${concept}`);
  await view.scrollIntoViewIfNeeded();
  await expect.poll(() => view.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
  const box = page.locator(`details.embed-code[data-for="${concept}"]`);
  await box.locator('summary').click();
  const code = {};
  for (const key of ['html', 'iframe', 'myst']) {
    const text = box.locator(`[data-embed="${key}"] textarea`);
    await expect.poll(() => text.inputValue()).not.toBe(''); // written when the box opens
    code[key] = await text.inputValue();
  }
  return { page, errors, code, shown: await heatmaps(view) };
}

/** Each value of `shown` within `tol` (relative, absolute below 1) of `expected`'s. */
export function expectClose(shown, expected, tol = 4e-6) {
  expect(shown.length).toBe(expected.length);
  shown.forEach((v, i) =>
    expect(Math.abs(v - expected[i])).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected[i]))),
  );
}

/** The requests of `requests` (urls) that left the page's own origin: a page that works offline makes none. */
export function foreignRequests(requests, baseUrl) {
  const origin = new URL(baseUrl).origin;
  return requests.filter((r) => !/^(data|blob):/.test(r) && new URL(r.split(' ')[0]).origin !== origin);
}

/**
 * "Loaded": no request in flight for 500 ms (what the page fetches after its first paint, the wasm
 * module, the kernels and KaTeX's fonts, has arrived) and the fonts are ready; then the network
 * goes away (context.setOffline).
 */
export async function goOffline(page) {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready.then(() => true));
  await page.context().setOffline(true);
}
