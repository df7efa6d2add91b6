// Issue 23, a second reader's pass as a student: every sentence on the page is true and every view
// shows what it says. Each test below failed on the page the reader read.
//  1. softmax: on a phone the row's "weight (core)" column is on screen without scrolling sideways;
//     at 1366 the "All weights" table is not cut.
import { describe, expect, test } from 'vitest';
import { openView as openShared, usePlayground } from './harness.js';

const playground = usePlayground();
const PHONE = { width: 375, height: 812 };
const LAPTOP = { width: 1366, height: 900 };

const openView = (path, tag, viewport) => openShared(playground, path, tag, viewport);

describe('1. the softmax tables', () => {
  // In the page: each column heading of the row's table, and how much of it its scroll box shows
  // when it has not been scrolled (right edge past the box's visible right: cut).
  const rowColumns = (w) => {
    const t = w.shadowRoot.querySelector('table.row-table');
    const box = t.getBoundingClientRect();
    const right = box.left + t.clientWidth;
    return {
      scrolled: t.scrollLeft,
      columns: [...t.querySelectorAll('thead th')].map((th) => ({
        text: th.textContent,
        cut: Math.round(th.getBoundingClientRect().right - right),
      })),
    };
  };

  test('on a phone the weight columns of the row are on screen without scrolling sideways', async () => {
    const { page, errors } = await openView('/#concept=softmax', 'ap-softmax', PHONE);
    const w = page.locator('ap-softmax');
    const weights = (cols) => cols.columns.filter((c) => c.text.startsWith('weight'));
    let cols = await w.evaluate(rowColumns);
    expect(cols.scrolled).toBe(0);
    expect(weights(cols).map((c) => c.text)).toEqual(['weight (core)']);
    for (const c of weights(cols)) expect(c.cut, c.text).toBeLessThanOrEqual(0);
    // A temperature other than 1 adds the tempered weights: on screen too.
    const before = await w.getAttribute('data-rendered');
    await w.locator('input[type="range"]').fill('1'); // log2 T = 1: T = 2
    await page.waitForFunction(
      () => document.querySelector('ap-softmax').shadowRoot.querySelectorAll('td.tempered').length > 0,
    );
    expect(await w.getAttribute('data-rendered')).toBe(before); // same text, same view
    cols = await w.evaluate(rowColumns);
    expect(weights(cols).map((c) => c.text)).toEqual(['weight (core)', 'weight at T = 2.00 (core)']);
    for (const c of weights(cols)) expect(c.cut, c.text).toBeLessThanOrEqual(0);
    // Each weight still sits in its key's row: the row sums to 1 in both weight columns.
    const sums = await w.evaluate((el) =>
      ['weight', 'tempered'].map((c) =>
        [...el.shadowRoot.querySelectorAll(`table.row-table td.${c}`)].reduce(
          (s, td) => s + Number(td.dataset.value),
          0,
        ),
      ),
    );
    for (const s of sums) expect(s).toBeCloseTo(1, 5);
    // The table rebuilds the tempered weights too: exp((s̃ − max) / T) over its sum, by hand here
    // from the scaled scores shown (T = 2), equals the core's tempered weight.
    const rows = await w.evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('table.row-table tbody tr:has(td.tempered)')].map((tr) => ({
        scaled: Number(tr.querySelector('td.scaled').textContent.replace('−', '-')),
        expT: Number(tr.querySelector('td.exp-t').textContent),
        tempered: Number(tr.querySelector('td.tempered').dataset.value),
      })),
    );
    const finite = rows.filter((r) => Number.isFinite(r.scaled));
    const max = Math.max(...finite.map((r) => r.scaled));
    const byHand = rows.map((r) => (Number.isFinite(r.scaled) ? Math.exp((r.scaled - max) / 2) : 0));
    const total = byHand.reduce((a, b) => a + b, 0);
    rows.forEach((r, j) => {
      expect(r.expT).toBeCloseTo(byHand[j], 2);
      expect(r.tempered).toBeCloseTo(byHand[j] / total, 2);
    });
    expect(errors).toEqual([]);
  });

  test('at 1366 the "All weights" table shows every column, the heatmap beside it whole', async () => {
    const { page, errors } = await openView('/#concept=softmax', 'ap-softmax', LAPTOP);
    const fit = await page.locator('ap-softmax').evaluate((w) => {
      const t = w.shadowRoot.querySelector('table.weights-table');
      const plot = w.shadowRoot.querySelector('ap-heatmap').shadowRoot.querySelector('.hm-plotwrap');
      return {
        keys: t.querySelectorAll('thead th').length - 1,
        table: t.scrollWidth - t.clientWidth,
        heatmap: plot.scrollWidth - plot.clientWidth,
        side: Math.round(
          w.shadowRoot.querySelector('ap-heatmap').getBoundingClientRect().top - t.getBoundingClientRect().top,
        ),
      };
    });
    expect(fit.keys).toBeGreaterThan(6); // the default text: 8 tokens with the start token
    expect(fit).toMatchObject({ table: 0, heatmap: 0 });
    expect(Math.abs(fit.side)).toBeLessThan(40); // beside the table, not under it
    expect(errors).toEqual([]);
  });
});

