// A student's pass at 1366 and 375 px over labels and sideways scrolling. Each test failed on the
// page the reviewer read:
//  1. rnn-chain: a short text opens with its first token (the one the summary names) in view.
//  2. reshape: the 19 row labels of Q no longer pile into each other.
//  3. bert-gpt, general-form, block: no two labels of a map overlap (one thinning rule for all).
import { describe, expect, test } from 'vitest';
import { openView as openShared, usePlayground } from './harness.js';

const playground = usePlayground();
const PHONE = { width: 375, height: 812 };
const LAPTOP = { width: 1366, height: 900 };

// reshape's labels jump, not glide, with reduced motion
const openView = (path, tag, viewport) => openShared(playground, path, tag, viewport, { reducedMotion: 'reduce' });

// ---- overlap of drawn boxes -------------------------------------------------------------

// In the page: the four corners of each label as drawn (its box, turned by its CSS transform
// about its transform-origin), in its container's coordinates; the label's text and index.
// A label rotated by 45 degrees is a turned box: its axis-aligned bounding rect would overlap its
// neighbour's even when the text does not, so the boxes are compared as drawn. A box shorter than
// its font (a line-height smaller than the text) is taken as tall as the font, centred as the
// text overflows it: the letters are what must not overlap.
const QUADS = `(labels) => labels
  .filter((e) => e.getClientRects().length && getComputedStyle(e).opacity !== '0')
  .map((e) => {
    const cs = getComputedStyle(e);
    const m = new DOMMatrix(cs.transform === 'none' ? undefined : cs.transform);
    const [ox, oy] = cs.transformOrigin.split(' ').map(parseFloat);
    const w = e.offsetWidth, h = Math.max(e.offsetHeight, parseFloat(cs.fontSize));
    const y0 = (e.offsetHeight - h) / 2;
    const corners = [[0, y0], [w, y0], [w, y0 + h], [0, y0 + h]].map(([x, y]) => {
      const p = m.transformPoint(new DOMPoint(x - ox, y - oy));
      return [e.offsetLeft + ox + p.x, e.offsetTop + oy + p.y];
    });
    return { text: e.textContent, index: Number(e.dataset.index), corners };
  })`;

// Two convex polygons overlap (by more than 0.5 px) unless some edge's normal separates them.
function overlap(a, b) {
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i];
      const [x2, y2] = poly[(i + 1) % poly.length];
      const nx = y2 - y1,
        ny = x1 - x2;
      const len = Math.hypot(nx, ny);
      const proj = (p) => p.map(([x, y]) => (x * nx + y * ny) / len);
      const pa = proj(a),
        pb = proj(b);
      if (Math.min(...pa) >= Math.max(...pb) - 0.5 || Math.min(...pb) >= Math.max(...pa) - 0.5) return false;
    }
  }
  return true;
}

/** The pairs of labels (by text) whose drawn boxes overlap. */
function overlaps(quads) {
  const out = [];
  for (let i = 0; i < quads.length; i++)
    for (let j = i + 1; j < quads.length; j++)
      if (overlap(quads[i].corners, quads[j].corners)) out.push(`${quads[i].text} / ${quads[j].text}`);
  return out;
}

// In the page: every heatmap of a view with its row and column labels (quads) and its matrix's labels.
const heatmapLabels = (w, quads) => {
  const q = new Function(`return ${quads}`)();
  return [...w.shadowRoot.querySelectorAll('ap-heatmap')]
    .filter((h) => h.matrix && h.getClientRects().length)
    .map((h) => ({
      name: h.dataset.name,
      rowLabels: h.matrix.rowLabels,
      colLabels: h.matrix.colLabels,
      rows: q([...h.shadowRoot.querySelectorAll('.hm-rows .hm-label')]),
      cols: q([...h.shadowRoot.querySelectorAll('.hm-cols .hm-label')]),
    }));
};

