// The learning views in headless Chromium (docs/concepts.md section H and bert-gpt):
//  - <ap-training>: training starts on a click (never on load), in a Web Worker; within a fixed
//    number of steps the held-out accuracy rises above its value at step 0 and the loss falls;
//    pause stops progress; a reset with the same seed gives the same first losses (another seed
//    does not); removing the element terminates the worker.
//  - <ap-quiz>: right and wrong answers get the right feedback, with the core's numbers; a
//    prediction reveals its view only after it is committed.
//  - <ap-bert-gpt>: both masks (bidirectional and causal, checked against a hand-written mask),
//    the [MASK] position choice, and who sees a change of the last word; BERT's side is the
//    trained masked LM (web/models/mlm.safetensors): its prediction at [MASK] is the one the same
//    model gives through the JS API in Node, and a hidden verb gets the subject's number.
// Each view is opened alone in a plain page (only its own module loaded), with no console errors,
// and on the playground page; screenshots are saved as tests/web/screenshots/view-<id>.png.
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { load } from '../../wasm/index.js';
import { MLM_VERBS } from './lib/models.js';

const playground = usePlayground();

// A plain page with one element and nothing else: the module of the view is the only script
// (served through the dev server like any of the page's modules), in the dark theme if asked.
const openAlone = (tag, attrs = {}, { dark = false, width = 1100 } = {}) =>
  playground.openAlone(tag, attrs, {
    viewport: { width, height: 900 },
    colorScheme: dark ? 'dark' : undefined,
    style:
      'body { margin: 16px; font-family: sans-serif; } @media (prefers-color-scheme: dark) { body { background: #0f1115; color: #ddd; } }',
  });

const data = (widget, key) => widget.evaluate((w, k) => w.dataset[k], key);