// 2. The softmax chapter's prompt printed the notes' table (.7 .2 .1 / .1 .6 .3 / .2 .3 .5) in the
//    view just above its own question "Which word does "sat" attend to most?", and opened the view
//    on the row of "cat". The prompt now asks first and the view opens on the row that answers.
describe('2. the "the cat sat" prompt asks before the view answers', () => {
  test('the prompt is the question; its button opens the row of "sat", whose largest weight answers it', async () => {
    const { page, errors } = await openView('/#chapter=B', 'ap-softmax', LAPTOP);
    const item = page.locator('aside.try[data-for="softmax"] li').filter({ hasText: 'the cat sat' });
    expect(await item.count()).toBe(1);
    const prompt = await item.locator('span').textContent();
    // The question is the prompt's first sentence; no weight of the answer is in it.
    const question = prompt.slice(0, prompt.indexOf('?') + 1);
    expect(question).toMatch(/^[^.:]*which word does "sat" attend to most\?$/i);
    expect(prompt).not.toMatch(/\.\d/);
    // Before the button, the view is on the student's own sentence: it prints none of the notes' table.
    const w = page.locator('ap-softmax');
    expect(await w.evaluate((e) => e.shadowRoot.textContent)).not.toContain('.7 .2 .1');

    await item.locator('button').click();
    await page.waitForFunction(
      () => {
        const e = document.querySelector('ap-softmax');
        return e.dataset.preset === 'softmax.the-cat-sat' && e.shadowRoot.querySelector('table.row-table');
      },
      null,
      { timeout: 30_000 },
    );
    const row = await w.evaluate((e) => {
      const t = e.shadowRoot.querySelector('table.row-table');
      return {
        row: t.dataset.row,
        caption: t.caption.textContent,
        weights: [...t.querySelectorAll('tbody tr:has(td.weight)')].map((tr) => [
          tr.querySelector('th').textContent,
          Number(tr.querySelector('td.weight').dataset.value),
        ]),
      };
    });
    // Notes 000: the row of "sat" is .2 .3 .5, so "sat" attends most to itself.
    expect(row.row).toBe('2');
    expect(row.caption).toMatch(/^Row "sat"/);
    expect(row.weights.map(([k]) => k)).toEqual(['the', 'cat', 'sat']);
    [0.2, 0.3, 0.5].forEach((v, j) => expect(row.weights[j][1]).toBeCloseTo(v, 5));
    const top = row.weights.reduce((a, b) => (b[1] > a[1] ? b : a));
    expect(top[0]).toBe('sat');

    // The next prompt ("Clouds", the weights of "sky") is not held on row 2 by this one.
    await page.locator('aside.try[data-for="softmax"] li').filter({ hasText: 'Clouds' }).locator('button').click();
    await page.waitForFunction(() => document.querySelector('ap-softmax').dataset.preset === 'softmax.clouds');
    await expect
      .poll(() => w.evaluate((e) => e.shadowRoot.querySelector('table.row-table').caption.textContent))
      .toMatch(/^Row "sky"/);
    expect(errors).toEqual([]);
  });
  // The prompt's row of "sat" belongs to its example: the student's own sentence afterwards opens
  // on its last token again (the view's default), not on row 2 of a text that is not there.
  test("after the prompt, the student's own sentence opens on its last token, not the prompt's row 2", async () => {
    const { page, errors } = await openView('/#chapter=B', 'ap-softmax', LAPTOP);
    const w = page.locator('ap-softmax');
    await page.locator('aside.try[data-for="softmax"] li').filter({ hasText: 'the cat sat' }).locator('button').click();
    await page.waitForFunction(() => document.querySelector('ap-softmax').dataset.preset === 'softmax.the-cat-sat');
    expect(await w.getAttribute('row')).toBe('2');
    // The model picker back to the trained model, then a sentence of the student's own.
    await page.locator('ap-controls #model').selectOption('english');
    // The weighted sum below has drawn the default sentence (on its last row) before the student types.
    const ws = page.locator('ap-weighted-sum');
    await ws.scrollIntoViewIfNeeded();
    const before = await ws.evaluate(async (e) => {
      while (!e.shadowRoot.querySelector('select')?.options.length) await new Promise((r) => setTimeout(r, 50));
      return e.shadowRoot.querySelector('select').options.length;
    });
    await page.locator('#text').fill('my little sister plays the violin every single evening after school');
    await w.scrollIntoViewIfNeeded(); // views draw when near the window
    // The row shown is the last of the new sentence's rows (the model is causal: every key is in it).
    const rowShown = () =>
      w.evaluate((e) => {
        const t = e.shadowRoot.querySelector('table.row-table');
        return { row: Number(t?.dataset.row), keys: t?.querySelectorAll('tbody tr:has(td.weight)').length };
      });
    await expect.poll(async () => (await rowShown()).keys, { timeout: 30_000 }).toBeGreaterThan(before);
    const shown = await rowShown();
    expect(shown.keys).toBeGreaterThan(4);
    expect(shown, JSON.stringify(shown)).toMatchObject({ row: shown.keys - 1 });
    expect(await w.getAttribute('row')).toBe(null);
    // The weighted sum, in the same chapter, also opens on the new sentence's last row.
    await ws.scrollIntoViewIfNeeded();
    await expect
      .poll(() =>
        ws.evaluate((e, keys) => {
          const sel = e.shadowRoot.querySelector('select');
          return sel && sel.options.length === keys ? sel.value : null;
        }, shown.keys),
      )
      .toBe(String(shown.keys - 1));
    expect(errors).toEqual([]);
  });
});