/** Every map of `tag`: no two labels overlap, and each label shown is its row's or column's own token. */
async function expectClearLabels(page, tag) {
  const maps = await page.locator(tag).evaluate(heatmapLabels, QUADS);
  expect(maps.length).toBeGreaterThan(0);
  for (const m of maps) {
    expect(overlaps(m.rows), `${m.name} rows`).toEqual([]);
    expect(overlaps(m.cols), `${m.name} columns`).toEqual([]);
    for (const [quads, tokens] of [
      [m.rows, m.rowLabels],
      [m.cols, m.colLabels],
    ]) {
      if (!tokens) continue;
      for (const l of quads) {
        const token = tokens[l.index];
        // thin columns show a token's first 8 characters; an unknown token is flagged with "?"
        expect([token, `${token}?`, token.slice(0, 8)], `${m.name} label ${l.index}`).toContain(l.text);
      }
    }
  }
  return maps;
}

// ---- 1. rnn-chain -----------------------------------------------------------------------

describe('1. rnn-chain opens where its summary looks', () => {
  // In the page: for each picture, the left and right of each token's box relative to the visible
  // part of its scroll box (negative left or right past the width: cut), and the box's scrolling.
  const seen = (w) =>
    [...w.shadowRoot.querySelectorAll('.scroll-x')].map((box) => {
      const r = box.getBoundingClientRect();
      const rects = [...box.querySelectorAll('svg > g > rect, svg > g > g > rect')].map((b) =>
        b.getBoundingClientRect(),
      );
      // The token boxes are the lower row (y of the chain's x_t boxes, of the arcs' token boxes).
      const bottom = Math.max(...rects.map((b) => Math.round(b.top)));
      return {
        width: box.clientWidth,
        scrolled: box.scrollLeft,
        overflow: box.scrollWidth - box.clientWidth,
        tokens: rects
          .filter((b) => Math.round(b.top) === bottom)
          .map((b) => ({ left: Math.round(b.left - r.left), right: Math.round(b.right - r.left) })),
      };
    });
  const afterFrame = (page) =>
    page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  test('at 375 px "Cats sleep" fits: the first token, named by the summary, is not cut', async () => {
    const { page, errors } = await openView('/?text=Cats%20sleep#chapter=A', 'ap-rnn-chain', PHONE);
    const w = page.locator('ap-rnn-chain');
    await afterFrame(page);
    expect(await w.evaluate((el) => el.dataset.n)).toBe('4');
    const summary = await w.evaluate((el) => el.shadowRoot.querySelector('.summary').textContent);
    expect(summary).toContain('"<|endoftext|>"');
    for (const pic of await w.evaluate(seen)) {
      expect(pic.tokens).toHaveLength(4);
      expect(pic.overflow).toBe(0); // 4 tokens fit a phone
      for (const t of pic.tokens) {
        expect(t.left).toBeGreaterThanOrEqual(0);
        expect(t.right).toBeLessThanOrEqual(pic.width);
      }
    }
    expect(errors).toEqual([]);
  });

  test('a long text at 375 px opens with the first token whole, or with the current one whole, never cut', async () => {
    const text = 'The old keeper of the lighthouse walked down to the pier every night';
    const { page, errors } = await openView(`/?text=${encodeURIComponent(text)}#chapter=A`, 'ap-rnn-chain', PHONE);
    const w = page.locator('ap-rnn-chain');
    await afterFrame(page);
    const n = Number(await w.evaluate((el) => el.dataset.n));
    expect(n).toBeGreaterThan(8);
    for (const pic of await w.evaluate(seen)) {
      expect(pic.overflow).toBeGreaterThan(0); // too long to fit: it scrolls
      const shown = pic.tokens.filter((t) => t.right > 0 && t.left < pic.width);
      // no token box is cut at either edge
      for (const t of shown) {
        expect(t.left, JSON.stringify(t)).toBeGreaterThanOrEqual(0);
        expect(t.right, JSON.stringify(t)).toBeLessThanOrEqual(pic.width);
      }
      // the current token (the last, t = n) is whole in view
      const cur = pic.tokens[n - 1];
      expect(cur.left).toBeGreaterThanOrEqual(0);
      expect(cur.right).toBeLessThanOrEqual(pic.width);
    }
    // At step 2 the first token is in view with the current one.
    await w.evaluate((el) => el.setAttribute('t', '2'));
    await page.waitForFunction(() => document.querySelector('ap-rnn-chain').dataset.t === '2');
    await afterFrame(page);
    for (const pic of await w.evaluate(seen)) {
      expect(pic.scrolled).toBe(0);
      expect(pic.tokens[0].left).toBeGreaterThanOrEqual(0);
    }
    expect(errors).toEqual([]);
  });
});