describe('training: a tiny transformer learns in the page', () => {
  test('nothing trains on load; Train trains in a worker: within 800 steps accuracy rises and loss falls', async () => {
    const { page, errors, widget } = await openAlone('ap-training');
    // Not started by loading the page.
    expect(await widget.evaluate((w) => ({ worker: !!w.worker, step: w.dataset.step ?? null }))).toEqual({
      worker: false,
      step: null,
    });
    await expect(widget.locator('.train').textContent()).resolves.toMatch(/Train/);
    await widget.locator('.train').click();
    await page.waitForFunction(() => Number(document.querySelector('ap-training').dataset.step) >= 800, null, {
      timeout: 240_000,
    });
    await widget.locator('.train').click(); // pause
    const h = await widget.evaluate((w) => w.history.map((x) => ({ ...x })));
    expect(h[0].step).toBe(0);
    expect(h[0].loss).toBeNull();
    const at800 = h.find((x) => x.step >= 800);
    const firstLoss = h.find((x) => x.loss !== null);
    expect(firstLoss.step).toBe(25);
    // reverse: exact match of the whole reversed string on 100 held-out examples.
    expect(at800.accuracy).toBeGreaterThan(h[0].accuracy);
    expect(at800.loss).toBeLessThan(firstLoss.loss / 2);
    // The heatmaps show every layer and head on the held-out example "<bos> 81r9c7hd = dh7c9r18".
    const maps = await widget.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('.heads ap-heatmap')].map((m) => ({
        title: m.matrix.title,
        rows: m.matrix.rows,
        cols: m.matrix.cols,
        rowLabels: m.matrix.rowLabels.join(''),
        drawn: !!m.shadowRoot && m.shadowRoot.querySelector('canvas').getBoundingClientRect().width > 100,
      })),
    );
    expect(maps.map((m) => m.title)).toEqual([
      'layer 0, head 0',
      'layer 0, head 1',
      'layer 1, head 0',
      'layer 1, head 1',
    ]);
    for (const m of maps)
      expect(m).toMatchObject({ rows: 18, cols: 18, rowLabels: '<bos>81r9c7hd=dh7c9r18', drawn: true });
    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-training.png') });
    console.log(
      `training view: step 0 accuracy ${h[0].accuracy}, step ${at800.step}: loss ${firstLoss.loss.toFixed(3)} -> ${at800.loss.toFixed(3)}, accuracy ${at800.accuracy}`,
    );
    expect(errors).toEqual([]);
  }, 300_000);

  test("each task's fixed example is held out from training, and its expected answer is right", async () => {
    const { page, errors } = await openAlone('ap-training');
    // (a string, so Vitest does not rewrite the browser's dynamic import)
    const tasks = await page.evaluate(
      "import('/components/ap-training.js').then((m) => JSON.parse(JSON.stringify(m.TRAINING_TASKS)))",
    );
    // cpp/train/rng.hpp hash_string: FNV-1a 64 then a splitmix64 finish; tasks.cpp holds out a key
    // when hash % 20 == 0 (sort, reverse: the input), dates.cpp and grammar.cpp when hash % 10 == 0
    // (the ISO date; the subject phrase).
    const M = (1n << 64n) - 1n;
    const hash = (s) => {
      let h = 0xcbf29ce484222325n;
      for (const b of Buffer.from(s)) {
        h ^= BigInt(b);
        h = (h * 0x100000001b3n) & M;
      }
      let z = (h + 0x9e3779b97f4a7c15n) & M;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
      return z ^ (z >> 31n);
    };
    expect(Object.keys(tasks)).toEqual(['reverse', 'sort', 'dates', 'grammar']);
    expect(hash(tasks.reverse.example.src) % 20n).toBe(0n);
    expect(hash(tasks.sort.example.src) % 20n).toBe(0n);
    expect(tasks.reverse.example.tgt).toBe([...tasks.reverse.example.src].reverse().join(''));
    expect(tasks.sort.example.tgt).toBe([...tasks.sort.example.src].sort().join(''));
    expect(hash(tasks.dates.example.tgt) % 10n).toBe(0n);
    expect(tasks.dates.example).toEqual({ src: '9 November 1985', tgt: '1985-11-09' });
    expect(hash(tasks.grammar.example.prompt) % 10n).toBe(0n);
    expect(tasks.grammar.example.tgt.startsWith(`${tasks.grammar.example.prompt} ${tasks.grammar.example.good} `)).toBe(
      true,
    );
    expect(errors).toEqual([]);
  });

  test('pause stops progress; Step advances exactly one chunk; the same seed gives the same first losses', async () => {
    const { page, errors, widget } = await openAlone('ap-training', { 'train-seed': 7 });
    const waitStep = (n) =>
      page.waitForFunction((k) => document.querySelector('ap-training').dataset.step === String(k), n, {
        timeout: 120_000,
      });
    // Train, then pause: the worker acknowledges at step S and nothing moves after that.
    await widget.locator('.train').click();
    await page.waitForFunction(() => Number(document.querySelector('ap-training').dataset.step) >= 50, null, {
      timeout: 120_000,
    });
    await widget.locator('.train').click();
    await page.waitForFunction(() => document.querySelector('ap-training').dataset.pausedAt !== undefined);
    const paused = Number(await data(widget, 'pausedAt'));
    await waitStep(paused);
    expect(await data(widget, 'running')).toBe('false');
    await page.waitForTimeout(1500);
    expect(Number(await data(widget, 'step'))).toBe(paused);
    // One Step while paused: exactly 25 more (a running worker would have gone further).
    await widget.locator('.step').click();
    await waitStep(paused + 25);
    await page.waitForTimeout(500);
    expect(Number(await data(widget, 'step'))).toBe(paused + 25);

    const firstLosses = async (seed) => {
      await widget.locator('input[type=number]').fill(String(seed));
      await widget.locator('.reset').click();
      await page.waitForFunction(() => document.querySelector('ap-training').dataset.step === '0');
      for (const k of [25, 50, 75]) {
        await widget.locator('.step').click();
        await waitStep(k);
      }
      return widget.evaluate((w) => w.history.filter((x) => x.loss !== null).map((x) => x.loss));
    };
    const a = await firstLosses(7);
    const b = await firstLosses(7);
    const c = await firstLosses(8);
    expect(a).toHaveLength(3);
    expect(b).toEqual(a);
    expect(c[0]).not.toBe(a[0]);
    // A seed that is not a whole number is a clear message, and the view stays usable.
    await widget.locator('input[type=number]').fill('1.5');
    await widget.locator('.reset').click();
    expect(await data(widget, 'error')).toMatch(/seed must be a whole number/);
    // Removing the element terminates the worker.
    const gone = await widget.evaluate(async (w) => {
      w.remove();
      await Promise.resolve();
      await Promise.resolve();
      return w.worker === null;
    });
    expect(gone).toBe(true);
    expect(errors).toEqual([]);
  }, 300_000);
});

