// A long text (a 60-word paragraph, as a student types one) in headless Chromium: the block's
// attention maps keep 12 px per token, a label per column and per row, and scroll sideways with a
// line saying how many columns fit (they were drawn 84 columns in 180 px); rnn-chain's attention
// picture draws arcs to the first token and the 15 nearest only, every weight under its own token,
// and says how many tokens have no arc (84 arcs merged into one band, their labels at the apexes
// drifting away from their tokens); the causal mask's 0/1 grid hatches its blocked cells where
// their 1s do not fit (it was blank). One page, one load, no timing.
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';

const playground = usePlayground();

const PARAGRAPH =
  'in the early days of the republic the farmers who settled along the river built their houses of stone and timber and every spring the water rose over the low fields carrying away fences barns and sometimes whole families until the town council decided at last to raise a levee that would hold back the flood for good and all';

describe('a long text stays readable', () => {
  test('block: 12 px per token and a scroll note; rnn-chain: 16 arcs, the rest counted; the mask hatched', async () => {
    const words = PARAGRAPH.split(' ').length;
    expect(words).toBe(60);
    const { page, errors } = await playground.openHtml(
      `<!doctype html><html><head><meta charset="utf-8"><title>long text</title>
        <script type="module" src="/components/ap-block.js"></script>
        <script type="module" src="/components/ap-rnn-chain.js"></script>
        <script type="module" src="/components/ap-causal-mask.js"></script>
        </head><body style="margin:16px;max-width:1000px">
        <ap-block model="random" text="${PARAGRAPH}" stage="attn"></ap-block>
        <ap-rnn-chain model="random" text="${PARAGRAPH}"></ap-rnn-chain>
        <ap-causal-mask model="random" text="${PARAGRAPH}"></ap-causal-mask></body></html>`,
      { path: '/long-text.html' },
    );
    for (const tag of ['ap-block', 'ap-rnn-chain', 'ap-causal-mask']) {
      await page.locator(tag).scrollIntoViewIfNeeded();
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 30_000 });
      expect(await page.locator(tag).getAttribute('data-error'), tag).toBeNull();
    }

    // The block's maps with a column per token (the random model reads one token per word).
    const maps = await page.locator('ap-block').evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('ap-heatmap')]
        .filter((h) => Number(h.dataset.cols) > 24)
        .map((h) => {
          const r = h.shadowRoot;
          return {
            cols: Number(h.dataset.cols),
            rows: Number(h.dataset.rows),
            width: r.querySelector('canvas').getBoundingClientRect().width,
            box: r.querySelector('.hm-plotwrap').getBoundingClientRect().width,
            scrolls: h.dataset.scrolls,
            note: r.querySelector('.hm-scroll').hidden ? '' : r.querySelector('.hm-scroll').textContent,
            rowLabels: r.querySelectorAll('.hm-rows .hm-label').length,
          };
        }),
    );
    expect(maps.length).toBeGreaterThan(0);
    for (const m of maps) {
      expect(m.cols).toBe(words);
      expect(m.width).toBeGreaterThanOrEqual(12 * m.cols);
      expect(m.width).toBeGreaterThan(m.box);
      expect(m.scrolls).toBe('true');
      expect(m.note).toBe(
        `${Math.floor(m.box / 12)} of the ${m.cols} columns fit across: scroll the map sideways for the rest.`,
      );
      expect(m.rowLabels).toBe(m.rows);
    }

    // rnn-chain at its last step: the last token sees all 60 under the causal mask.
    const hops = await page.locator('ap-rnn-chain').evaluate((w) => {
      const svg = w.shadowRoot.querySelector('svg.attn-hops');
      return {
        arcs: [...svg.querySelectorAll('path[data-key]')].map((p) => Number(p.dataset.key)),
        weights: [...svg.querySelectorAll('text[data-weight-of]')].map((t) => Number(t.dataset.weightOf)),
        note: w.shadowRoot.querySelector('.scroll-x + .note, .panel .note:last-child')?.textContent ?? '',
        all: w.shadowRoot.textContent,
      };
    });
    const nearest = Array.from({ length: 15 }, (_, k) => words - 15 + k);
    expect(hops.arcs).toEqual([0, ...nearest]);
    expect(hops.weights).toEqual(Array.from({ length: words }, (_, j) => j));
    expect(hops.all).toContain(
      `Arcs go to the first token and the 15 tokens nearest "all"; the other ${words - 16} are one hop away too`,
    );

    // The causal mask's 0/1 grid (60 x 60: no room for its numbers): the blocked cells (future keys)
    // are hatched grey as in the masked scores beside it; they were drawn as blank as the open ones.
    const grey = await page.locator('ap-causal-mask').evaluate((w) => {
      const h = [...w.shadowRoot.querySelectorAll('ap-heatmap')].find((x) => x.dataset.name === 'mask');
      const canvas = h.shadowRoot.querySelector('canvas');
      const n = Number(h.dataset.cols);
      const ctx = canvas.getContext('2d');
      const cellW = canvas.width / n,
        cellH = canvas.height / n;
      // The share of a cell's pixels darker than the page (the hatching's base and lines: mean
      // channel below 215; an open cell is the light background).
      const greyShare = (i, j) => {
        const d = ctx.getImageData(
          Math.floor(j * cellW),
          Math.floor(i * cellH),
          Math.floor(cellW),
          Math.floor(cellH),
        ).data;
        let g = 0;
        for (let k = 0; k < d.length; k += 4) if (d[k + 3] > 0 && (d[k] + d[k + 1] + d[k + 2]) / 3 < 215) g++;
        return g / (d.length / 4);
      };
      const blocked = [],
        open = [];
      for (let i = 5; i < n; i += 11) for (let j = 0; j < n; j += 7) (j > i ? blocked : open).push(greyShare(i, j));
      const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
      return { n, blocked: mean(blocked), open: mean(open) };
    });
    expect(grey.n).toBe(words);
    expect(grey.blocked, 'future keys hatched').toBeGreaterThan(0.6);
    expect(grey.open, 'open keys plain').toBeLessThan(0.2);
    await page.locator('ap-block').screenshot({ path: join(SCREENSHOT_DIR, 'long-text-block.png') });
    expect(errors).toEqual([]);
  }, 90_000);
});
