// Issue 23: every view shows what it says, in the state the student put it in.
// 1. Text the model cannot read (longer than its context, or nothing at all): the box says so as
//    the student types, each view shows the core's message in place of its drawing (which was of
//    the previous text) and keeps its own controls, and every view comes back with the next valid
//    text. Run on the grammar decoder, whose context is 32 tokens.
import { PARAGRAPH } from '../tools/lib/english-sentences.mjs';
import { describe, expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const playground = usePlayground();

// What a view shows: its error (data-error), whether the drawing is hidden, the status line's place.
const look = (w) => {
  const root = w.shadowRoot.querySelector('.widget');
  const body = root.querySelector(':scope > .body');
  const status = root.querySelector(':scope > [role="status"]');
  const cs = getComputedStyle(body);
  return {
    error: w.dataset.error ?? null,
    text: w.dataset.text ?? null,
    failed: root.classList.contains('failed'),
    drawingShown: cs.display !== 'none' && cs.visibility !== 'hidden',
    messageFirst: !!(status.compareDocumentPosition(body) & Node.DOCUMENT_POSITION_FOLLOWING),
    controlsShown: [...body.querySelectorAll('.controls')].some((c) => getComputedStyle(c).visibility === 'visible'),
  };
};

describe('1. text the model cannot read', () => {
  test('the box warns at the limit, each view shows the message in place of the old drawing, and comes back', async () => {
    const { page, errors } = await playground.open('/?model=grammar#concept=softmax', {
      viewport: { width: 1366, height: 900 },
    });
    const softmax = page.locator('ap-softmax');
    const shows = async (text) => {
      await page.locator('#text').fill(text);
      // (views draw when near the viewport: 50 token chips push it down)
      await softmax.scrollIntoViewIfNeeded();
      await page
        .waitForFunction(
          (t) => {
            const w = document.querySelector('ap-softmax');
            return w.dataset.rendered?.includes(JSON.stringify(t)) && (w.dataset.error || w.dataset.text === t);
          },
          text,
          { timeout: 20_000 },
        )
        .catch(async (e) => {
          const d = await softmax.evaluate((w) => ({ ...w.dataset }));
          throw new Error(`${e.message}\n${JSON.stringify(d)}`);
        });
      return softmax.evaluate(look);
    };
    const limit = () => page.locator('ap-controls #limit').evaluate((e) => (e.hidden ? null : e.textContent));

    const ok = await shows('the dogs near the cat sleep .');
    expect(ok).toMatchObject({ error: null, failed: false, drawingShown: true, messageFirst: false });
    expect(await limit()).toBe(null);

    // 7 x "the cat sat on the mat ." is 7 x 7 = 49 words of the grammar's vocabulary, and the model's
    // prompt starts with <bos>: 50 tokens.
    const long = 'the cat sat on the mat . '.repeat(7).trim();
    const tooLong = await shows(long);
    expect(tooLong.error).toMatch(/50 tokens.*32/);
    expect(tooLong).toMatchObject({ failed: true, drawingShown: false, messageFirst: true });
    expect(tooLong.controlsShown).toBe(true); // the notes' example buttons stay, to get back
    expect(await limit()).toMatch(/as 50 tokens; it can read at most 32/);

    const empty = await shows('');
    expect(empty.error).toMatch(/empty/);
    expect(empty).toMatchObject({ failed: true, drawingShown: false, messageFirst: true });

    const back = await shows('the dog near the cats sleeps .');
    expect(back).toMatchObject({ error: null, failed: false, drawingShown: true, messageFirst: false });
    expect(await limit()).toBe(null);
    // the drawing is of the new text: its query-row picker lists the new tokens
    const rows = await softmax.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('select option')].map((o) => o.textContent),
    );
    expect(rows.join(' ')).toMatch(/cats/);
    expect(errors).toEqual([]);
  });
});

describe('1. an empty text in chapters E and I', () => {
  // These views skipped drawing on an empty text and kept the last sentence's matrices (rmsnorm's
  // "the cat sat on the mat" rows and its mean and RMS), or went blank with no word (gqa, residual).
  test('each view that reads the text says it is empty in place of its drawing, and draws again', async () => {
    for (const [chapter, tags] of [
      ['E', ['ap-residual', 'ap-layernorm', 'ap-ffn', 'ap-block']],
      ['I', ['ap-rmsnorm', 'ap-gqa', 'ap-sliding-window']],
    ]) {
      const text = encodeURIComponent('the cat sat on the mat');
      const { page, errors } = await playground.open(`/?text=${text}#chapter=${chapter}`, {
        viewport: { width: 1366, height: 900 },
      });
      const state = async (tag, want) => {
        await page.locator(tag).scrollIntoViewIfNeeded();
        await page.waitForFunction(
          ([t, w]) => {
            const e = document.querySelector(t);
            return (
              e?.dataset.rendered?.startsWith(`[${JSON.stringify(w)}`) &&
              (w === '' ? !!e.dataset.error : !e.dataset.error)
            );
          },
          [tag, want],
          { timeout: 60_000 },
        );
        return page.locator(tag).evaluate(look);
      };
      for (const tag of tags)
        expect(await state(tag, 'the cat sat on the mat'), tag).toMatchObject({ failed: false, drawingShown: true });
      await page.locator('#text').fill('');
      for (const tag of tags) {
        const v = await state(tag, '');
        expect(v.error, tag).toMatch(/empty/);
        expect(v, tag).toMatchObject({ failed: true, drawingShown: false });
      }
      await page.locator('#text').fill('the dog ran home');
      for (const tag of tags) {
        const v = await state(tag, 'the dog ran home');
        expect(v, tag).toMatchObject({ error: null, failed: false, drawingShown: true });
      }
      expect(errors).toEqual([]);
    }
  }, 240_000);
});

