// The tokens view (chapter B, before embed) in headless Chromium: the student's text becomes the
// English model's byte-level BPE tokens. The chips' ids are the ones the real module gives in Node
// (model.tokenizer.encode(text).ids), each chip's bytes are its vocabulary entry read through
// GPT-2's byte alphabet (written out here, independent of web/lib/models.js), the counts it states
// are counted here, and the grammar model's <unk> count is the core's. Each "try this" prompt of
// the lesson is clicked and its claim checked in the state it describes. At 375 px the chips wrap
// inside the view. Screenshots: tests/web/screenshots/view-tokens-<width>.png.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { shippedModel } from './lib/models.js';
import { LESSONS } from '../../web/lib/lessons.js';

const playground = usePlayground();
let ap, english, grammar;
beforeAll(async () => {
  ap = await load();
  english = await ap.openModel(shippedModel('english'));
  grammar = ap.loadModel(shippedModel('grammar'));
}, 120_000);
afterAll(() => {
  english?.dispose();
  grammar?.dispose();
});

// GPT-2's bytes_to_unicode, inverted: the printable bytes stand for themselves, the other 68 take
// the characters from U+0100 on, in byte order.
const BYTE_OF = (() => {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const map = new Map();
  let next = 0x100;
  for (let b = 0; b < 256; b++) map.set(String.fromCodePoint(printable(b) ? b : next++), b);
  return map;
})();
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
const utf8 = (s) => new TextEncoder().encode(s);

/** The bytes a vocabulary entry of the English tokenizer stands for. */
const bytesOfId = (id) => [...english.vocab[id]].map((ch) => BYTE_OF.get(ch));

/** What the view shows now: its chips (English and grammar rows) and its sentences. */
const readView = (page) =>
  page.evaluate(() => {
    const w = document.querySelector('ap-tokens');
    const root = w.shadowRoot;
    const chips = (sel) =>
      [...root.querySelectorAll(`${sel} > li`)].map((li) => ({
        id: Number(li.dataset.id),
        bytes: li.dataset.bytes ?? null,
        whole: li.dataset.whole ?? null,
        word: li.classList.contains('word'),
        unknown: li.classList.contains('unknown'),
        piece: li.querySelector('.piece').textContent,
        of: li.querySelector('.of')?.textContent ?? null,
      }));
    const text = (sel) => root.querySelector(sel)?.textContent ?? '';
    return {
      text: w.dataset.text,
      error: w.dataset.error ?? null,
      english: chips('ol.english'),
      grammar: chips('ol.grammar'),
      lead: text('.lead'),
      stats: text('.tk-stats'),
      words: text('.tk-words'),
      bytes: text('.tk-bytes'),
      compare: text('.tk-compare'),
      unknown: w.dataset.unknown,
    };
  });

/** Waits until ap-tokens has drawn `text` (its ids on it), and returns what it shows. */
async function viewOf(page, text) {
  await page.locator('ap-tokens').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (t) => {
      const w = document.querySelector('ap-tokens');
      return w?.dataset.text === t && w.dataset.ids !== undefined;
    },
    text,
    { timeout: 60_000 },
  );
  return readView(page);
}

/** The chips that stand for the bytes of character `ch` of `text` (the view's "of" label says which). */
const chipsOf = (view, ch) => view.english.filter((c) => c.whole === 'false' && c.of === `of ${ch}`);