// 4. rnn-chain's "Back to the last word" set t="99", past the end of every text the view reads, so
//    the view clamped it and said so in the console. The prompt now removes t: the view's default
//    is the last word, whatever the length.
describe('4. rnn-chain: back to the last word without a warning', () => {
  test('both prompts move the view, and neither makes it warn', async () => {
    const { page, errors, warnings } = await openView('/#chapter=A', 'ap-rnn-chain', LAPTOP);
    const view = page.locator('ap-rnn-chain');
    const step = () => view.evaluate((w) => w.shadowRoot.textContent.match(/t = (\d+) of (\d+):/)?.slice(1, 3));
    await expect.poll(step, { timeout: 30_000 }).toBeTruthy();
    const [, n] = await step();
    const buttons = page.locator('aside.try[data-for="rnn-chain"] button');
    await buttons.nth(0).click();
    await expect.poll(step).toEqual(['1', n]);
    await buttons.nth(1).click();
    await expect.poll(step).toEqual([n, n]);
    expect(warnings.filter((w) => w.includes('<ap-rnn-chain>'))).toEqual([]);
    expect(await view.getAttribute('t')).toBe(null);
    expect(errors).toEqual([]);
  });
});

// 3. rnn-vanishing at ρ = 0.9: the summary said the gradient "falls to 8.31e−3 at 31 steps back"
//    under a table whose numbers first rise (1.715, 2.349, 2.848 at 1 to 3 steps back), and 31 was
//    not in the table. Its formula, one line of the RNN's product and attention's sum, was cut at
//    375 px.
describe('3. rnn-vanishing: the summary follows the numbers in its table; the formula fits a phone', () => {
  // The table's rows and the summary's moves ("rises to V at k steps back"), as shown.
  const read = (w) => {
    const rows = [...w.shadowRoot.querySelectorAll('table.grad-norms tbody tr')].map((tr) => ({
      steps: Number(tr.querySelector('th').textContent),
      text: tr.querySelector('td').textContent,
      value: Number(tr.querySelector('td').dataset.value),
    }));
    const summary = w.shadowRoot.querySelector('.summary').textContent;
    const moves = [...summary.matchAll(/(rises|falls)(?: again)? to ([\d.e+−-]+) at (\d+) steps? back/g)].map((m) => ({
      dir: m[1],
      text: m[2],
      steps: Number(m[3]),
    }));
    const lead = summary.match(/from (\d+) steps back \(the first token\) has norm ([\d.e+−-]+)/);
    return { rows, moves, lead: lead && { steps: Number(lead[1]), text: lead[2] }, T: Number(w.dataset.length) };
  };

  test('at ρ = 0.9 every value the summary names is a row of the table, and goes the way the rows go', async () => {
    const { page, errors } = await openView('/#concept=rnn-vanishing', 'ap-rnn-vanishing', LAPTOP);
    const w = page.locator('ap-rnn-vanishing');
    expect(await w.getAttribute('data-radius')).toBe('0.9');
    const { rows, moves, lead, T } = await w.evaluate(read);
    const row = (k) => rows.find((r) => r.steps === k);
    // The state the student read: the norm first rises above its 1 at distance 0.
    expect(rows[0]).toMatchObject({ steps: 1 });
    expect(rows[0].value).toBeGreaterThan(1.5);
    expect(moves.length).toBeGreaterThan(0);
    expect(moves[0].dir).toBe('rises');
    let from = { steps: 0, value: 1 };
    for (const m of moves) {
      const r = row(m.steps);
      expect(r, `${m.steps} steps back is in the table`).toBeTruthy();
      expect(m.text).toBe(r.text);
      expect(m.steps).toBeGreaterThan(from.steps);
      expect(m.dir, `${from.steps} → ${m.steps}`).toBe(r.value > from.value ? 'rises' : 'falls');
      // Between two named points the table's rows go no further the other way than the named end.
      for (const between of rows.filter((x) => x.steps > from.steps && x.steps < m.steps))
        if (m.dir === 'rises') expect(between.value).toBeLessThanOrEqual(r.value);
        else expect(between.value).toBeGreaterThanOrEqual(r.value);
      from = r;
    }
    expect(from.steps).toBe(T - 1); // the last move ends at the first token
    expect(lead).toEqual({ steps: T - 1, text: row(T - 1).text });
    expect(errors).toEqual([]);
  });

  test('on a phone the formula is not cut: nothing of it is past its box or the view', async () => {
    const { page, errors } = await openView('/#concept=rnn-vanishing', 'ap-rnn-vanishing', PHONE);
    const boxes = await page.locator('ap-rnn-vanishing').evaluate((w) => {
      const body = w.shadowRoot.querySelector('.body').getBoundingClientRect();
      return [...w.shadowRoot.querySelectorAll('.formula')].map((f) => ({
        hidden: f.scrollWidth - f.clientWidth,
        past: Math.round(f.getBoundingClientRect().right - body.right),
      }));
    });
    expect(boxes.length).toBeGreaterThan(0);
    for (const b of boxes) {
      expect(b.hidden).toBeLessThanOrEqual(0);
      expect(b.past).toBeLessThanOrEqual(0);
    }
    expect(errors).toEqual([]);
  });
});

