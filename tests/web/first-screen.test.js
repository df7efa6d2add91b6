// A picture first (issue 23, item 10): every chapter of the learning path opens with its first
// view's drawing on the first screen, at laptop size (1366 x 768) and phone size (375 x 812), not
// only the chapter's title and texts. The picture is the first view's first svg or canvas (a plot,
// a heatmap's cells, a diagram; KaTeX's glyphs and colour legends do not count) or the element the
// view marks as its drawing (data-picture: the tokens view's row of coloured pieces); its top must
// be at least 40 px above the bottom of the window, so that some of it shows. The first screens
// are saved as tests/web/screenshots/first-screen-<chapter>-<width>.png for the people who look
// at them.
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { CHAPTERS } from '../../web/lib/concepts.js';
import { pathOrder } from '../../web/lib/lessons.js';

const playground = usePlayground();
const ORDER = pathOrder(CHAPTERS);
const SHOWN = 40; // px of the picture that must be on the first screen

// In the page: the chapter's first view (the first <ap-*> element of the chapter, after its
// heading and controls), and the top of its first picture in page coordinates (null: none yet).
function firstPicture() {
  const view = [...(document.querySelector('section.chapter')?.children || [])].find((n) =>
    n.localName.startsWith('ap-'),
  );
  if (!view?.dataset.rendered) return null;
  let top = Infinity;
  const visit = (root) => {
    for (const node of root.querySelectorAll('*')) {
      const drawing = node.localName === 'svg' || node.localName === 'canvas' || node.hasAttribute('data-picture');
      if (drawing && !node.closest('.katex, .hm-legend, .legend-row')) {
        const r = node.getBoundingClientRect();
        if (r.width >= 40 && r.height >= 16) top = Math.min(top, r.top + scrollY);
      }
      if (node.shadowRoot) visit(node.shadowRoot);
    }
  };
  visit(view.shadowRoot);
  return Number.isFinite(top) ? { view: view.localName, top: Math.round(top) } : null;
}

describe("every chapter's first screen shows its first view's picture", () => {
  for (const [width, height] of [
    [1366, 768],
    [375, 812],
  ]) {
    test(`at ${width} x ${height}`, async () => {
      const missed = [];
      const failed = []; // console errors, uncaught exceptions, failed requests, per chapter
      for (const id of ORDER) {
        const { page, errors } = await playground.open(`/#chapter=${id}`, { viewport: { width, height } });
        // The view draws on its own (it is within the window's reach); a view that draws no
        // picture is reported below with top null.
        await page.waitForFunction(
          () =>
            [...(document.querySelector('section.chapter')?.children || [])].find((n) => n.localName.startsWith('ap-'))
              ?.dataset.rendered,
          null,
          { timeout: 60_000 },
        );
        const found = await page
          .waitForFunction(firstPicture, null, { timeout: 15_000 })
          .then((h) => h.jsonValue())
          .catch(() => null);
        expect(await page.evaluate(() => scrollY), id).toBe(0); // the page opened at its top
        await page.screenshot({ path: join(SCREENSHOT_DIR, `first-screen-${id}-${width}.png`) });
        if (!found || found.top >= height - SHOWN) missed.push({ chapter: id, ...found, top: found?.top ?? null });
        failed.push(...errors.map((e) => `${id}: ${e}`));
        await page.context().close();
      }
      // Each chapter that misses, with its first view and its picture's top (px from the page's top).
      expect(missed).toEqual([]);
      expect(failed).toEqual([]);
    }, 600_000);
  }
});