describe('tokens: text becomes byte-level BPE tokens on the English model', () => {
  test('typed text with an emoji and accented words: the chips are the tokenizer ids, with their bytes', async () => {
    const text = 'The café in Zürich was full 😀 today.';
    const { page, errors } = await playground.open('/#concept=tokens', { viewport: { width: 1366, height: 900 } });
    await expect.poll(() => page.evaluate(() => document.body.dataset.chapter)).toBe('B');
    // The first view of chapter B, before embed.
    expect(
      await page.evaluate(() =>
        [...document.querySelectorAll('section.chapter[data-chapter="B"] [data-concept]')].map(
          (n) => n.dataset.concept,
        ),
      ),
    ).toEqual(expect.arrayContaining(['tokens', 'embed']));
    expect(
      await page.evaluate(
        () => document.querySelector('section.chapter[data-chapter="B"] [data-concept]').dataset.concept,
      ),
    ).toBe('tokens');
    await page.locator('#text').fill(text);
    const view = await viewOf(page, text);
    expect(view.error).toBe(null);

    const enc = english.tokenizer.encode(text);
    const ids = Array.from(enc.ids);
    expect(enc.unknown).toEqual([]);
    expect(view.english.map((c) => c.id)).toEqual(ids);
    expect(view.unknown).toBe('0');
    // Each chip's bytes are its vocabulary entry's; together they are the text's UTF-8 bytes.
    view.english.forEach((c, i) => expect(c.bytes, `chip ${i}`).toBe(hex(bytesOfId(ids[i]))));
    expect(view.english.flatMap((c) => c.bytes.split(' '))).toEqual(hex(utf8(text)).split(' '));
    // A piece that is not a whole character shows its bytes in hex; a whole one shows its text.
    for (const c of view.english) {
      const bytes = Uint8Array.from(c.bytes.split(' '), (h) => parseInt(h, 16));
      let whole = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        whole = false;
      }
      expect(c.whole).toBe(String(whole));
      if (whole) expect(c.piece.replace(/^␣/, ' ')).toBe(new TextDecoder().decode(bytes));
      else expect(c.piece).toBe(c.bytes);
    }
    // The emoji is four byte tokens, F0 9F 98 80; é and ü two each.
    expect(chipsOf(view, '😀').map((c) => c.bytes)).toEqual(['F0', '9F', '98', '80']);
    expect(chipsOf(view, 'é').map((c) => c.bytes)).toEqual(['C3', 'A9']);
    expect(chipsOf(view, 'ü').map((c) => c.bytes)).toEqual(['C3', 'BC']);

    // The sentences' numbers, counted here.
    expect(view.stats).toBe(`${[...text].length} characters → ${ids.length} tokens (${utf8(text).length} bytes)`);
    expect(view.lead).toContain(`a fixed list of ${english.config.vocabSize} `);
    expect(english.config.vocabSize).toBe(english.vocab.length);
    expect(view.lead).toContain('the Brown corpus');
    // Whole words: a chip that is exactly a word of the text (with the space before it, if any).
    const words = [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((m) => m[0]);
    const whole = view.english.filter((c) => c.whole === 'true' && words.includes(c.piece.replace(/^␣/, '')));
    expect(view.english.filter((c) => c.word).map((c) => c.piece)).toEqual(whole.map((c) => c.piece));
    expect(view.words).toMatch(new RegExp(`^${whole.length} of the ${ids.length} tokens are whole words`));
    expect(view.bytes).toContain('😀 = F0 9F 98 80 (4 tokens)');

    // The grammar model's word tokenizer on the same text: its <unk> count, from the core.
    const g = grammar.tokenizer.encode(text);
    expect(g.unknown.length).toBeGreaterThan(0);
    expect(view.grammar.map((c) => c.id)).toEqual(Array.from(g.ids));
    expect(view.grammar.filter((c) => c.unknown).length).toBe(g.unknown.length);
    const { pad, unk, bos, eos, mask } = grammar.specialTokens;
    const specials = new Set([pad, unk, bos, eos, mask].filter((id) => id >= 0));
    const listed = grammar.vocab.filter((_, id) => !specials.has(id)).length;
    expect(view.compare).toContain(
      `a fixed list of ${grammar.vocab.length}: ${listed} words and ${specials.size} special tokens`,
    );
    expect(view.compare).toMatch(new RegExp(`${g.unknown.length} of its ${g.ids.length} tokens (is|are) <unk>`));
    expect(view.compare).toContain(`The English tokenizer above: 0 of ${ids.length} unknown`);
    await playground.screenshot(page, 'view-tokens-1366');
    expect(errors).toEqual([]);
  }, 120_000);

  test('each "try this" prompt of the lesson says what the view then shows', async () => {
    const tries = LESSONS.B.extras.tokens;
    expect(tries.length).toBe(4);
    const { page, errors } = await playground.open('/#chapter=B', { viewport: { width: 1366, height: 900 } });
    const open = async (i) => {
      await page.locator('aside.try[data-for="tokens"] button').nth(i).click();
      const view = await viewOf(page, tries[i].patch.text);
      expect(view.english.map((c) => c.id)).toEqual(Array.from(english.tokenizer.encode(tries[i].patch.text).ids));
      return view;
    };

    // 1. "The café was full 😀": the emoji is its four bytes F0 9F 98 80, one token each; é two (C3 A9);
    // nothing unknown, while the word tokenizer writes <unk>.
    let v = await open(0);
    expect(tries[0].try).toMatch(/F0 9F 98 80.*C3 A9/);
    expect(chipsOf(v, '😀').map((c) => c.bytes)).toEqual(['F0', '9F', '98', '80']);
    expect(chipsOf(v, 'é').map((c) => c.bytes)).toEqual(['C3', 'A9']);
    expect(v.unknown).toBe('0');
    expect(v.grammar.some((c) => c.unknown && c.piece === '<unk>')).toBe(true);

    // 2. "Привет, мир": every Cyrillic letter is two byte tokens.
    v = await open(1);
    const letters = [...tries[1].patch.text].filter((ch) => /\p{Script=Cyrillic}/u.test(ch));
    expect(letters.length).toBe(9);
    for (const ch of new Set(letters)) {
      const n = letters.filter((x) => x === ch).length;
      expect(chipsOf(v, ch).length, ch).toBe(2 * n);
      expect(utf8(ch).length).toBe(2);
    }
    expect(v.english.filter((c) => c.whole === 'false').length).toBe(2 * letters.length);
    expect(v.unknown).toBe('0');

    // 3. "the cat saw antidisestablishmentarianism": cat and saw are whole words; the rare word is
    // cut into several pieces, starting ant·id·is·est.
    v = await open(2);
    expect(v.english.filter((c) => c.word).map((c) => c.piece)).toEqual(expect.arrayContaining(['␣cat', '␣saw']));
    const start = v.english.findIndex((c) => c.piece === '␣ant');
    expect(start).toBeGreaterThan(0);
    expect(v.english.slice(start, start + 4).map((c) => c.piece)).toEqual(['␣ant', 'id', 'is', 'est']);
    expect(v.english.length - start).toBeGreaterThan(4);
    expect(v.english.slice(start).some((c) => c.word)).toBe(false);
    expect(tries[2].try).toContain('ant·id·is·est');

    // 4. "the cat saw the dog": "the" and " the" are different tokens.
    v = await open(3);
    const the = v.english.filter((c) => c.piece.replace(/^␣/, '') === 'the');
    expect(the.map((c) => c.piece)).toEqual(['the', '␣the']);
    expect(the[0].id).not.toBe(the[1].id);
    expect(errors).toEqual([]);
  }, 180_000);

  test('at 375 px wide the chips wrap inside the view', async () => {
    const text = 'My grandmother baked cookies for the whole neighborhood 😀 in Zürich.';
    const { page, errors } = await playground.open(`/?text=${encodeURIComponent(text)}#concept=tokens`, {
      viewport: { width: 375, height: 812 },
    });
    await viewOf(page, text);
    const box = await page.evaluate(() => {
      const w = document.querySelector('ap-tokens');
      const row = w.shadowRoot.querySelector('ol.english');
      const r = row.getBoundingClientRect();
      const chips = [...row.children].map((li) => li.getBoundingClientRect());
      return {
        width: r.width,
        scroll: row.scrollWidth,
        client: row.clientWidth,
        lines: new Set(chips.map((c) => Math.round(c.top))).size,
        outside: chips.filter((c) => c.right > r.right + 0.5 || c.left < r.left - 0.5).length,
        page: document.documentElement.scrollWidth,
      };
    });
    expect(box.scroll).toBeLessThanOrEqual(box.client);
    expect(box.outside).toBe(0);
    expect(box.lines).toBeGreaterThan(2);
    expect(box.page).toBeLessThanOrEqual(375);
    await page.locator('ap-tokens').screenshot({ path: join(SCREENSHOT_DIR, 'view-tokens-375.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});
