// Issue 23, a second reader's list: every sentence on the page is true and every view says what it
// shows. Each check below failed on the page before its fix.
// 1. Heads re-sliced by the heads switch (8 on the 4-head English model) are said to be re-sliced,
//    from the model file's head count, in every view that shows per-head results; the heads view
//    names no role measured for the trained heads on them.
// 2. A notes question that does not read the page's text does not show the text's error.
// 3. BERT's guesses at [MASK] are BPE pieces: one line says so, and what each makes of the word.
// 4. A prompt that ends inside a word (" m" + "at"): the generating views say the model continues
//    the last piece, not the word.
// 5. No view lists the same notes example twice.
// 6. RoPE says which weights it runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import tk from 'tokenizers';
import { describe, expect, test } from 'vitest';
import { ROOT, usePlayground } from './harness.js';
import { readModelHeader } from '../../web/vite-model-headers.js';
import { tokenizerJsonOf } from '../tools/lib/english-data.mjs';
import { PARAGRAPH } from '../tools/lib/english-sentences.mjs';

const playground = usePlayground();
const VIEWPORT = { viewport: { width: 1366, height: 900 } };
// What the English decoder's file says it is (independent of the page: read here from its header).
const ENGLISH = readModelHeader(join(ROOT, 'web/models/english.safetensors')).config;
// Hugging Face's tokenizer on the English models' tokenizer.json (the MLM's is the decoder's).
const hfTokenizer = () =>
  tk.Tokenizer.fromString(
    JSON.stringify(tokenizerJsonOf(new Uint8Array(readFileSync(join(ROOT, 'web/models/english.safetensors'))))),
  );
// A byte-level BPE token as text: Ġ is the space.
const pieceText = (t) => t.replace(/Ġ/g, ' ');

// Waits until `tag` has drawn (its first element of that tag, scrolled into view) and returns what it says.
async function drawn(page, tag, { error = false } = {}) {
  const w = page.locator(tag).first();
  await w.scrollIntoViewIfNeeded();
  await page.waitForFunction(
    ([t, e]) => {
      const v = document.querySelector(t);
      return v?.dataset.rendered && !!v.dataset.error === e;
    },
    [tag, error],
    { timeout: 60_000 },
  );
  return w;
}

const visibleText = (w, selector) =>
  w.evaluate((el, s) => {
    const n = el.shadowRoot.querySelector(s);
    return n && !n.hidden && n.offsetParent !== null ? n.textContent : null;
  }, selector);

describe('1. re-sliced heads', () => {
  test('heads = 8 on the 4-head English model: each per-head view says so, from the file; the heads view names no measured role', async () => {
    expect(ENGLISH.n_heads).toBe(4); // the case the reader found: a 4-head model cut into 8
    const trained = ENGLISH.n_heads,
      d = ENGLISH.d_model,
      now = 8;
    const { page, errors } = await playground.open(`/?heads=${now}#chapter=B`, VIEWPORT);
    const line = new RegExp(
      `trained with ${trained} heads of d_k = ${d / trained}\\. The heads switch cuts its learned W_Q, W_K and W_V into ${now} slices of ${d / now} columns`,
    );
    // Chapter B: the views that show one head's numbers say it; those that show no head do not.
    for (const tag of ['ap-scores', 'ap-scale', 'ap-softmax', 'ap-weighted-sum', 'ap-general-form']) {
      const w = await drawn(page, tag);
      expect(await w.getAttribute('data-resliced'), tag).toBe(`${trained}:${now}`);
      expect(await visibleText(w, '.resliced-note'), tag).toMatch(line);
    }
    for (const tag of ['ap-embed', 'ap-qkv']) {
      const w = await drawn(page, tag);
      expect(await visibleText(w, '.resliced-note'), tag).toBe(null);
    }
    // The scores view no longer says the model "has" 8 heads.
    const scores = page.locator('ap-scores');
    const headNote = await visibleText(scores, '.head-note');
    expect(headNote).not.toMatch(/This model has h = 8/);
    expect(headNote).toMatch(
      new RegExp(`trained with ${trained} heads; the heads switch cuts it into h = ${now} re-sliced heads`),
    );

    // Chapter C: the heads view says it, and names no role measured on the trained heads.
    await page.evaluate(() => (location.hash = '#chapter=C'));
    for (const tag of ['ap-heads', 'ap-reshape', 'ap-concat-wo']) {
      const w = await drawn(page, tag);
      expect(await visibleText(w, '.resliced-note'), tag).toMatch(line);
    }
    const heads = page.locator('ap-heads');
    const cards = await heads.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('.head-card')].map((c) => ({
        measured: !!c.querySelector('.measured'),
        text: c.textContent,
      })),
    );
    expect(cards).toHaveLength(now);
    expect(cards.filter((c) => c.measured)).toEqual([]);
    expect(await visibleText(heads, '.roles-line')).toBe(null);
    expect(await visibleText(heads, '.layer-note')).toMatch(
      new RegExp(`${now} re-sliced heads.*learned ${trained} heads, not these ${now}`),
    );
    expect(errors).toEqual([]);
  });

  test('the model as trained (4 heads): no such line, and the heads view shows its measured roles', async () => {
    const { page, errors } = await playground.open(`/?heads=${ENGLISH.n_heads}#chapter=C`, VIEWPORT);
    const heads = await drawn(page, 'ap-heads');
    await page.waitForFunction(() =>
      document.querySelector('ap-heads').shadowRoot.querySelector('.head-card .measured'),
    );
    expect(await heads.getAttribute('data-resliced')).toBe(null);
    expect(await visibleText(heads, '.resliced-note')).toBe(null);
    const scores = await drawn(page, 'ap-reshape');
    expect(await visibleText(scores, '.resliced-note')).toBe(null);
    expect(errors).toEqual([]);
  });
});

