// A student's own text on the default page (issue 22): the page opens on the English decoder, and
// three sentences a student would type (accents and an emoji; a question with a name and numbers;
// a 100-word paragraph) are read as typed: the token chips under the box spell the text back piece
// by piece, nothing is unknown, every view of chapter B and the recap draws with no error, and the
// next-token table after the last piece is the model's own top 5 (the English decoder run in Node).
// Screenshots at 1366 x 768 and 375 x 812: tests/web/screenshots/own-text-<n>-<width>.png.
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { loadEnglish } from './lib/models.js';
import { PARAGRAPH } from '../tools/lib/english-sentences.mjs';

const playground = usePlayground();
const { english } = await loadEnglish();

const SENTENCES = [
  'The café served crêpes to naïve tourists 😀',
  'Did Marie Curie win two Nobel Prizes, in 1903 and 1911?',
  PARAGRAPH,
];

/** The top 5 next pieces after the whole text, as the English decoder gives them in Node. */
function top5(text) {
  const ids = [english.specialTokens.bos, ...english.tokenizer.encode(text).ids];
  const t = english.forward(Int32Array.from(ids));
  try {
    const V = english.vocab.length;
    const p = Array.from(t.get('probs').slice((ids.length - 1) * V, ids.length * V));
    return p
      .map((v, id) => [v, id])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5)
      .map(([v, id]) => ({ id, p: v }));
  } finally {
    t.dispose();
  }
}

describe("a student's own text on the default English model", () => {
  test('the paragraph has about 100 words and fits the model context', () => {
    expect(PARAGRAPH.split(/\s+/).length).toBeGreaterThanOrEqual(100);
    const n = english.tokenizer.encode(PARAGRAPH).ids.length;
    expect(n + 1).toBeLessThanOrEqual(english.config.maxLen);
  });

  for (const [k, text] of SENTENCES.entries()) {
    test(`sentence ${k + 1}: kept as typed, no <unk>, every view of chapter B and the recap draws`, async () => {
      for (const [width, height] of [
        [1366, 768],
        [375, 812],
      ]) {
        const { page, errors } = await playground.open('/#chapter=B', { viewport: { width, height } });
        await expect.poll(() => page.locator('ap-controls #model').inputValue()).toBe('english');
        await page.locator('#text').fill(text);
        await expect.poll(() => page.evaluate(() => new URL(location.href).searchParams.get('text'))).toBe(text);
        // The chips spell the text back, piece by piece (a byte of a character shown as <0xNN>
        // joins its neighbours' bytes), and none is unknown. They are drawn once the model has
        // read the new text: wait for as many chips as the model's tokens.
        const readChips = () =>
          page.locator('ap-controls').evaluate((c) =>
            [...c.shadowRoot.querySelectorAll('#tokens .tok:not(.special)')].map((t) => ({
              title: t.title,
              piece: t.firstChild.textContent,
            })),
          );
        const n = english.tokenizer.encode(text).ids.length;
        await expect.poll(async () => (await readChips()).length, { timeout: 60_000 }).toBe(n);
        const chips = await readChips();
        expect(chips).toHaveLength(n);
        // Before them, dashed, the start token the model reads first (the first row of every view).
        const start = await page
          .locator('ap-controls')
          .evaluate((c) =>
            [...c.shadowRoot.querySelectorAll('#tokens .tok.special')].map((t) => t.firstChild.textContent),
          );
        expect(start).toEqual([english.vocab[english.prompt(text).ids[0]]]);
        expect(chips.filter((t) => /not in the vocabulary/.test(t.title))).toEqual([]);
        // Each chip is its piece's text, or its bytes as <0xNN> when it is part of a character
        // (never "�"): put back together, the bytes are the text.
        expect(chips.filter((c) => c.piece.includes('\uFFFD'))).toEqual([]);
        const bytes = chips.flatMap(({ piece }) =>
          /^(<0x[0-9A-F]{2}>)+$/.test(piece)
            ? piece.match(/[0-9A-F]{2}(?=>)/g).map((h) => parseInt(h, 16))
            : [...new TextEncoder().encode(piece.replaceAll('␣', ' '))],
        );
        expect(new TextDecoder().decode(Uint8Array.from(bytes))).toBe(text);
        expect(await page.locator('#text').inputValue()).toBe(text);
        // Every view of the chapter draws the text, with no error.
        const views = await page.evaluate(() =>
          [...document.querySelectorAll('section.chapter [data-concept]')].map((w, i) => {
            w.dataset.own = String(i);
            return w.dataset.concept;
          }),
        );
        for (const [i, id] of views.entries()) {
          const sel = `[data-own="${i}"]`;
          await page.locator(sel).scrollIntoViewIfNeeded();
          await page.waitForFunction((s) => document.querySelector(s)?.dataset.rendered, sel, { timeout: 60_000 });
          expect(await page.locator(sel).getAttribute('data-error'), id).toBeNull();
        }
        // The views label their rows and columns with the same pieces as the chips: a byte of a
        // character as <0xNN> there too, never "�".
        const labels = await page.evaluate(() =>
          [...document.querySelectorAll('section.chapter [data-concept]')].flatMap((w) =>
            [...(w.shadowRoot?.querySelectorAll('ap-heatmap') ?? [])].flatMap((h) => [
              ...(h.matrix?.rowLabels ?? []),
              ...(h.matrix?.colLabels ?? []),
            ]),
          ),
        );
        expect(labels.length).toBeGreaterThan(0);
        expect(labels.filter((l) => String(l).includes('\uFFFD'))).toEqual([]);
        if (width === 1366) {
          // The recap's probabilities step: the table after the last piece is the model's top 5.
          await page.evaluate(() => {
            location.hash = 'chapter=recap';
          });
          const url = new URL(page.url());
          url.searchParams.set('step', 'probs');
          await page.goto(url.href);
          await page.waitForFunction(() => document.querySelector('ap-stepper')?.dataset.stage === 'probs', null, {
            timeout: 60_000,
          });
          const last = await page
            .locator('ap-stepper table.topk tbody tr')
            .last()
            .evaluate((tr) =>
              [...tr.querySelectorAll('td')].map((td) => ({ id: Number(td.dataset.id), p: Number(td.dataset.value) })),
            );
          const want = top5(text);
          expect(last.map((x) => x.id)).toEqual(want.map((x) => x.id));
          last.forEach((x, j) => expect(Math.abs(x.p - want[j].p)).toBeLessThanOrEqual(1e-5));
          await page.evaluate(() => {
            location.hash = 'chapter=B';
          });
        }
        // What the student sees under the box: the chips, the model's note, the tokens view.
        await page.locator('#text').evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SCREENSHOT_DIR, `own-text-${k + 1}-${width}.png`) });
        expect(errors).toEqual([]);
      }
    }, 300_000);
  }
});