describe('induction: two heads form together to copy', () => {
  // The view's own run (web/lib/induction.js), seed 1: one click on "Step +400" (every="400") trains
  // 400 steps in the worker. tests/wasm/induction.test.js finds a head forming at step 275 in Node;
  // here the page's numbers are read back and checked by hand: each map's score recomputed from the
  // drawn weights (layer 1: query j of the repeat, key j - 7; layer 0: query j of the first pass,
  // key j - 1), the sentence naming every layer-1 head above 0.5, the repeat's held-out loss far
  // below the first pass's, the loss note, and the model's continuation of the held-out string.
  test('after 400 steps the layer-1 heads light the shifted diagonal, and the view names each', async () => {
    const { page, errors, widget } = await openAlone('ap-induction', { every: '400' });
    await widget.locator('.step').click();
    await page.waitForFunction(() => document.querySelector('ap-induction').dataset.pausedAt === '400', null, {
      timeout: 240_000,
    });
    await page.waitForFunction(() => document.querySelector('ap-induction').shadowRoot.querySelector('.verdict'));
    const got = await widget.evaluate((w) => ({
      maps: [...w.shadowRoot.querySelectorAll('.heads ap-heatmap')].map((m) => ({
        title: m.matrix.title,
        n: m.matrix.rows,
        labels: m.matrix.rowLabels.join(''),
        values: Array.from(m.matrix.values),
      })),
      verdict: w.shadowRoot.querySelector('.verdict').textContent,
      readout: w.shadowRoot.querySelector('.readout').textContent,
      lossNote: w.shadowRoot.querySelector('.loss-note').textContent,
      headsNote: w.shadowRoot.querySelector('.heads-note').textContent,
      correct: w.shadowRoot.querySelector('.answer').dataset.correct,
    }));
    expect(got.maps.map((m) => [m.n, m.labels])).toEqual(Array(4).fill([17, '<bos>mjsbfvqrmjsbfvqr']));
    const induction = (v) => {
      let sum = 0;
      for (let j = 9; j <= 16; j++) sum += v[j * 17 + j - 7];
      return sum / 8;
    };
    const previous = (v) => {
      let sum = 0;
      for (let j = 1; j <= 8; j++) sum += v[j * 17 + j - 1];
      return sum / 8;
    };
    const layer1 = got.maps.slice(2).map((m) => induction(m.values));
    const layer0 = got.maps.slice(0, 2).map((m) => previous(m.values));
    console.log(
      `induction view, step 400: layer-0 previous ${layer0.map((x) => x.toFixed(3))}, layer-1 induction ${layer1.map((x) => x.toFixed(3))}; ${got.readout}`,
    );
    const formed = [0, 1].filter((h) => layer1[h] >= 0.5).sort((a, b) => layer1[b] - layer1[a]);
    expect(formed.length).toBeGreaterThan(0);
    for (const h of [0, 1]) {
      expect(got.maps[2 + h].title).toBe(`layer 1, head ${h}: induction score ${layer1[h].toFixed(2)} (uniform 0.08)`);
      expect(got.maps[h].title).toBe(`layer 0, head ${h}: previous-token score ${layer0[h].toFixed(2)} (uniform 0.23)`);
    }
    const names = formed.map((h) => `layer 1, head ${h}`).join(' and ');
    expect(got.verdict).toContain(
      formed.length === 1 ? `An induction head has formed: ${names}.` : `Two induction heads have formed: ${names}.`,
    );
    for (const h of formed) expect(got.verdict).toContain(layer1[h].toFixed(2));
    const loss = (kind) => Number(got.readout.match(new RegExp(`${kind} ([0-9.]+)`))[1]);
    expect(loss('first pass')).toBeGreaterThan(Math.log(26) - 0.1);
    expect(loss('repeat')).toBeLessThan(loss('first pass') / 2);
    if (loss('first pass') > Math.log(26))
      expect(got.lossNote).toContain(`The first pass stays above ln 26 ≈ 3.26 (now ${loss('first pass').toFixed(2)})`);
    expect(got.lossNote).toContain(`The repeat's loss (now ${loss('repeat').toFixed(2)}) cannot reach 0 either`);
    expect(got.headsNote).toContain('This string has 8 letters, so that letter is 7 places back');
    expect(got.correct).toBe('true');
    // The other sentences, from made-up scores: copying shared by both heads without a clean diagonal
    // (seed 3 ends so: 0.34 and 0.35, each finding the letter in 3 of the 8 rows, the same 3, with
    // the repeat's loss at 0.49), and nothing formed yet.
    const said = await widget.evaluate((w) => {
      const head = (layer, h, induction, previous, found) => ({
        layer,
        head: h,
        induction,
        previous,
        found,
        inductionChance: 0.08,
        previousChance: 0.23,
      });
      const rows = [false, true, true, true, false, false, false, false];
      const heads = [
        head(0, 0, 0.1, 0.48, rows),
        head(0, 1, 0.1, 0.04, rows),
        head(1, 0, 0.34, 0.1, rows),
        head(1, 1, 0.35, 0.1, [false, true, true, true, false, false, true, false]),
      ];
      const text = (nodes) => nodes.map((n) => n.textContent).join('');
      return { shared: text(w._verdict(heads, 3.38, 0.49)), early: text(w._verdict(heads, 3.3, 3.2)) };
    });
    expect(said.shared).toContain('The repeat is predicted, but no single head copies it.');
    expect(said.shared).toContain('0.49 nats a letter against 3.38');
    expect(said.shared).toContain('(layer 1, head 1 0.35, layer 1, head 0 0.34; uniform attention: 0.08)');
    expect(said.shared).toContain('the heaviest key is that letter in 4 for head 1 and 3 for head 0; 4 of 8 are found');
    expect(said.early).toContain('No induction head yet');
    expect(said.early).toContain('puts 0.48 on the previous letter (layer 0, head 0)');
    // The worker's "done" (sent after the last report, here made up) marks the readout once, also
    // when the last report is drawn after it, and never twice.
    const finished = await widget.evaluate(async (w) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      w._message({ ...w.last, gen: w.gen });
      w._message({ type: 'done', gen: w.gen });
      await frame();
      w._message({ type: 'done', gen: w.gen });
      await frame();
      return {
        marks: w.shadowRoot.querySelectorAll('.readout .finished').length,
        text: w.shadowRoot.querySelector('.readout').textContent,
      };
    });
    expect(finished.marks).toBe(1);
    expect(finished.text).toMatch(/^step 400 \/ 1000 .*Finished: 1000 steps\.$/);
    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-induction.png') });
    expect(errors).toEqual([]);
  }, 300_000);
});