describe("2. a question that does not read the text shows none of the text's errors", () => {
  test('chapter F on a text longer than the context: the causal mask view fails, the 004 question does not', async () => {
    // The English decoder reads at most max_len tokens (<|endoftext|> first): a paragraph read
    // three times is longer.
    const long = `${PARAGRAPH} ${PARAGRAPH} ${PARAGRAPH}`;
    const hf = hfTokenizer();
    expect((await hf.encode(long)).getIds().length).toBeGreaterThan(ENGLISH.max_len);
    const { page, errors } = await playground.open(`/?text=${encodeURIComponent(long)}#chapter=F`, VIEWPORT);
    const mask = await drawn(page, 'ap-causal-mask', { error: true });
    expect(await mask.getAttribute('data-error')).toMatch(
      new RegExp(`tokens but the model's max length is ${ENGLISH.max_len}`),
    );
    const quiz = await drawn(page, 'ap-quiz[questions="predict-causal"]');
    expect(await quiz.getAttribute('data-error')).toBe(null);
    expect(
      await quiz.evaluate((w) => {
        const card = w.shadowRoot.querySelector('[data-question="predict-causal"]');
        return card && card.offsetParent !== null;
      }),
    ).toBe(true);
    // The question that does read the text (chapter B, predict-live) still says the text's error.
    await page.evaluate(() => (location.hash = '#chapter=B'));
    const live = await drawn(page, 'ap-quiz[questions="predict-live"]', { error: true });
    expect(await live.getAttribute('data-error')).toMatch(
      new RegExp(`tokens but the model's max length is ${ENGLISH.max_len}`),
    );
    expect(errors).toEqual([]);
    // And among all the notes' questions (the quiz on its own, every question), the error is the
    // live card's alone.
    const alone = await playground.openAlone('ap-quiz', { text: long });
    await alone.page.waitForFunction(() =>
      document.querySelector('ap-quiz').shadowRoot.querySelector('[data-question="predict-live"][data-error]'),
    );
    const state = await alone.widget.evaluate((w) => ({
      error: w.dataset.error ?? null,
      live: w.shadowRoot.querySelector('[data-question="predict-live"]').dataset.error,
      others: [...w.shadowRoot.querySelectorAll('[data-question]')]
        .filter((c) => c.dataset.question !== 'predict-live' && c.offsetParent !== null)
        .map((c) => [c.dataset.question, c.dataset.error ?? null]),
    }));
    expect(state.error).toBe(null);
    expect(state.live).toMatch(new RegExp(`tokens but the model's max length is ${ENGLISH.max_len}`));
    expect(state.others.map(([q]) => q)).toEqual(
      expect.arrayContaining(['thinking-machines', 'transformers-vs-rnns', 'dimensions', 'predict-causal']),
    );
    expect(state.others.filter(([, e]) => e)).toEqual([]);
    expect(alone.errors).toEqual([]);
  }, 180_000);
});