// ---- 2. reshape -------------------------------------------------------------------------

describe('2. reshape: the row labels of Q stay readable', () => {
  const TROPHY = "The trophy didn't fit in the suitcase because it was too big.";
  for (const viewport of [LAPTOP, PHONE]) {
    test(`at ${viewport.width} px no two token labels overlap, in every layout`, async () => {
      const { page, errors } = await openView(`/?text=${encodeURIComponent(TROPHY)}#chapter=C`, 'ap-reshape', viewport);
      const w = page.locator('ap-reshape');
      for (const layout of [0, 1, 2]) {
        await w.locator('.seg button').nth(layout).click();
        await page.waitForFunction((k) => document.querySelector('ap-reshape').dataset.layout === String(k), layout);
        const { quads, said } = await w.evaluate(
          (el, q) => ({
            quads: new Function(`return ${q}`)()([...el.shadowRoot.querySelectorAll('.rs-label')]),
            said: el.shadowRoot.querySelector('.reshape-scroll > *').getAttribute('aria-label'),
          }),
          QUADS,
        );
        expect(said).toMatch(/: 19 tokens by/);
        expect(quads.length).toBeGreaterThan(1);
        expect(overlaps(quads), `layout ${layout}`).toEqual([]);
      }
      expect(errors).toEqual([]);
    });
  }
});

// ---- 3. every map thins its labels by one rule ------------------------------------------

describe('3. no two labels of a map overlap', () => {
  const GERMAN = 'Der Hund schläft unter dem Tisch, weil er müde ist und die Sonne scheint.';
  test('bert-gpt at 1366 px, 35 tokens: BERT thins its column labels as GPT does', async () => {
    const { page, errors } = await openView(`/?text=${encodeURIComponent(GERMAN)}#chapter=F`, 'ap-bert-gpt', LAPTOP);
    const maps = await expectClearLabels(page, 'ap-bert-gpt');
    const wide = maps.filter((m) => m.colLabels && m.colLabels.length >= 30);
    expect(wide.length).toBeGreaterThanOrEqual(2); // BERT's and GPT's maps over the sentence
    for (const m of wide) expect(m.cols.length).toBeLessThan(m.colLabels.length); // thinned
    expect(errors).toEqual([]);
  });

  test('general-form at 1366 px and at 375 px', async () => {
    const text = 'Did she give it to him before the rain started?';
    for (const viewport of [LAPTOP, PHONE]) {
      const { page, errors } = await openView(
        `/?text=${encodeURIComponent(text)}#chapter=B`,
        'ap-general-form',
        viewport,
      );
      await expectClearLabels(page, 'ap-general-form');
      expect(errors).toEqual([]);
    }
  });

  test('block at 1366 px, a paragraph: the masked scores too', async () => {
    const text =
      'When the old lighthouse keeper finally retired after forty years, the village held a small party on the pier. Children ran between the tables, fishermen told stories about storms that nobody quite believed.';
    const { page, errors } = await openView(`/?text=${encodeURIComponent(text)}#chapter=E`, 'ap-block', LAPTOP);
    await expectClearLabels(page, 'ap-block');
    expect(errors).toEqual([]);
  });
});

// ---- 4. a box that scrolls sideways shows it ------------------------------------------

describe("3b. a narrow map's index ticks stay inside it", () => {
  // qkv at 375 px: 128 columns in about 200 px, ticks every 16; "0" was centred on column 0 and cut
  // in half at the map's left edge.
  test('qkv at 375 px: every upright index tick lies within its map, and the first one is "0"', async () => {
    const { page, errors } = await openView('/#chapter=B', 'ap-qkv', PHONE);
    const maps = await page.locator('ap-qkv').evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('ap-heatmap')].map((h) => {
        const cols = h.shadowRoot.querySelector('.hm-cols');
        const box = cols.getBoundingClientRect();
        return [...cols.querySelectorAll('.hm-label.tick')].map((n) => {
          const r = n.getBoundingClientRect();
          return { text: n.textContent, left: r.left - box.left, right: r.right - box.right };
        });
      }),
    );
    const ticks = maps.filter((m) => m.length);
    expect(ticks.length).toBeGreaterThan(0);
    for (const m of ticks) {
      expect(m[0].text).toBe('0');
      for (const t of m) {
        expect(t.left, t.text).toBeGreaterThanOrEqual(-0.5);
        expect(t.right, t.text).toBeLessThanOrEqual(0.5);
      }
    }
    expect(errors).toEqual([]);
  });
});