// 4. Under "Sinusoidal positions", "Added to the embeddings of your text" showed the page model's
//    own position table whatever it was: the English decoder's learned one (values up to +-3.6,
//    impossible for sin and cos). Now the sum shows only for a model that adds sinusoids; otherwise
//    one line names what the model does instead.
describe('4. sinusoidal positions added to your text', () => {
  test('on the learned-position English model: a line says so, no table; on sinusoidal random weights: X = X_tok + P', async () => {
    const view = async (url) => {
      const { page, errors } = await playground.open(url, { viewport: { width: 1366, height: 900 } });
      const w = page.locator('ap-sinusoidal');
      await w.scrollIntoViewIfNeeded();
      // (the page's model may still be loading at the first drawing: wait for one of the two)
      await page.waitForFunction(() => {
        const r = document.querySelector('ap-sinusoidal')?.shadowRoot;
        return r && (!r.querySelector('.other-pos').hidden || !r.querySelector('.added-box').hidden);
      });
      const got = await w.evaluate((el) => {
        const box = el.shadowRoot.querySelector('.other-pos');
        const added = el.shadowRoot.querySelector('.added-box');
        return {
          line: box.hidden ? null : box.textContent,
          added: !added.hidden && /Added to the embeddings/.test(added.textContent),
        };
      });
      expect(errors).toEqual([]);
      return got;
    };
    const english = await view('/#concept=sinusoidal');
    expect(english.added).toBe(false);
    expect(english.line).toMatch(
      /^The page's model \(trained: english\) does not add these to your text: its positions are a table it learned/,
    );
    const random = await view('/?model=random&pos=sinusoidal#concept=sinusoidal');
    expect(random.added).toBe(true);
    expect(random.line).toBe(null);
  });
});

// 5. general-form and soft-lookup recomputed the page's head as a lookup without the decoder's
//    causal mask (<bos> -> cat 0.56), right below softmax's masked weights of the same head. Now the
//    lookup masks as the decoder does: the first query sees only itself, nothing above the diagonal.
describe('5. the lookup views keep a decoder causal', () => {
  test('general-form: the mask note, weight 0 after each query and 1 on the first; soft-lookup: masked keys say so', async () => {
    const { page, errors } = await playground.open('/#concept=general-form', {
      viewport: { width: 1366, height: 900 },
    });
    const gf = page.locator('ap-general-form');
    await gf.scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () => document.querySelector('ap-general-form')?.dataset.text === 'the cat sat on the mat',
    );
    const g = await gf.evaluate((w) => {
      const [, alpha] = w.shadowRoot.querySelectorAll('ap-heatmap');
      const { values, rows, cols } = alpha.matrix;
      const labels = alpha.matrix.rowLabels;
      return { note: !w.shadowRoot.querySelector('.mask-note').hidden, values: Array.from(values), rows, cols, labels };
    });
    expect(g.note).toBe(true);
    // the decoder reads <|endoftext|> first, then the 6 words of the text
    expect(g.labels.slice(0, 3)).toEqual(['<|endoftext|>', 'the', ' cat']);
    expect(g.values.slice(0, g.cols)).toEqual([1, ...Array(g.cols - 1).fill(0)]);
    for (let i = 0; i < g.rows; i++) {
      const row = g.values.slice(i * g.cols, (i + 1) * g.cols);
      expect(
        row.slice(i + 1).every((x) => x === 0),
        `row ${i}`,
      ).toBe(true);
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    }
    await page.evaluate(() => (location.hash = '#concept=soft-lookup')); // chapter A
    const sl = page.locator('ap-soft-lookup');
    await sl.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('ap-soft-lookup')?.dataset.rendered);
    await sl.evaluate((w) => w.setAttribute('query', '3')); // " cat": sees <|endoftext|>, "the" and itself
    await page.waitForFunction(() => document.querySelector('ap-soft-lookup')?.dataset.query === '3');
    const cells = await sl.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('.lookup-row tbody tr')].map((tr) => tr.children[1].textContent),
    );
    expect(cells).toHaveLength(g.rows);
    expect(cells.slice(3)).toEqual(Array(g.rows - 3).fill('−∞ (masked)'));
    expect(cells.slice(0, 3).every((c) => /^[-−]?\d/.test(c))).toBe(true);
    expect(await sl.evaluate((w) => w.shadowRoot.textContent)).toContain(
      `the 3 values up to " cat" (the causal mask gives the other ${g.rows - 3} weight 0)`,
    );
    expect(errors).toEqual([]);
  });
});