// The word that position `at` of `ids` makes with `id` in its place, by Hugging Face's decoder: the
// non-space characters around that token's text.
async function wordWith(hf, ids, at, id) {
  const seq = ids.map((x, i) => (i === at ? id : x));
  const text = await hf.decode(seq, false);
  let a = (await hf.decode(seq.slice(0, at), false)).length,
    b = (await hf.decode(seq.slice(0, at + 1), false)).length;
  while (a < b && /\s/.test(text[a])) a++;
  while (a > 0 && !/\s/.test(text[a - 1])) a--;
  while (b < text.length && !/\s/.test(text[b])) b++;
  return { word: text.slice(a, b), spaced: (a > 0 ? ' ' : '') + text.slice(a, b) };
}

// A quoted piece or word: in straight quotes, or in curly ones when it holds a straight quote (item 14).
const q = (t) => (t.includes('"') ? `\u201c${t}\u201d` : `"${t}"`);

describe("3. BERT's guesses are pieces", () => {
  test('the line names the hidden piece, what each guess makes of the word, and which are words the vocabulary holds', async () => {
    const hf = hfTokenizer();
    const text = 'the cat sat on the mat';
    const ids = (await hf.encode(text)).getIds();
    const tokens = (await hf.encode(text)).getTokens().map(pieceText);
    const { page, errors } = await playground.open('/#chapter=F', VIEWPORT);
    const w = await drawn(page, 'ap-bert-gpt');
    const check = async (at) => {
      await page.waitForFunction((m) => document.querySelector('ap-bert-gpt').dataset.mask === String(m), at);
      const line = await visibleText(w, '[data-model="bert"] .pieces-line');
      const top = JSON.parse(await w.getAttribute('data-bert-top')).map(([id]) => id);
      expect(top).toHaveLength(6);
      const wholeWord = await wordWith(hf, ids, at, ids[at]);
      return { line, top, wholeWord };
    };
    // The default: " sat", a whole word.
    let { line, top } = await check(2);
    expect(line).toContain(`[MASK] hides one piece, "${tokens[2]}": the whole word "sat".`);
    expect(line).toContain('BERT guesses one piece of its 4,096-piece vocabulary, not a word');
    const whole = [];
    for (const id of top) {
      const made = await wordWith(hf, ids, 2, id);
      expect(line).toContain(`${q(pieceText(hf.idToToken(id)))} → ${q(made.word)}`);
      if (/^\p{L}+$/u.test(made.word) && (await hf.encode(made.spaced)).getIds().length === 1) whole.push(made.word);
    }
    expect(await w.locator('[data-model="bert"] .pieces-line').getAttribute('data-whole')).toBe(whole.join('|'));
    if (!whole.length) expect(line).toContain('none of the top 6 makes a word the vocabulary holds whole');
    // " m" of "mat" (" m" + "at"): the first of the two pieces of that word.
    expect(tokens.slice(-2)).toEqual([' m', 'at']);
    await w.evaluate((el) => el.setAttribute('mask', '5'));
    ({ line, top } = await check(5));
    expect(line).toContain('[MASK] hides one piece, " m": piece 1 of the 2 that make "mat".');
    for (const id of top)
      expect(line).toContain(`${q(pieceText(hf.idToToken(id)))} → ${q((await wordWith(hf, ids, 5, id)).word)}`);
    expect(errors).toEqual([]);
  });
});