// 5. Error lines began with the wrapper's name of the call that failed ("forward: input is empty
//    ..."), a name the student never typed. The page shows the core's own words (the wrapper's
//    coreMessage, read in one place: lib/dom.js errorText).
describe("5. an error line is the core's message, without the call's name", () => {
  test('an empty text: the view says what the core says, with no "forward:" before it', async () => {
    const { page, errors } = await openView('/#concept=softmax', 'ap-softmax', LAPTOP);
    await page.locator('#text').fill('');
    await page.locator('ap-softmax').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('ap-softmax').dataset.error, null, { timeout: 30_000 });
    const shown = await page.locator('ap-softmax').evaluate((w) => ({
      data: w.dataset.error,
      line: w.shadowRoot.querySelector('.error').textContent,
    }));
    // The core's check for an empty input (cpp/core/model.cpp check_ids), word for word.
    expect(shown).toEqual({
      data: 'input is empty (n = 0): type at least one token',
      line: 'input is empty (n = 0): type at least one token',
    });
    expect(errors).toEqual([]);
  });
});

// 6. model-sizes: the sentence on why a computed total differs from the published one was drawn as
//    an error (the orange box of .warn) whenever the difference passed 1 %. It explains, it is not
//    an error: it looks like the view's other notes.
describe('6. model-sizes: the note on published counts is a note', () => {
  test('for every published model, the note under the totals has the note style, not the error style', async () => {
    const { page, errors } = await openView('/#concept=model-sizes', 'ap-model-sizes', LAPTOP);
    const w = page.locator('ap-model-sizes');
    const buttons = w.locator('button[data-preset]');
    const ids = (await buttons.evaluateAll((bs) => bs.map((b) => b.dataset.preset))).filter((id) => id !== 'hf');
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const looks = [];
    for (const id of ids) {
      await w.locator(`button[data-preset="${id}"]`).click();
      await expect.poll(() => w.evaluate((e) => e.dataset.published ?? null)).not.toBe(null);
      looks.push(
        await w.evaluate((e, preset) => {
          const box = e.shadowRoot.querySelector('.ms-published');
          const said = box.lastElementChild; // the sentence under the table
          const note = box.querySelector('.ms-source'); // the view's note style, just above
          const style = (n) => {
            const cs = getComputedStyle(n);
            return { color: cs.color, background: cs.backgroundColor };
          };
          return {
            preset,
            diff: Math.abs(Number(e.dataset.diff)),
            tag: said.localName,
            warns: said.matches('.warn, .error, [role="alert"]'),
            same: JSON.stringify(style(said)) === JSON.stringify(style(note)),
          };
        }, id),
      );
    }
    // At least one published total is more than 1 % from the computed one (the case drawn as an error).
    expect(looks.some((l) => l.diff > 0.01)).toBe(true);
    for (const l of looks) expect(l, l.preset).toMatchObject({ tag: 'p', warns: false, same: true });
    expect(errors).toEqual([]);
  });
});