describe("quiz: the notes' questions, answered by the core", () => {
  test('right and wrong answers get the right feedback; predictions reveal their view', async () => {
    const { errors, widget } = await openAlone('ap-quiz');
    expect(JSON.parse(await data(widget, 'answers'))).toEqual({ tm: 'c', rnn: ['b'], p1: 2, p2: 3 });
    const q = (id) => widget.locator(`[data-question="${id}"]`);
    const result = (id) => q(id).evaluate((n) => n.dataset.result);

    // "Thinking Machines": (c) is right, (a) is wrong; the explanation shows the core's 0.881, 0.119.
    await q('thinking-machines').locator('input[value=c]').check();
    await q('thinking-machines').locator('.check').click();
    expect(await result('thinking-machines')).toBe('correct');
    await expect(q('thinking-machines').locator('.feedback').textContent()).resolves.toMatch(/^Correct: \(c\)/);
    await expect(q('thinking-machines').locator('.w').textContent()).resolves.toBe('0.881, 0.119');
    await q('thinking-machines').locator('.again').click();
    expect(await result('thinking-machines')).toBe('unanswered');
    await q('thinking-machines').locator('input[value=a]').check();
    await q('thinking-machines').locator('.check').click();
    expect(await result('thinking-machines')).toBe('wrong');
    await expect(q('thinking-machines').locator('.feedback').textContent()).resolves.toMatch(
      /you chose \(a\).*give \(c\)/,
    );

    // "Transformers vs RNNs": (b) right, (d) wrong.
    await q('transformers-vs-rnns').locator('input[value=d]').check();
    await q('transformers-vs-rnns').locator('.check').click();
    expect(await result('transformers-vs-rnns')).toBe('wrong');
    await expect(q('transformers-vs-rnns').locator('.feedback').textContent()).resolves.toMatch(/holds is \(b\)/);
    await expect(q('transformers-vs-rnns').locator('[data-option=d] .fails').textContent()).resolves.toBe(
      'does not hold',
    );
    await q('transformers-vs-rnns').locator('.again').click();
    await q('transformers-vs-rnns').locator('input[value=b]').check();
    await q('transformers-vs-rnns').locator('.check').click();
    expect(await result('transformers-vs-rnns')).toBe('correct');

    // Dimensions (n = 6, d = 12, h = 3): by hand Q^l 6 x 4, A^l 6 x 6, O^l 6 x 4, concat 6 x 12, O 6 x 12.
    const dims = q('dimensions');
    const fill = async (key, r, c) => {
      await dims.locator(`[data-shape="${key}"] input`).nth(0).fill(String(r));
      await dims.locator(`[data-shape="${key}"] input`).nth(1).fill(String(c));
    };
    await fill('Q', 6, 4);
    await fill('A', 6, 6);
    await fill('O', 6, 4);
    await fill('concat', 6, 12);
    await fill('out', 6, 4);
    await dims.locator('.check').click();
    expect(await result('dimensions')).toBe('wrong');
    await expect(dims.locator('[data-shape=out] .mark').textContent()).resolves.toBe('✗ the core: 6 × 12');
    await expect(dims.locator('[data-shape=Q] .mark').textContent()).resolves.toBe('✓');
    await fill('out', 6, 12);
    await dims.locator('.check').click();
    expect(await result('dimensions')).toBe('correct');
    // Other sizes: n = 5, d = 16, h = 4 -> Q^l 5 x 4.
    await dims.locator('input[aria-label=n]').fill('5');
    await dims.locator('input[aria-label=n]').dispatchEvent('change');
    await dims.locator('input[aria-label=d]').fill('16');
    await dims.locator('input[aria-label=d]').dispatchEvent('change');
    await dims.locator('input[aria-label=h]').fill('4');
    await dims.locator('input[aria-label=h]').dispatchEvent('change');
    expect(await result('dimensions')).toBe('unanswered');
    await fill('Q', 5, 4);
    await fill('A', 5, 5);
    await fill('O', 5, 4);
    await fill('concat', 5, 16);
    await fill('out', 5, 16);
    await dims.locator('.check').click();
    expect(await result('dimensions')).toBe('correct');
    // d not divisible by h: a clear message, no check possible.
    await dims.locator('input[aria-label=h]').fill('3');
    await dims.locator('input[aria-label=h]').dispatchEvent('change');
    await expect(dims.locator('.feedback').textContent()).resolves.toMatch(/not divisible by h = 3/);
    expect(await dims.locator('.check').isDisabled()).toBe(true);

    // Predict, then reveal: the view is hidden until the guess is committed.
    const p1 = q('predict-cat-sat');
    expect(await p1.locator('.reveal').isHidden()).toBe(true);
    await p1.locator('input[value="2"]').check();
    await p1.locator('.check').click();
    expect(await result('predict-cat-sat')).toBe('correct');
    // A view draws once it is near the screen, as a student scrolls to it; the reveal may start below the fold.
    await p1.locator('.reveal').scrollIntoViewIfNeeded();
    await p1.locator('.reveal ap-softmax[data-rendered]').waitFor();
    expect(await p1.locator('.reveal ap-softmax').getAttribute('preset')).toBe('softmax.the-cat-sat');
    const p2 = q('predict-causal');
    await p2.locator('input[type=number]').fill('2');
    await p2.locator('.check').click();
    expect(await result('predict-causal')).toBe('wrong');
    await expect(p2.locator('.feedback').textContent()).resolves.toMatch(
      /leaves 3 scores finite: clouds, drift, across/,
    );
    await p2.locator('.reveal').scrollIntoViewIfNeeded();
    await p2.locator('.reveal ap-causal-mask[data-rendered]').waitFor();
    // The live question on the sentence: its answer is the revealed view's own numbers.
    const p3 = q('predict-live');
    const live = await widget.evaluate((w) => w.data.p3);
    await p3.locator(`input[value="${live.best[0]}"]`).check();
    await p3.locator('input[type=number]').fill(live.max.toFixed(2));
    await p3.locator('.check').click();
    expect(await result('predict-live')).toBe('correct');
    await p3.locator('.reveal').scrollIntoViewIfNeeded();
    await p3.locator('.reveal ap-softmax[data-rendered]').waitFor();
    const shown = await p3.locator('.reveal ap-softmax').evaluate((s, row) => {
      const h = s.shadowRoot.querySelector('ap-heatmap');
      return Array.from(h.matrix.values.slice(row * h.matrix.cols, (row + 1) * h.matrix.cols));
    }, live.row);
    expect(shown).toEqual(live.weights);
    // A new sentence asks a new question: the card forgets the answer and lists the new tokens.
    await widget.evaluate((w) => w.setAttribute('text', 'Transformers changed natural language processing.'));
    await expect.poll(() => result('predict-live'), { timeout: 30_000 }).toBe('unanswered');
    const next = await widget.evaluate((w) => w.data.p3);
    expect(next.labels.join('')).toContain('Transformers');
    await expect(p3.locator('p').first().textContent()).resolves.toContain(next.labels.join(' · '));
    expect(await p3.locator('.reveal').isHidden()).toBe(true);

    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-quiz.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});

// The masked LM through the JS API in Node: the probabilities at position `at` of `text` with
// that word replaced by [MASK].
let mlm = null;
function mlmInNode(text, at) {
  const enc = mlm.tokenizer.encode(text);
  const ids = Int32Array.from(enc.ids);
  ids[at] = mlm.vocab.indexOf('[MASK]');
  const tr = mlm.forward(ids);
  const V = mlm.vocab.length;
  const p = tr.get('probs').slice(at * V, (at + 1) * V);
  tr.dispose();
  const best = p.indexOf(Math.max(...p));
  return { p, top: mlm.vocab[best], topP: p[best] };
}
const bertShown = (widget) =>
  widget.evaluate((w) => {
    const d = w.shadowRoot.querySelector('[data-model=bert] .dist');
    return {
      top: d.dataset.top,
      topP: Number(d.dataset.topP),
      truthP: Number(d.querySelector('.truth').dataset.value),
    };
  });

describe('bert-gpt: the same sentence, two masks, two objectives', () => {
  beforeAll(async () => {
    const ap = await load();
    mlm = ap.loadModel(readFileSync(fileURLToPath(new URL('../../web/models/mlm.safetensors', import.meta.url))));
  });

  test("BERT's mask blocks nothing, GPT's blocks the future; [MASK] moves; who sees the last word", async () => {
    const { page, errors, widget } = await openAlone('ap-bert-gpt', {
      model: 'grammar',
      text: 'the cat sat on the mat',
    });
    const masks = () =>
      widget.evaluate((w) =>
        Object.fromEntries(
          ['bert', 'gpt'].map((k) => {
            const m = w.shadowRoot.querySelector(`[data-model=${k}] ap-heatmap[data-role=mask]`).matrix;
            return [k, { rows: m.rows, cols: m.cols, values: Array.from(m.values), labels: m.colLabels }];
          }),
        ),
      );
    let m = await masks();
    // By hand: bidirectional = nothing blocked (6 x 6); causal over "<bos> the cat sat on the mat"
    // (7 x 7) = blocked exactly where key j > query i.
    expect(m.bert).toMatchObject({ rows: 6, cols: 6, labels: ['the', 'cat', '[MASK]', 'on', 'the', 'mat'] });
    expect(m.bert.values).toEqual(new Array(36).fill(0));
    expect(m.gpt).toMatchObject({ rows: 7, cols: 7, labels: ['<bos>', 'the', 'cat', 'sat', 'on', 'the', 'mat'] });
    expect(m.gpt.values).toEqual(Array.from({ length: 49 }, (_, k) => (k % 7 > Math.floor(k / 7) ? 1 : 0)));
    // The prediction for the hidden word: BERT at [MASK] by the trained masked LM, GPT from the
    // left (the trained grammar model); both know every word of this sentence.
    expect(await data(widget, 'bertTrained')).toBe('true');
    expect(await widget.locator('[data-model=bert] .untrained').count()).toBe(0);
    await expect(widget.locator('[data-model=bert] .trained').textContent()).resolves.toMatch(/mlm\.safetensors/);
    const shown = await bertShown(widget);
    const node = mlmInNode('the cat sat on the mat', 2);
    expect(shown.top).toBe(node.top);
    expect(shown.topP).toBeCloseTo(node.topP, 5);
    expect(shown.truthP).toBeCloseTo(node.p[mlm.vocab.indexOf('sat')], 5);
    expect(await data(widget, 'gptTrained')).toBe('true');
    const pSat = Number(await widget.locator('[data-model=gpt] .truth').getAttribute('data-value'));
    expect(pSat).toBeGreaterThan(0);
    expect(pSat).toBeLessThan(1);
    // Hide another word.
    await widget.locator('select').selectOption('4');
    await page.waitForFunction(() => document.querySelector('ap-bert-gpt').dataset.mask === '4');
    m = await masks();
    expect(m.bert.labels).toEqual(['the', 'cat', 'sat', 'on', '[MASK]', 'mat']);
    // Changing the last word moves BERT's earlier outputs and none of GPT's.
    const cells = await widget.evaluate((w) =>
      [...w.shadowRoot.querySelectorAll('table.who-sees tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
      ),
    );
    expect(cells).toHaveLength(6);
    for (const [bert, gpt] of cells.slice(0, -1)) {
      expect(bert).toBeGreaterThan(1e-4);
      expect(gpt).toBe(0);
    }
    await widget.locator('select').selectOption('2');
    await page.waitForFunction(() => document.querySelector('ap-bert-gpt').dataset.mask === '2');
    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-bert-gpt.png') });
    expect(errors).toEqual([]);
  }, 120_000);

  test('the trained masked LM gives a hidden verb the number of its subject, across a noun of the other number', async () => {
    // By hand: "the dogs near the cat [MASK] on the mat": the subject is "dogs" (plural), the
    // nearest noun "cat" is singular; the verb forms below are the singular present ones.
    const SINGULAR = [...MLM_VERBS.common, ...MLM_VERBS.intransitive].map(([singular]) => singular);
    const text = 'the dogs near the cat sleep on the mat';
    const { errors, widget } = await openAlone('ap-bert-gpt', { model: 'grammar', text, mask: 5 });
    expect(await data(widget, 'bertTrained')).toBe('true');
    const shown = await bertShown(widget);
    const node = mlmInNode(text, 5);
    expect(shown.top).toBe(node.top);
    expect(shown.topP).toBeCloseTo(node.topP, 5);
    expect(SINGULAR).not.toContain(shown.top);
    const plural = node.p[mlm.vocab.indexOf('sleep')],
      singular = node.p[mlm.vocab.indexOf('sleeps')];
    expect(plural).toBeGreaterThan(singular);
    expect(shown.truthP).toBeCloseTo(plural, 5);
    expect(errors).toEqual([]);
  }, 120_000);

  test('a paragraph longer than the models read is cut to its first 63 words, and the view says so', async () => {
    // 12 x 7 = 84 words; the random models read 64 tokens, the decoder's <bos> takes one: 63 words.
    const text = Array(12).fill('the cat sat on the mat and').join(' ');
    const { errors, widget } = await openAlone('ap-bert-gpt', { model: 'grammar', text });
    expect(await widget.getAttribute('data-error')).toBeNull();
    await expect(widget.locator('.cut').textContent()).resolves.toBe(
      'These models read at most 63 words; your text has 84, so the view reads its first 63.',
    );
    const size = await widget.evaluate((w) => {
      const m = w.shadowRoot.querySelector('[data-model=bert] ap-heatmap[data-role=mask]').matrix;
      return [m.rows, m.cols];
    });
    expect(size).toEqual([63, 63]);
    expect(errors).toEqual([]);
  }, 120_000);

  test("a word outside the masked LM's vocabulary is named, and BERT falls back to random weights (said)", async () => {
    const { errors, widget } = await openAlone('ap-bert-gpt', { model: 'grammar', text: 'the cat sat on the futon' });
    expect(await data(widget, 'bertTrained')).toBe('false');
    await expect(widget.locator('[data-model=bert] .untrained').textContent()).resolves.toMatch(/"futon"/);
    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-bert-gpt-unknown-word.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});

// On the English model (the page's default), both sides read English with one tokenizer: BERT's
// side is the English masked LM (web/models/english-mlm.safetensors), GPT's the English decoder.
// The view's guesses at the hidden token are the ones the same files give through the JS API in
// Node: the masked LM's row of the [MASK] token, and the decoder's row before it (after <|endoftext|>).
describe('bert-gpt on the English models', () => {
  const read = (name) => readFileSync(fileURLToPath(new URL(`../../web/models/${name}.safetensors`, import.meta.url)));
  let english, englishMlm;
  beforeAll(async () => {
    const ap = await load();
    [english, englishMlm] = await Promise.all([ap.openModel(read('english')), ap.openModel(read('english-mlm'))]);
  }, 120_000);

  test("a sentence of the student's: the masked LM's guesses at [MASK] and the decoder's from the left", async () => {
    const text = 'I went to the bank to deposit my check.';
    const ids = Array.from(englishMlm.tokenizer.encode(text).ids);
    const at = ids.indexOf(englishMlm.tokenizer.encode(' bank').ids[0]);
    expect(at).toBeGreaterThan(0);
    const topOf = (model, input, row) => {
      const tr = model.forward(Int32Array.from(input));
      const V = model.vocab.length;
      const p = tr.get('probs').slice(row * V, (row + 1) * V);
      tr.dispose();
      const best = p.indexOf(Math.max(...p));
      return { best, pBest: p[best], pTruth: p[ids[at]] };
    };
    const bert = topOf(
      englishMlm,
      ids.map((id, i) => (i === at ? englishMlm.specialTokens.mask : id)),
      at,
    );
    const gpt = topOf(english, [english.specialTokens.bos, ...ids], at); // row `at` predicts token `at`
    const { errors, widget } = await openAlone('ap-bert-gpt', { text, mask: at });
    expect(await data(widget, 'bertTrained')).toBe('true');
    await expect(widget.locator('[data-model=bert] .trained').textContent()).resolves.toMatch(
      /english-mlm\.safetensors/,
    );
    const [[bertId, bertP]] = JSON.parse(await data(widget, 'bertTop'));
    expect(bertId).toBe(bert.best);
    expect(bertP).toBeCloseTo(bert.pBest, 5);
    expect((await bertShown(widget)).truthP).toBeCloseTo(bert.pTruth, 5);
    const [[gptId, gptP]] = JSON.parse(await data(widget, 'gptTop'));
    expect(gptId).toBe(gpt.best);
    expect(gptP).toBeCloseTo(gpt.pBest, 5);
    await widget.screenshot({ path: join(SCREENSHOT_DIR, 'view-bert-gpt-english.png') });
    expect(errors).toEqual([]);
  }, 120_000);

  test('a text longer than the masked LM reads is cut, and said so; an empty text then leaves nothing of it', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const n = englishMlm.tokenizer.encode(text).ids.length;
    const max = englishMlm.config.maxLen;
    expect(n).toBeGreaterThan(max);
    const { errors, widget } = await openAlone('ap-bert-gpt', { text });
    const note = () => widget.evaluate((w) => w.shadowRoot.querySelector('.cut').textContent);
    await expect
      .poll(note, { timeout: 60_000 })
      .toBe(
        `The masked LM reads at most ${max} tokens (the decoder ${english.config.maxLen}); your text has ${n}, so the view reads its first ${max}.`,
      );
    expect(await widget.evaluate((w) => w.maskSel.options.length)).toBe(max);
    await widget.evaluate((w) => w.setAttribute('text', ''));
    await expect.poll(() => widget.evaluate((w) => w.maskSel.options.length), { timeout: 30_000 }).toBe(0);
    expect(await widget.evaluate((w) => w.shadowRoot.querySelector('.cut').hidden)).toBe(true);
    expect(await widget.evaluate((w) => w.shadowRoot.querySelector('.body').textContent)).toContain('Type some text.');
    expect(errors).toEqual([]);
  }, 120_000);

  test('with no position chosen it hides a whole word, not a piece of one', async () => {
    // By hand: "Shakespeare" is five pieces (S h akes pe are), the third token is "akes"; the first
    // whole word from the third token on is " and" (its own word: " E", the next piece, starts another).
    const text = 'Shakespeare and Einstein never met in London.';
    const pieces = englishMlm.tokenizer.encode(text).pieces;
    expect(pieces.slice(0, 6)).toEqual(['S', 'h', 'akes', 'pe', 'are', ' and']);
    const { errors, widget } = await openAlone('ap-bert-gpt', { text });
    await expect.poll(() => data(widget, 'mask'), { timeout: 60_000 }).toBe('5');
    expect(await widget.evaluate((w) => w.maskSel.selectedOptions[0].textContent)).toBe('5:  and');
    expect(errors).toEqual([]);
  }, 120_000);

  // context-embeddings on the English model: the notes' two "bank" sentences through the masked LM,
  // the cosines of the two "bank" vectors recomputed here from the same file.
  test('context-embeddings: the two "bank" vectors through the English masked LM, as computed in Node', async () => {
    const cosines = () => {
      const vectors = (text) => {
        const p = englishMlm.prompt(text);
        const at = p.pieces.findIndex((x) => x.trim() === 'bank');
        const d = englishMlm.config.dModel;
        const tr = englishMlm.forward(p.ids);
        try {
          const row = (stage, opts) => Array.from(tr.get(stage, opts).slice(at * d, (at + 1) * d));
          return [
            row('embed'),
            ...Array.from({ length: englishMlm.config.nLayers }, (_, layer) =>
              row(tr.blockOutput({ layer }), { layer }),
            ),
          ];
        } finally {
          tr.dispose();
        }
      };
      const A = vectors('I went to the bank to deposit my check.'),
        B = vectors('I sat by the river bank.');
      const dot = (x, y) => x.reduce((s, v, i) => s + v * y[i], 0);
      return A.map((a, k) => dot(a, B[k]) / Math.sqrt(dot(a, a) * dot(B[k], B[k])));
    };
    const want = cosines();
    const { page, errors } = await playground.open('/#concept=context-embeddings', {
      viewport: { width: 1366, height: 768 },
    });
    await page.waitForFunction(() => document.querySelector('ap-context-embeddings')?.dataset.rendered, null, {
      timeout: 60_000,
    });
    const w = page.locator('ap-context-embeddings');
    expect(await w.getAttribute('data-error')).toBeNull();
    const sims = JSON.parse(await w.getAttribute('data-sims'));
    expect(sims).toHaveLength(englishMlm.config.nLayers + 1);
    sims.forEach((s, k) => expect(s).toBeCloseTo(want[k], 4));
    expect(sims[0]).toBeCloseTo(1, 6); // one embedding row for " bank", whatever the sentence
    expect(sims.at(-1)).toBeLessThan(sims[0]);
    await expect(w.locator('.own-input').textContent()).resolves.toContain('the English masked language model');
    await w.screenshot({ path: join(SCREENSHOT_DIR, 'context-embeddings-english-1366.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});

describe('on the playground page and in the dark theme', () => {
  test('the three views render in their sections with no console errors', async () => {
    const { page, errors } = await playground.open('/#concept=bert-gpt', { viewport: { width: 1100, height: 900 } });
    for (const id of ['bert-gpt', 'training', 'quiz']) {
      await page.evaluate((c) => {
        location.hash = `concept=${c}`;
      }, id);
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, `ap-${id}`, { timeout: 30_000 });
      expect(await page.locator(`ap-${id}`).getAttribute('data-error'), id).toBeNull();
    }
    // The page does not start training by itself.
    expect(await page.locator('ap-training').evaluate((w) => !!w.worker)).toBe(false);
    expect(errors).toEqual([]);
  }, 120_000);

  test('dark theme: training (a few steps), quiz and bert-gpt render without errors', async () => {
    for (const tag of ['ap-training', 'ap-quiz', 'ap-bert-gpt']) {
      const { page, errors, widget } = await openAlone(tag, {}, { dark: true });
      if (tag === 'ap-training') {
        await widget.locator('.step').click();
        await page.waitForFunction(() => document.querySelector('ap-training').dataset.step === '25', null, {
          timeout: 120_000,
        });
      }
      await widget.screenshot({ path: join(SCREENSHOT_DIR, `view-${tag.slice(3)}-dark.png`) });
      expect(errors, tag).toEqual([]);
    }
  }, 240_000);
});