describe('4. a prompt that ends inside a word', () => {
  test('decoding, sampling and the KV cache name the pieces of "mat" and what the first token makes of it', async () => {
    const hf = hfTokenizer();
    const tokens = (await hf.encode('the cat sat on the mat')).getTokens().map(pieceText);
    const [a, b] = tokens.slice(-2);
    expect(a + b).toBe(' mat');
    const { page, errors } = await playground.open('/#chapter=F', VIEWPORT);
    for (const tag of ['ap-decoding', 'ap-sampling', 'ap-kv-cache']) {
      const w = await drawn(page, tag);
      const line = await visibleText(w, '.split-note');
      expect(line, tag).toContain(
        `The prompt's last word, "mat", is 2 pieces of the tokenizer's vocabulary: "${a}" + "${b}". The model reads pieces, not words: it continues the last piece, "${b}", not the word "mat"`,
      );
      // Its first token, as the view shows it (the step slider at 1): continued from "at", or after it.
      await page.waitForFunction((t) => document.querySelector(t).dataset.step === '0', tag);
      const first = await w.evaluate((el) => el.shadowRoot.querySelector('.gen-strip .tok.new').textContent);
      const joined = await hf.decode(
        [...(await hf.encode('the cat sat on the mat')).getIds().slice(-2), hf.tokenToId(first.replace(/ /g, 'Ġ'))],
        false,
      );
      if (/^\p{L}/u.test(first))
        expect(line, tag).toContain(`Its first choice, "${first}", goes on from there: "${joined.trim()}".`);
      else expect(line, tag).toContain(`Its first choice, "${first}", starts after the word.`);
    }
    // A prompt that ends with a whole piece (" sat" is one): no such line.
    const dec = page.locator('ap-decoding');
    expect((await hf.encode('the cat sat')).getTokens().map(pieceText).at(-1)).toBe(' sat');
    await dec.evaluate((el) => {
      const input = el.shadowRoot.querySelector('input[aria-label="Prompt"]');
      input.value = 'the cat sat';
      input.dispatchEvent(new Event('change'));
    });
    await page.waitForFunction(() => !document.querySelector('ap-decoding').dataset.split);
    expect(await visibleText(dec, '.split-note')).toBe(null);
    expect(errors).toEqual([]);
  });
});

describe('5. no view lists a notes example twice', () => {
  test('the preset buttons of every view of chapters B, D and F are all different', async () => {
    const { page, errors } = await playground.open('/#chapter=B', VIEWPORT);
    const seen = [];
    for (const chapter of ['B', 'D', 'F']) {
      await page.evaluate((c) => (location.hash = `#chapter=${c}`), chapter);
      await page.waitForFunction((c) => document.querySelector('section.chapter')?.dataset.chapter === c, chapter);
      const tags = await page.evaluate(() =>
        [...document.querySelectorAll('section.chapter [data-concept]')].map((w) => w.localName),
      );
      for (const tag of [...new Set(tags)].filter((t) => t !== 'ap-quiz')) {
        const w = page.locator(tag).first();
        await w.scrollIntoViewIfNeeded();
        await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60_000 });
        const labels = await w.evaluate((el) =>
          [...el.shadowRoot.querySelectorAll('.presets button[data-preset]')].map((b) => b.textContent),
        );
        if (labels.length) seen.push(tag);
        expect(new Set(labels).size, `${tag}: ${labels.join(' | ')}`).toBe(labels.length);
      }
    }
    // The views the reader saw it in are among those checked.
    expect(seen).toEqual(expect.arrayContaining(['ap-scores', 'ap-softmax', 'ap-weighted-sum']));
    expect(errors).toEqual([]);
  }, 180_000);
});