// 8. Heads 8 or 16 on the 4-head trained model re-slice its learned projections into heads it
//    never had; the views drew them as learned patterns with no word. The model line says so now.
describe('8. a trained model switched away from its training', () => {
  test('8 heads on the 4-head English decoder: the model line says the heads were never trained; 4 again: no such line', async () => {
    const { page, errors } = await playground.open('/?heads=8#chapter=C', { viewport: { width: 1366, height: 900 } });
    const note = () => page.locator('ap-controls .model-note').textContent();
    await expect
      .poll(note, { timeout: 30_000 })
      .toMatch(
        /^8 heads: this model was trained with 4 heads of d_k = 32\. Its learned W_Q, W_K and W_V are cut into 8 slices of 16 columns instead, heads it never had.* Trained by this project/,
      );
    await page.locator('ap-controls .switch-box').evaluate((d) => (d.open = true)); // folded on every screen
    await page.locator('ap-controls select#heads').selectOption('4');
    await expect.poll(note).not.toMatch(/heads it never had/);
    expect(errors).toEqual([]);
  });
});

// A student's second read found three more: dividing by √d_k switched off gave no line (heads and
// the mask did), the additive score ran random weights under "scores and weights from the core",
// and top-p = 1 (keep everything) left 192 of the English model's 4096 tokens out.
describe('switches and scores the page runs but the model never learned, said where they are', () => {
  test('scale off: the model line gives √32 and the factor 5.66, before what the model is', async () => {
    const { page, errors } = await playground.open('/?scale=off#chapter=B', { viewport: { width: 1366, height: 900 } });
    const note = () => page.locator('ap-controls .model-note').textContent();
    await expect
      .poll(note, { timeout: 30_000 })
      .toMatch(
        /^Division by √d_k switched off: this model was trained dividing its scores by √32; undivided, they are 5\.66 times larger/,
      );
    await page.locator('ap-controls .switch-box').evaluate((d) => (d.open = true)); // folded on every screen
    await page.locator('ap-controls input#scale').check();
    await expect.poll(note).not.toMatch(/switched off/);
    expect(errors).toEqual([]);
  });

  test('the additive score says its W_q, W_k and v are random; the dot products say nothing', async () => {
    const { page, errors } = await playground.open('/?#concept=general-form', {
      viewport: { width: 1366, height: 900 },
    });
    const view = page.locator('ap-general-form');
    await view.scrollIntoViewIfNeeded();
    const line = () =>
      view.evaluate((w) => {
        const p = w.shadowRoot.querySelector('.score-note');
        return p.hidden ? '' : p.textContent;
      });
    await expect.poll(() => view.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    expect(await line()).toBe('');
    await view.evaluate((w) => w.setAttribute('score', 'additive'));
    await expect.poll(line).toMatch(/^W_q, W_k and v are random weights here \(seeded\), not learned/);
    expect(errors).toEqual([]);
  });

  test('sampling at T = 1 with top-k and top-p off can draw every token but <pad> (4095 of 4096)', async () => {
    const { page, errors } = await playground.open('/#concept=sampling', { viewport: { width: 1366, height: 900 } });
    const view = page.locator('ap-sampling');
    await view.scrollIntoViewIfNeeded();
    const chosen = () => view.evaluate((w) => w.shadowRoot.querySelector('.changed')?.textContent ?? '');
    // The core never draws the tokenizer's <pad> (decode.cpp); top-p = 1 used to drop 192 more.
    await expect
      .poll(chosen, { timeout: 60_000 })
      .toMatch(/; 4095 of the 4096 tokens can be drawn: every token but <pad>\)/);
    expect(errors).toEqual([]);
  });
});

// 9. rnn-chain's "try this" asked to move to the last word, where the view already opens: it did
//    nothing. Its first prompt now steps back to the first word, the second returns to the last.
describe('9. every rnn-chain prompt changes the view', () => {
  test('the view opens on the last word; the first prompt shows t = 1, the second the last again', async () => {
    const { page, errors } = await playground.open('/#concept=rnn-chain', { viewport: { width: 1366, height: 900 } });
    const view = page.locator('ap-rnn-chain');
    await view.scrollIntoViewIfNeeded();
    const step = () =>
      view.evaluate((w) => w.shadowRoot.querySelector('output')?.textContent ?? w.shadowRoot.textContent);
    await expect.poll(step, { timeout: 30_000 }).toMatch(/t = (\d+) of \1:/);
    const buttons = page.locator('aside.try[data-for="rnn-chain"] button');
    expect(await buttons.count()).toBe(2);
    await buttons.nth(0).click();
    await expect.poll(step).toMatch(/t = 1 of \d+:/);
    await buttons.nth(1).click();
    await expect.poll(step).toMatch(/t = (\d+) of \1:/);
    expect(errors).toEqual([]);
  });
});