// 7. The header's "Copy link" button moved once the page's script had written the theme button's
//    label (36 px on a phone, where the label's word folds away: a layout shift). The page is held
//    before its script runs, the buttons measured, then the script let go and the page left to
//    settle: nothing in the header has moved, on a phone and on a laptop, light and dark.
describe('7. the header does not move when the page starts', () => {
  for (const [viewport, colorScheme] of [
    [PHONE, 'light'],
    [PHONE, 'dark'],
    [LAPTOP, 'light'],
    [LAPTOP, 'dark'],
  ])
    test(`${viewport.width} px, ${colorScheme}: "Copy link" and the theme button keep their places`, async () => {
      const context = await playground.browser.newContext({ viewport, colorScheme });
      try {
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
        let release;
        const held = new Promise((resolve) => (release = resolve));
        await page.route(/\/main\.js(\?|$)/, async (route) => {
          await held;
          await route.continue();
        });
        // (The document is parsed while its module script waits: DOMContentLoaded waits for it.)
        await page.goto(new URL('/#chapter=A', playground.baseUrl).href, { waitUntil: 'commit' });
        await page.waitForFunction(
          () =>
            document.getElementById('copy-note') &&
            [...document.styleSheets].some((s) => s.href?.includes('style.css') && s.cssRules.length > 0),
        );
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
        const place = () =>
          page.evaluate(() =>
            Object.fromEntries(
              ['copy-link', 'theme-toggle'].map((id) => {
                const r = document.getElementById(id).getBoundingClientRect();
                return [id, [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10)];
              }),
            ),
          );
        const before = await place();
        expect(await page.evaluate(() => !!document.querySelector('section.chapter'))).toBe(false); // not started
        release();
        await page.waitForFunction(
          () => document.querySelector('section.chapter [data-concept]')?.dataset.rendered,
          null,
          {
            timeout: 60_000,
          },
        );
        // The script has written the label for this colour scheme.
        expect(await page.locator('#theme-toggle').getAttribute('aria-label')).toBe(
          colorScheme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme',
        );
        expect(await place()).toEqual(before);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
});