describe('6. RoPE says which weights it runs', () => {
  test("the model, its seed and sizes, and the layer and head shown, from the page's state", async () => {
    for (const [query, seed, d, head] of [
      ['', 1, 16, 0],
      ['?seed=5&dmodel=32&head=1', 5, 32, 1],
    ]) {
      const { page, errors } = await playground.open(`/${query}#chapter=D`, VIEWPORT);
      const w = await drawn(page, 'ap-rope');
      const line = await visibleText(w, '.weights-line');
      expect(line).toContain(
        `Weights: a model made for this view, not the page's model ("english"), random (seed ${seed})`,
      );
      expect(line).toContain(
        `a decoder of 1 layer × 2 heads, d_model ${d} (d_k = ${d / 2}), built with RoPE positions`,
      );
      expect(line).toContain(`The maps show layer 0, head ${head} of 2`);
      // The maps are titled by the same head.
      const titles = await w.evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('ap-heatmap')].map((h) => h.matrix?.title),
      );
      expect(titles).toContain(`scores with RoPE (head ${head})`);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});

// 7. A switch that runs the trained model in a way it was never trained (the block view's
//    "post-norm (the notes)" button, the causal-mask view's encoder button) was said only at the
//    top of the page; the views below showed the numbers as if the model had learned them. Every
//    view now says which switches differ from the model file's own config (read here from its header).
describe('7. switches the model was never trained with are said in every view', () => {
  test('post-norm and the causal mask off on the pre-norm decoder: the block view and softmax say so; as trained, no view does', async () => {
    expect(ENGLISH).toMatchObject({ norm: 'pre', causal: true });
    const { page, errors } = await playground.open('/?norm=post&causal=off#chapter=E', VIEWPORT);
    await drawn(page, 'ap-block');
    const said = await page
      .locator('ap-block')
      .evaluate((w) => w.shadowRoot.querySelector('.untrained-note:not([hidden])')?.textContent || '');
    expect(said).toMatch(/^Not as trained: post-norm \(trained pre-norm\); the causal mask off \(trained with it\)\./);
    // Another chapter's view on the same state says the same.
    await page.evaluate(() => (location.hash = '#chapter=B'));
    await drawn(page, 'ap-softmax');
    expect(await page.locator('ap-softmax').evaluate((w) => w.dataset.untrained)).toBe(
      'post-norm (trained pre-norm); the causal mask off (trained with it)',
    );
    // Back to the model as trained: no view says it.
    const { page: page2 } = await playground.open('/#chapter=E', VIEWPORT);
    await drawn(page2, 'ap-block');
    expect(await page2.locator('ap-block').evaluate((w) => w.dataset.untrained ?? null)).toBe(null);
    expect(await page2.locator('ap-block').evaluate((w) => w.shadowRoot.querySelector('.untrained-note').hidden)).toBe(
      true,
    );
    expect(errors).toEqual([]);
  });
});

// 8. A text past the model's context: the tokens view said "every view below has 309 rows" while
//    every view below showed the core's length error. It now says they cannot, and by how much.
describe('8. the tokens view on a text longer than the model reads', () => {
  test('three copies of a paragraph: the rows the views would need, the model maximum from its file, the tokens to cut', async () => {
    const text = [PARAGRAPH, PARAGRAPH, PARAGRAPH].join(' ');
    const count = (await hfTokenizer().encode(text)).getIds().length; // Hugging Face's own count
    const rows = count + 1;
    expect(rows).toBeGreaterThan(ENGLISH.max_len);
    const { widget: w, errors } = await playground.openAlone('ap-tokens', { text });
    await expect.poll(() => w.evaluate((e) => e.dataset.overLimit ?? ''), { timeout: 60_000 }).not.toBe('');
    const said = await w.evaluate((e) => e.shadowRoot.textContent);
    expect(said).toContain(
      `the views below would have ${count} + 1 = ${rows} rows, but this model reads at most ${ENGLISH.max_len} tokens`,
    );
    expect(said).toContain(`Shorten the text by ${rows - ENGLISH.max_len} tokens`);
    expect(said).not.toContain('every view below has');
    expect(errors).toEqual([]);
  });
});

// 9. The FFN view's "why" part runs the masked LM, which reads at most 32 tokens of a word list:
//    a long text of known words was said to have words the model "does not know". The reason is
//    now the one that holds: the limit from the model's file, or the words it lacks.
describe("9. ffn's why: the reason the masked LM cannot read the text", () => {
  const MLM = readModelHeader(join(ROOT, 'web/models/mlm.safetensors')).config;
  const said = async (text) => {
    const { page, errors } = await playground.open(`/?text=${encodeURIComponent(text)}#chapter=E`, VIEWPORT);
    const w = await drawn(page, 'ap-ffn');
    await expect
      .poll(() => w.evaluate((e) => e.shadowRoot.querySelector('[data-why]')?.textContent ?? ''), { timeout: 30_000 })
      .toMatch(/^Sentence: /);
    const line = await w.evaluate((e) => e.shadowRoot.querySelector('[data-why]').textContent);
    expect(errors).toEqual([]);
    return line;
  };
  test('too long (known words): the limit and the count; an unknown word: that word; a text it reads: no reason', async () => {
    const long = 'the cat near the dogs sleeps . '.repeat(5).trim();
    const words = long.split(/\s+/).length; // a word tokenizer: one token per word or mark
    expect(words).toBeGreaterThan(MLM.max_len);
    expect(await said(long)).toContain(`it reads at most ${MLM.max_len} tokens and your text is ${words};`);
    expect(await said('the zebra near the dogs sleeps .')).toContain(
      `its word list of ${MLM.vocab_size} tokens has no "zebra";`,
    );
    expect(await said('the dogs near the cat sleep .')).toBe('Sentence: "the dogs near the cat sleep .".');
  });
});

// 10. The sinusoidal view says the English model's positions are "a table it learned in training
//     (the learned positions view shows it)", but that view opened on the dates model's table. It
//     now opens on the page's model when that model has one.
describe("10. learned positions open on the page's model", () => {
  test("english: the table has the file's max_len rows and d_model columns; the sinusoidal view points to it", async () => {
    const { page, errors } = await playground.open('/#chapter=D', VIEWPORT);
    const sin = await drawn(page, 'ap-sinusoidal');
    expect(await sin.evaluate((e) => e.shadowRoot.textContent)).toContain('the learned positions view shows it');
    const w = await drawn(page, 'ap-learned-pos');
    expect(await w.evaluate((e) => e.shadowRoot.querySelector('select').value)).toBe('trained:english');
    expect(await w.evaluate((e) => e.dataset.rows)).toBe(String(ENGLISH.max_len));
    expect(await w.evaluate((e) => e.shadowRoot.textContent)).toContain(
      `(L = ${ENGLISH.max_len} positions, d = ${ENGLISH.d_model})`,
    );
    // Its 256 rows in small cells keep what every other map has: the title, the PNG / CSV toolbar,
    // the colour legend and the table of numbers (the compact form had dropped all four).
    const map = await w.evaluate((e) => {
      const hm = e.shadowRoot.querySelector('ap-heatmap[data-name="pos_emb"]');
      const shown = (sel) => {
        const n = hm.shadowRoot.querySelector(sel);
        return !!n && getComputedStyle(n).display !== 'none' && n.getBoundingClientRect().height > 0;
      };
      return {
        head: shown('.hm-head'),
        legend: shown('.hm-legend'),
        table: shown('details'),
        buttons: [...hm.shadowRoot.querySelectorAll('.hm-head button')].map((b) => b.textContent.trim()),
        height: hm.getBoundingClientRect().height,
        rows: Number(hm.dataset.rows),
      };
    });
    expect(map).toMatchObject({ head: true, legend: true, table: true, rows: ENGLISH.max_len });
    expect(map.buttons.join(' ')).toMatch(/PNG[\s\S]*CSV/);
    expect(map.height).toBeLessThan(4 * ENGLISH.max_len + 400); // 4-px rows, not the 12-px rows of 3,000+ px
    expect(errors).toEqual([]);
  });
});

// 11. Permutation and relative positions run a random word-level model (the English model's
//     learned positions cannot be switched off); its word list lacks most names and numbers, which
//     it reads as <unk>. The rows were labelled with the typed words and nothing said so: a student
//     saw different words with the same output vector. The line says which, and the rows are marked.
describe('11. words a random word-level model reads as <unk> are said and marked', () => {
  test('permutation: the marked rows are the ones the line counts, and their outputs are one vector', async () => {
    const text = 'In 1969, Neil Armstrong and Buzz Aldrin landed Apollo 11 on the Moon at 20:17 UTC.';
    const { page, errors } = await playground.open(`/?text=${encodeURIComponent(text)}#chapter=D`, VIEWPORT);
    const w = await drawn(page, 'ap-permutation');
    const r = await w.evaluate((e) => {
      const hm = e.shadowRoot.querySelector('ap-heatmap[data-name="z"]');
      const m = hm._m;
      return {
        line: e.shadowRoot.querySelector('.cut').textContent,
        rows: m.rows,
        cols: m.cols,
        values: [...m.values],
        labels: m.rowLabels,
        flagged: [...m.rowFlags],
        shown: [...hm.shadowRoot.querySelectorAll('.hm-label.unknown')].map((n) => n.textContent),
      };
    });
    const k = r.flagged.length;
    expect(k).toBeGreaterThan(1);
    expect(r.line).toMatch(new RegExp(`^${k} of these ${r.rows} tokens are not in this model's word list of \\d+`));
    expect(r.shown).toEqual(r.flagged.map((i) => `${r.labels[i]}?`));
    // Known words of the sentence are not flagged.
    for (const word of ['in', 'and', 'on', 'the']) expect(r.flagged).not.toContain(r.labels.indexOf(word));
    // One shared vector in, positions off: the flagged rows' outputs are equal (to float rounding).
    const row = (i) => r.values.slice(i * r.cols, (i + 1) * r.cols);
    const first = row(r.flagged[0]);
    for (const i of r.flagged.slice(1)) row(i).forEach((v, c) => expect(Math.abs(v - first[c])).toBeLessThan(1e-4));
    expect(errors).toEqual([]);
  });
});

// 12. The scale view's "your text" line read the start token's score on itself: the same number
//     for every text. It now reads the last token's row of the student's text.
describe("12. scale: the score it divides is one of the student's text", () => {
  test("two texts: the line names each text's last token and gives different scores, each divided by √d_k from the file", async () => {
    const dK = ENGLISH.d_model / ENGLISH.n_heads;
    const seen = [];
    for (const [text, last] of [
      ['Did she give it to him before the rain started?', '?'],
      ['Cats sleep all day long', 'long'],
    ]) {
      const { page, errors } = await playground.open(`/?text=${encodeURIComponent(text)}#chapter=B`, VIEWPORT);
      const w = await drawn(page, 'ap-scale');
      const p = await w.evaluate((e) => {
        const n = e.shadowRoot.querySelector('.panel.ratio');
        return { text: n.textContent, ratio: Number(n.dataset.sqrtDk) };
      });
      expect(p.text).toMatch(
        new RegExp(`^d_k = ${dK}: the score of "\\s?${last.replace('?', '\\?')}" on "[^"]+", s = `),
      );
      expect(p.ratio).toBeCloseTo(Math.sqrt(dK), 3);
      const [, s, scaledS] = p.text.match(/s = (−?[\d.]+), becomes s \/ √d_k = (−?[\d.]+)/);
      const num = (x) => Number(x.replace('−', '-'));
      expect(num(scaledS)).toBeCloseTo(num(s) / Math.sqrt(dK), 2);
      seen.push(num(s));
      expect(errors).toEqual([]);
    }
    expect(seen[0]).not.toBe(seen[1]);
  });
});

// 13. Before Train, the induction view framed another task's "held-out exact match" over 2,000
//     steps while its run has 1,000 and its text points to "the grey dashed line of the loss plot".
describe('13. induction before Train: its own loss plot, over its own steps, with the ln 26 line', () => {
  test('the frame is the loss plot to INDUCTION_RUN.totalSteps with ln 26 as its reference line', async () => {
    const { INDUCTION_RUN } = await import('../../web/lib/induction.js');
    const { page, errors } = await playground.open('/#chapter=C', VIEWPORT);
    const w = await drawn(page, 'ap-induction');
    const said = await w.evaluate((e) => e.shadowRoot.textContent);
    expect(said).toContain('the grey dashed line of the loss plot');
    expect(said).toContain('held-out loss per letter (nats)');
    expect(said).not.toContain('exact match');
    expect(said).toContain(`${INDUCTION_RUN.totalSteps} steps`);
    const xs = await w.evaluate((e) =>
      [...e.shadowRoot.querySelectorAll('svg text')].map((t) => t.textContent).filter((t) => /^\d+$/.test(t)),
    );
    expect(xs).toContain(String(INDUCTION_RUN.totalSteps));
    expect(xs).not.toContain('2000');
    expect(errors).toEqual([]);
  });
});

// 14. A quoted text that holds quotes itself read as two quotations: bert-gpt's "who sees whom"
//     line gave "the cat said " hello " ." vs "...", decoding '" The newer, the "blong" ..."'. Such
//     a text is now quoted in curly quotes (web/lib/dom.js quote()); one without stays in straight ones.
describe('14. a text with quotes in it is quoted in curly quotes', () => {
  test('bert-gpt: the sentence and its variant, each holding a straight quote, in “ ” and nothing doubled', async () => {
    const text = 'the cat said "hello" to the dog .';
    const { page, errors } = await playground.open(`/?text=${encodeURIComponent(text)}#chapter=F`, VIEWPORT);
    const w = await drawn(page, 'ap-bert-gpt');
    const said = await w.evaluate((e) => e.shadowRoot.textContent);
    expect(said).toMatch(
      /\u201c[^\u201d]*"[^\u201d]*\u201d vs \u201c[^\u201d]*"[^\u201d]*\u201d: how much each position/,
    );
    expect(said).not.toMatch(/""/);
    const { quote } = await import('../../web/lib/dom.js');
    expect(quote('cat')).toBe('"cat"');
    expect(quote('say "hi"')).toBe('\u201csay "hi"\u201d');
    expect(errors).toEqual([]);
  });
});