// 11. LaTeX source in prose: h_{t-1}, s_{t-1}, y_{t-1} were printed with their braces in
//     rnn-cost's and bahdanau's sentences. Prose now writes subscripts as text (hₜ₋₁); formulas
//     stay KaTeX.
describe('11. no LaTeX source in the prose of chapter A', () => {
  test('every view of chapter A drawn: no "_{" or "\\\\" outside the typeset formulas', async () => {
    const { page, errors } = await playground.open('/#chapter=A', { viewport: { width: 1366, height: 900 } });
    const views = page.locator('#main section [data-concept]:not(aside *)');
    await expect.poll(() => views.count(), { timeout: 30_000 }).toBeGreaterThan(5);
    for (const view of await views.all()) {
      await view.scrollIntoViewIfNeeded();
      await expect.poll(() => view.evaluate((v) => v.dataset.rendered !== undefined || !v.shadowRoot)).toBe(true);
    }
    const prose = await page.evaluate(() => {
      const out = [];
      const walk = (root) => {
        for (const n of root.querySelectorAll('*')) {
          if (n.closest('.katex, script, style')) continue;
          for (const c of n.childNodes)
            if (c.nodeType === 3 && /_\{|\\[a-z]+/.test(c.data)) out.push(c.data.trim().slice(0, 120));
          if (n.shadowRoot) walk(n.shadowRoot);
        }
      };
      walk(document);
      return out;
    });
    expect(prose).toEqual([]);
    expect(errors).toEqual([]);
  });
});

// 11. "Your text was replaced" stayed on screen after the student typed a new text.
describe('11. the replaced-text note', () => {
  test('picking the grammar model replaces an unknown sentence and says so; typing new text takes the note away', async () => {
    const { page, errors } = await playground.open('/?text=My+grandmother+baked+cookies#chapter=B', {
      viewport: { width: 1366, height: 900 },
    });
    const note = page.locator('ap-controls .text-note');
    await expect.poll(() => page.locator('ap-controls #model option').count(), { timeout: 30_000 }).toBeGreaterThan(3);
    await page.locator('ap-controls #model').selectOption('grammar');
    await expect.poll(() => note.isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await note.textContent()).toMatch(
      /^The grammar model does not know "grandmother", "baked", "cookies", so your text "My grandmother baked cookies" was replaced/,
    );
    await page.locator('#text').fill('the dog sat');
    await expect.poll(() => note.isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});

// 11. model-sizes' architecture select was cut to "encoder-decod" on a phone.
describe('11. model-sizes on a phone', () => {
  test('at 375 px the architecture select is wide enough for "encoder-decoder" (text, padding and its arrow)', async () => {
    const { page, errors } = await playground.open('/#concept=model-sizes', { viewport: { width: 375, height: 812 } });
    const select = page.locator('ap-model-sizes select[data-input="arch"]');
    await select.scrollIntoViewIfNeeded();
    await expect.poll(() => select.inputValue(), { timeout: 30_000 }).toBe('encoder-decoder');
    const room = await select.evaluate((s) => {
      const cs = getComputedStyle(s);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
      const need =
        ctx.measureText(s.selectedOptions[0].text).width +
        parseFloat(cs.paddingLeft) +
        parseFloat(cs.paddingRight) +
        20;
      return s.clientWidth - need;
    });
    expect(room).toBeGreaterThanOrEqual(0);
    expect(errors).toEqual([]);
  });
});

// The notes' glossary (004, section 11) was absent: it is in the contents, each term linking to its view.
describe('the glossary of the notes', () => {
  test('15 terms in the notes order, each linking to a view of the page; "Masked Attention" opens the causal mask', async () => {
    const { CONCEPTS } = await import('../../web/lib/concepts.js');
    const { page, errors } = await playground.open('/#chapter=A', { viewport: { width: 1366, height: 900 } });
    const glossary = page.locator('nav.toc details.glossary');
    await glossary.locator('summary').click();
    const links = await glossary
      .locator('dt a')
      .evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(links.map(([t]) => t)).toEqual([
      'Attention Mechanism',
      'Query (Q)',
      'Key (K)',
      'Value (V)',
      'Multi-Head Attention',
      'Positional Encoding',
      'Transformer',
      'Self-Attention',
      'Masked Attention',
      'BERT',
      'GPT',
      'Residual Connection',
      'Layer Normalization',
      'Context Vector',
      'Alignment Score',
    ]);
    for (const [, href] of links) expect(CONCEPTS.map((c) => `#concept=${c.id}`)).toContain(href);
    expect(await glossary.locator('dd').count()).toBe(15);
    await glossary.locator('dt a', { hasText: 'Masked Attention' }).click();
    await page.waitForFunction(() => document.body.dataset.chapter === 'F');
    await expect.poll(() => page.locator('ap-causal-mask').isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });
});

// 6. The generation views opened on a finished sentence (the grammar model's "." at p = 0.995, then
//    <eos>), so temperature, top-k and top-p changed nothing visible. On the English decoder they
//    continue the page's sentence: decoding writes its full 14 tokens, the same ids as the JS API's
//    greedy generate() in Node on the same file and prompt; sampling's distribution at the first
//    step is the softmax of the same logits at each temperature, so T changes what it shows. A
//    greedy continuation that loops says so, with the block and its probabilities from the core.
describe('6. generation continues the sentence', () => {
  test('decoding: 14 English tokens, the same as generate() in Node; sampling: temperature reshapes the first step', async () => {
    const { page, errors } = await playground.open('/#chapter=F', { viewport: { width: 1366, height: 900 } });
    const dec = page.locator('ap-decoding');
    await dec.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('ap-decoding')?.gen?.steps?.length > 0, null, {
      timeout: 60_000,
    });
    const got = await dec.evaluate((w) => ({
      note: w.shadowRoot.querySelector('.model-note')?.textContent ?? w.modelNote.textContent,
      prompt: w.promptIn.value,
      ids: w.gen.steps.map((s) => s.token),
      text: w.gen.text,
      stop: w.gen.stop,
    }));
    expect(got.note).toMatch(/^trained: english/);
    expect(got.ids).toHaveLength(14);
    expect(got.stop).not.toBe('eos');
    const { load } = await import('../../wasm/index.js');
    const { readFileSync } = await import('node:fs');
    const ap = await load();
    const model = await ap.openModel(readFileSync('web/models/english.safetensors'));
    const g = model.generate(got.prompt, { maxTokens: 14 });
    console.log(`decoding "${got.prompt}" -> "${got.text}" (Node: "${g.text}")`);
    expect(Array.from(g.tokens)).toEqual(got.ids);
    g.dispose();

    // A prompt whose greedy continuation loops: the line names the repeated block, how many times
    // it comes, and the mean probability of the repeated tokens, each checked against Node's run.
    const loopPrompt = 'The first year';
    await dec.evaluate((w, p) => {
      w.promptIn.value = p;
      w.promptIn.dispatchEvent(new Event('change'));
    }, loopPrompt);
    await page.waitForFunction(() => document.querySelector('ap-decoding')?.dataset.loop, null, { timeout: 60_000 });
    const loop = await dec.evaluate((w) => ({ note: w.loopNote.textContent, shape: w.dataset.loop }));
    const lg = model.generate(loopPrompt, { maxTokens: 14 });
    const [copies, size] = loop.shape.split('x').map(Number);
    const block = /"([^"]+)" comes (\d+) times in a row/.exec(loop.note);
    expect(block, loop.note).not.toBeNull();
    expect(Number(block[2])).toBe(copies);
    expect(copies).toBeGreaterThanOrEqual(2);
    expect(size).toBeGreaterThanOrEqual(2);
    // Node's prompt and continuation hold the block that many times in a row (the page trims the
    // block's leading space).
    const full = loopPrompt + lg.text;
    expect(
      [block[1], ` ${block[1]}`].some((b) => full.includes(b.repeat(copies))),
      full,
    ).toBe(true);
    // The mean p of the repeated tokens, from Node's distributions of the same steps.
    const repeatP = Number(/p = ([0-9.]+) on average/.exec(loop.note)[1]);
    const ids = [...lg.prompt, ...lg.tokens];
    let start = -1;
    for (let s0 = 0; s0 + 2 * size <= ids.length && start < 0; s0++)
      if (ids.slice(s0, s0 + size).every((x, i) => x === ids[s0 + size + i])) start = s0;
    const ps = [];
    for (let k = Math.max(start + size, lg.prompt.length); k < start + copies * size; k++) {
      const st = lg.steps[k - lg.prompt.length];
      const probs = st.trace.get('probs', { stack: '' });
      const V = probs.length / st.trace.shape('probs', { stack: '' })[0];
      ps.push(probs[probs.length - V + st.token]);
    }
    console.log(`loop: ${loop.note}`);
    expect(repeatP).toBeCloseTo(ps.reduce((a, b) => a + b, 0) / ps.length, 2);
    lg.dispose();
    model.dispose();

    const sam = page.locator('ap-sampling');
    await sam.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('ap-sampling')?.gen?.steps?.length > 0, null, {
      timeout: 60_000,
    });
    // The temperature slider, as a student drags it; the largest q of the first step's sampling
    // distribution, read once it has changed from the value before.
    const topQ = () => sam.evaluate((w) => Math.max(...w.gen.steps[0].distribution));
    const drag = async (t, before) => {
      await sam.evaluate((w, t) => {
        const input = w.shadowRoot.querySelector('input[aria-label="temperature"]');
        input.value = t;
        input.dispatchEvent(new Event('input'));
      }, String(t));
      await expect.poll(topQ, { timeout: 30_000 }).not.toBe(before);
      return topQ();
    };
    const warm = await topQ();
    const cold = await drag(0.5, warm);
    const hot = await drag(2, cold);
    console.log(
      `sampling: largest q at step 1, T = 0.5: ${cold.toFixed(3)}, 1: ${warm.toFixed(3)}, 2: ${hot.toFixed(3)}`,
    );
    expect(cold).toBeGreaterThan(warm);
    expect(warm).toBeGreaterThan(hot);
    expect(errors).toEqual([]);
  }, 120_000);
});

// 11. The FFN view gave a d_ff = 2d model's 50 % / 50 % beside the notes' "most parameters are in
//     the FFN" (a d_ff = 4d statement). On such a model a line now works out the same block at 4d;
//     on the English decoder (d_ff = 512 = 4d) there is no such line.
describe('11. the FFN share at the notes d_ff = 4d', () => {
  test('grammar (d_ff = 2d): the 4d share by hand, 8d² + 5d over 12d² + 13d; English (4d): no line', async () => {
    const { page, errors } = await playground.open('/?model=grammar#chapter=E', {
      viewport: { width: 1366, height: 900 },
    });
    const ffn = page.locator('ap-ffn');
    await ffn.scrollIntoViewIfNeeded();
    const note = ffn.locator('.ffn-4d');
    await expect.poll(() => note.count(), { timeout: 60_000 }).toBe(1);
    const { load } = await import('../../wasm/index.js');
    const { readFileSync } = await import('node:fs');
    const ap = await load();
    const grammar = ap.loadModel(readFileSync('web/models/grammar.safetensors'));
    const c = grammar.config;
    grammar.dispose();
    expect(c.dFf).toBe(2 * c.dModel);
    // one self-attention (4d² + 4d), two norms (4d), the FFN at 4d (2·d·4d + 4d + d)
    const D = c.dModel;
    const want = (100 * (8 * D * D + 5 * D)) / (4 * D * D + 4 * D + 4 * D + 8 * D * D + 5 * D);
    expect(Number(await note.getAttribute('data-share'))).toBeCloseTo(want, 9);
    expect(await note.textContent()).toContain(`${want.toFixed(1)}% of the block`);
    console.log(`ffn at 4d on grammar (d = ${D}): ${want.toFixed(1)}%`);
    await page.locator('ap-controls select#model').selectOption('english');
    await expect.poll(() => note.count(), { timeout: 60_000 }).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});

// 11. The queries-and-keys view shows Q n x d; the scores view below it showed "Q, head 0" n x d/h
//     with no word on why. A line now says so, with the numbers of the model on the page; checked
//     against the widths of the matrices the two views draw.
describe('11. the scores view says its Q is one head slice', () => {
  test('English (d = 128, h = 4): the line says 128 / 4 = 32, and the drawn Q is 32 wide where qkv draws 128', async () => {
    const { page, errors } = await playground.open('/#chapter=B', { viewport: { width: 1366, height: 900 } });
    const scores = page.locator('ap-scores');
    await scores.scrollIntoViewIfNeeded();
    const note = scores.locator('.head-note');
    await expect.poll(() => note.textContent(), { timeout: 60_000 }).toContain('h = 4 heads');
    expect(await note.textContent()).toContain('d_k = d / h = 128 / 4 = 32 columns');
    const widths = async (tag) =>
      page
        .locator(tag)
        .evaluate((w) =>
          Object.fromEntries(
            [...w.shadowRoot.querySelectorAll('ap-heatmap')]
              .filter((m) => m.matrix)
              .map((m) => [m.matrix.title, m.matrix.cols]),
          ),
        );
    const s = await widths('ap-scores');
    expect(s['Q, head 0']).toBe(32);
    const qkv = page.locator('ap-qkv');
    await qkv.scrollIntoViewIfNeeded();
    await expect.poll(async () => Object.values(await widths('ap-qkv')), { timeout: 30_000 }).toContain(128);
    expect(errors).toEqual([]);
  }, 120_000);
});

// Every "try this" prompt of the learning path, clicked in order as a student reading each chapter
// would: each one must change its view (an attribute of the view, which the page's state and the
// prompt's own attributes both set) and leave it drawn without an error. A prompt that asks for
// the state the view is already in (item 9's "move to the last word" where the view opened)
// fails here.
describe('every try-this prompt changes its view', () => {
  test('each chapter: click every prompt in order; the view changes and draws without an error', async () => {
    const { page, errors, warnings } = await playground.open('/#chapter=A', { viewport: { width: 1366, height: 900 } });
    const { LESSONS } = await import('../../web/lib/lessons.js');
    let clicked = 0,
      lastTry = null;
    const dead = [];
    for (const chapter of Object.keys(LESSONS)) {
      await page.evaluate((c) => {
        location.hash = `chapter=${c}`;
      }, chapter);
      await expect.poll(() => page.evaluate(() => document.body.dataset.chapter)).toBe(chapter);
      const asides = page.locator(`section[data-chapter="${chapter}"] aside.try`);
      for (let a = 0; a < (await asides.count()); a++) {
        const aside = asides.nth(a);
        const concept = await aside.getAttribute('data-for');
        const view = page.locator(`#concept-${concept}`);
        const buttons = aside.locator('button');
        for (let b = 0; b < (await buttons.count()); b++) {
          const attrs = () =>
            view.evaluate((w) => JSON.stringify([...w.attributes].map((x) => [x.name, x.value]).sort()));
          const before = await attrs();
          await buttons.nth(b).click();
          clicked++;
          lastTry = { chapter, concept };
          // The state reaches the view through the page (patch) or directly (attrs).
          const changed = await expect
            .poll(attrs, { timeout: 5_000 })
            .not.toBe(before)
            .then(
              () => true,
              () => false,
            );
          if (!changed)
            dead.push(
              `${chapter} ${concept} #${b + 1}: ${(await buttons.nth(b).getAttribute('aria-label')).slice(0, 90)}`,
            );
          await page.waitForFunction((id) => document.getElementById(id)?.dataset.rendered, `concept-${concept}`, {
            timeout: 60_000,
          });
          expect(await view.evaluate((w) => w.dataset.error ?? ''), `${chapter} ${concept} #${b + 1}`).toBe('');
        }
      }
    }
    console.log(`clicked ${clicked} try-this prompts`);
    expect(dead).toEqual([]);
    // The detector itself: the last prompt clicked again asks for the state it is in, and is caught.
    await page.evaluate((c) => {
      location.hash = `chapter=${c}`;
    }, lastTry.chapter);
    await expect.poll(() => page.evaluate(() => document.body.dataset.chapter)).toBe(lastTry.chapter);
    const last = page.locator(`section[data-chapter="${lastTry.chapter}"] aside.try`).last().locator('button').last();
    const view = page.locator(`#concept-${lastTry.concept}`);
    const attrs = () => view.evaluate((w) => JSON.stringify([...w.attributes].map((x) => [x.name, x.value]).sort()));
    const before = await attrs();
    await last.click();
    await page.waitForTimeout(1000);
    expect(await attrs()).toBe(before);
    expect(clicked).toBeGreaterThanOrEqual(25);
    expect(errors).toEqual([]);
    // The page's own state never makes a view warn (a console warning is for an embedder's attribute).
    expect(warnings).toEqual([]);
  }, 300_000);
});

describe('11. chapter A says which views do not read the text at the top', () => {
  // Chapter A opens with the page's text box beside its heading, but four of its views read
  // something else (their own sentence for the translator, or a length): each says so in one line,
  // and the line is true: typing a new text changes every view without the line and none with it.
  // Chapter G: none of its views reads the text (costs and sizes for the n and d set in each).
  test.each([
    ['A', ['ap-bahdanau', 'ap-birnn', 'ap-rnn-cost', 'ap-translation']],
    ['G', ['ap-comparison', 'ap-long-context', 'ap-model-sizes', 'ap-quadratic']],
  ])(
    'chapter %s: the views with the line draw the same after new text; the others draw the new text',
    async (chapter, lined) => {
      const { page, errors } = await playground.open(`/#chapter=${chapter}`, {
        viewport: { width: 1366, height: 900 },
      });
      const tags = await page.evaluate(
        (chapter) =>
          [...document.querySelectorAll(`section[data-chapter="${chapter}"] [data-concept]`)]
            .filter((w) => w.shadowRoot?.querySelector('.widget') && w.localName !== 'ap-quiz')
            .map((w) => w.localName),
        chapter,
      );
      // Each view is read once it has drawn with `text` as the page's text (lib/widget.js sets
      // data-text on every drawing, whether the view reads the text or not).
      const read = async (text) => {
        const out = {};
        for (const tag of tags) {
          const w = page.locator(tag).first();
          await w.scrollIntoViewIfNeeded();
          await page.waitForFunction(
            ([t, text]) => {
              const el = document.querySelector(t);
              return el.dataset.rendered && el.dataset.text === text;
            },
            [tag, text],
            { timeout: 30_000 },
          );
          out[tag] = await w.evaluate((el) => {
            const note = el.shadowRoot.querySelector('.own-input');
            return {
              note: note && !note.hidden ? note.textContent : '',
              drawing: el.shadowRoot.querySelector('.widget > .body').textContent,
            };
          });
        }
        return out;
      };
      const before = await read('the cat sat on the mat');
      await page.locator('#text').fill('my grandmother baked cookies');
      const after = await read('my grandmother baked cookies');
      const withLine = tags.filter((t) => before[t].note);
      console.log(
        `chapter ${chapter}: the line on ${withLine.join(', ')}; the text read by ${tags.filter((t) => !before[t].note).join(', ')}`,
      );
      expect(withLine.sort()).toEqual(lined);
      for (const t of tags) {
        expect(after[t].note).toBe(before[t].note);
        if (before[t].note) {
          expect(before[t].note).toMatch(/^This view does not read the text at the top: /);
          expect(after[t].drawing, t).toBe(before[t].drawing);
        } else {
          expect(after[t].drawing, t).not.toBe(before[t].drawing);
          expect(after[t].drawing, t).toMatch(/grand/);
        }
      }
      expect(errors).toEqual([]);
    },
    180_000,
  );
});

// Opens `url` at 1366 x 900, scrolls to view `tag`, waits for its drawing and returns what `read`
// (run in the page on the element) finds there; no console error on the way.
async function readView(url, tag, read) {
  const { page, errors } = await playground.open(url, { viewport: { width: 1366, height: 900 } });
  await page.locator(tag).scrollIntoViewIfNeeded();
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag);
  const got = await page.locator(tag).evaluate(read);
  expect(errors).toEqual([]);
  return got;
}

describe("relative positions' scaled scores say the bias was added", () => {
  // The step adds b[j − i] after dividing by √d_k (d_model 16, 2 heads: √8 = 2.83); its line once
  // credited the division alone with the new range and called the softmax "less peaked".
  test('the line names the bias; the explained cell adds it', async () => {
    const got = await readView('/#concept=relative', 'ap-relative', (el) =>
      [...el.shadowRoot.querySelectorAll('.changed')].map((p) => p.textContent),
    );
    const line = got.find((t) => t.startsWith('Divided by'));
    expect(line).toMatch(/^Divided by √8 = 2\.83, then each pair's bias b\[j − i\] added: the range /);
    expect(line).not.toContain('less peaked');
  }, 120_000);
});

describe("a paragraph longer than a view's own model reads", () => {
  // The 100-word paragraph fits the English model (256 tokens), not the 64 of the random models
  // these two views run (positions off, relative positions): each reads its first 64 and says so;
  // both once showed only "input has 120 tokens but the model's max length is 64".
  test('permutation and relative positions draw its first 64 tokens, with a line saying so', async () => {
    const q = `/?${new URLSearchParams({ text: PARAGRAPH })}`;
    for (const [concept, tag] of [
      ['permutation', 'ap-permutation'],
      ['relative', 'ap-relative'],
    ]) {
      const got = await readView(`${q}#concept=${concept}`, tag, (el) => ({
        error: el.dataset.error ?? null,
        cut: el.shadowRoot.querySelector('.cut').textContent,
        rows: Math.max(...[...el.shadowRoot.querySelectorAll('ap-heatmap')].map((h) => h.matrix.rows)), // the n x n maps
      }));
      expect(got.error, concept).toBe(null);
      expect(got.rows, concept).toBe(64);
      expect(got.cut, concept).toMatch(
        // then, if so, the words its word list lacks (read as <unk>)
        /^This view's model reads at most 64 tokens; your text has \d{3}, so the view reads its first 64\.( \d+ of these 64 tokens are not in this model's word list of \d+ and are read as <unk>, .*)?$/,
      );
    }
  }, 120_000);
});

describe('the layer-norm picker says where each norm sits', () => {
  // Pre-norm (the English model, as GPT-2) normalises a sublayer's input: norm1 comes before
  // attention; post-norm (the notes' switch) normalises after the residual sum.
  test('before attention on the pre-norm model, after it with the post-norm switch', async () => {
    const label = (url) =>
      readView(url, 'ap-layernorm', (el) =>
        [...el.shadowRoot.querySelectorAll('select option')].map((o) => o.textContent),
      );
    const pre = await label('/#concept=layernorm');
    expect(pre).toContain('before attention (norm1)');
    expect(pre).toContain('before the FFN (norm2)');
    expect(pre).not.toContain('after attention (norm1)');
    const post = await label('/?norm=post#concept=layernorm');
    expect(post).toContain('after attention (norm1)');
    expect(post).toContain('after the FFN (norm2)');
  }, 120_000);
});

describe('qkv says when its X is normalised first', () => {
  // The notes write Q = XW_Q; the English model is pre-norm, so the view's product is LN(X)W_Q + b_Q.
  test('a line on the pre-norm model, none with the post-norm switch', async () => {
    const line = (url) =>
      readView(url, 'ap-qkv', (el) => {
        const p = el.shadowRoot.querySelector('.pre-note');
        return p.hidden ? null : p.textContent;
      });
    expect(await line('/#concept=qkv')).toMatch(
      /^This model is pre-norm, as GPT-2: the rows multiplied here are LN\(X\)/,
    );
    expect(await line('/?norm=post#concept=qkv')).toBe(null);
  }, 120_000);
});

describe('the encoder-decoder views say when they run a model of their own', () => {
  // The English default has no encoder: both views run a trained encoder-decoder on its own text and
  // say so.
  test('a line on the English default; on the dates model, only where it is still true', async () => {
    const line = (url, tag) =>
      readView(url, tag, (el) => {
        const p = el.shadowRoot.querySelector('.own-input');
        return p.hidden ? null : p.textContent;
      });
    expect(await line('/#concept=encoder-decoder', 'ap-encoder-decoder')).toContain(
      "the project's trained dates model",
    );
    expect(await line('/#concept=cross-attention', 'ap-cross-attention')).toContain('English-to-French translator');
    // With the dates model picked, cross-attention keeps the translator on the notes' sentence
    // (where the notes' alignment forms), and says so without blaming the page's model.
    expect(await line('/?model=dates#concept=cross-attention', 'ap-cross-attention')).toBe(
      "This view does not read the text at the top: it runs the project's English-to-French translator on the notes' sentence.",
    );
    // Opened straight on the dates model with a date of one's own: the view waits for the model and
    // reads that date (it once drew the dates example, chosen before the model had loaded, and kept it).
    const own = await readView(
      '/?model=dates&text=4%20July%202001#concept=encoder-decoder',
      'ap-encoder-decoder',
      (el) => ({
        line: el.shadowRoot.querySelector('.own-input').hidden,
        src: el.shadowRoot.querySelector('.tokens').textContent,
      }),
    );
    expect(own).toEqual({ line: true, src: '4␣July␣2001' });
  }, 120_000);
});
