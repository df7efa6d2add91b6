// Issue 23, a second reader's pass as a student: every sentence on the page is true and every view
// shows what it says. Each test below failed on the page the reader read.
//  1. softmax: on a phone the row's "weight (core)" column is on screen without scrolling sideways;
//     at 1366 the "All weights" table is not cut.
import { describe, expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const playground = usePlayground();
const PHONE = { width: 375, height: 812 };
const LAPTOP = { width: 1366, height: 900 };

/** Opens `path` and waits until the view `tag` has drawn (it draws once near the window). */
async function openView(path, tag, viewport) {
  const opened = await playground.open(path, { viewport });
  const { page } = opened;
  await page.waitForSelector(tag);
  await page.locator(tag).scrollIntoViewIfNeeded();
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60_000 });
  return opened;
}

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