describe('4. a sideways-scrolling box shows a shadow on the side with more', () => {
  // The mean grey level (0..255) of a screenshot of the page's region `clip`, decoded in the page.
  async function grey(page, clip) {
    const png = (await page.screenshot({ clip })).toString('base64');
    return page.evaluate(async (b64) => {
      const blob = await (await fetch(`data:image/png;base64,${b64}`)).blob();
      const bmp = await createImageBitmap(blob);
      const c = new OffscreenCanvas(bmp.width, bmp.height);
      const ctx = c.getContext('2d');
      ctx.drawImage(bmp, 0, 0);
      const { data } = ctx.getImageData(0, 0, bmp.width, bmp.height);
      let s = 0;
      for (let i = 0; i < data.length; i += 4) s += (data[i] + data[i + 1] + data[i + 2]) / 3;
      return s / (data.length / 4);
    }, png);
  }

  // Three empty boxes of the shared class .scroll-x in a view (its own styles), on the view's
  // background and on a panel's: one whose content is 3 times as wide as it, one whose content fits.
  for (const inPanel of [false, true]) {
    test(`at 375 px: a shadow at the right edge while more is to the right, at the left once scrolled; none when it fits${inPanel ? ' (in a panel)' : ''}`, async () => {
      const { page, errors } = await openView('/#concept=qkv', 'ap-qkv', PHONE);
      await page.locator('ap-qkv').evaluate((w, panel) => {
        const host = document.createElement('div');
        if (panel) host.className = 'panel';
        host.id = 'probe';
        for (const [id, inner] of [
          ['wide', 600],
          ['fits', 100],
        ]) {
          const box = document.createElement('div');
          box.className = 'scroll-x';
          box.id = id;
          box.style.cssText = 'width: 200px; height: 40px; margin: 8px 0';
          const child = document.createElement('div');
          child.style.cssText = `width: ${inner}px; height: 40px`;
          box.append(child);
          host.append(box);
        }
        w.shadowRoot.querySelector('.body').prepend(host);
      }, inPanel);
      const strips = async (id) => {
        const r = await page
          .locator('ap-qkv')
          .evaluate((w, i) => JSON.parse(JSON.stringify(w.shadowRoot.getElementById(i).getBoundingClientRect())), id);
        const y = r.y + 10,
          height = 20;
        return {
          left: await grey(page, { x: r.x, y, width: 5, height }),
          middle: await grey(page, { x: r.x + 90, y, width: 20, height }),
          right: await grey(page, { x: r.x + r.width - 5, y, width: 5, height }),
        };
      };
      await page.locator('ap-qkv').scrollIntoViewIfNeeded();
      const wide = await strips('wide');
      expect(wide.middle - wide.right, JSON.stringify(wide)).toBeGreaterThan(10); // the cue: darker right edge
      expect(Math.abs(wide.middle - wide.left), JSON.stringify(wide)).toBeLessThan(2); // nothing more on the left
      const fits = await strips('fits');
      expect(Math.abs(fits.middle - fits.right), JSON.stringify(fits)).toBeLessThan(2);
      expect(Math.abs(fits.middle - fits.left), JSON.stringify(fits)).toBeLessThan(2);
      // Scrolled to the end: the cue moves to the left edge.
      await page.locator('ap-qkv').evaluate((w) => {
        const b = w.shadowRoot.getElementById('wide');
        b.scrollLeft = b.scrollWidth;
      });
      const end = await strips('wide');
      expect(end.middle - end.left, JSON.stringify(end)).toBeGreaterThan(10);
      expect(Math.abs(end.middle - end.right), JSON.stringify(end)).toBeLessThan(2);
      expect(errors).toEqual([]);
    });
  }
});
