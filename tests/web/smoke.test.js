// Smoke test of the page in headless Chromium: typed text is tokenised and its attention
// weights computed in the page's wasm module; the numbers on screen must equal the same
// model run through the JS API in Node, and every row of weights must sum to 1.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { usePlayground } from './harness.js';

const playground = usePlayground();
let ap;
beforeAll(async () => {
  ap = await load();
});

// Waits until the stepper shows the weights step for `text`, then reads the labels and cells
// of its table alternative. On a timeout the error says what went wrong in the page.
async function readWeightsTable({ page, errors }, text) {
  try {
    await page.waitForFunction((t) => {
      const s = document.querySelector('ap-stepper');
      return s?.dataset.text === t && s.dataset.stage === 'weights';
    }, text);
  } catch (err) {
    throw new Error(`no weights step for "${text}": ${err.message}\npage errors: ${JSON.stringify(errors)}`);
  }
  const out = page.locator('ap-stepper .out ap-heatmap');
  if ((await out.locator('details[open]').count()) === 0) await out.locator('summary').click();
  // the table alternative is built on the details' toggle event, which comes after the click
  // (locators pierce shadow roots, document.querySelector does not)
  await out.locator('table tbody tr').first().waitFor();
  const shown = await out.evaluate((h) => {
    const table = h.shadowRoot.querySelector('table');
    const labels = [...table.tHead.querySelectorAll('th[scope="col"]')].map((th) => ({
      text: th.textContent,
      unknown: th.classList.contains('unknown'),
    }));
    const cells = [...table.querySelectorAll('td[data-row]')].map((td) => ({
      row: Number(td.dataset.row),
      col: Number(td.dataset.col),
      value: Number(td.dataset.value),
      text: td.textContent,
    }));
    return { labels, cells };
  });
  return { ...shown, model: JSON.parse(await page.locator('ap-stepper').getAttribute('data-model')) };
}

// The same computation as the page, done in Node: layer 0, head 0 weights of `text`.
function weightsInNode({ config, seed }, text) {
  const model = ap.createModel(config, { seed });
  try {
    const enc = model.tokenizer.encode(text);
    const trace = model.forward(enc.ids);
    try {
      const [, n, m] = trace.shape('weights', { layer: 0 });
      const weights = Array.from(trace.get('weights', { layer: 0, head: 0 }));
      return { n, m, weights, pieces: enc.pieces, unknown: Array.from(enc.unknown) };
    } finally {
      trace.dispose();
    }
  } finally {
    model.dispose();
  }
}

describe('the page in headless Chromium', () => {
  test('typed text gets the same attention weights as the JS API in Node, rows summing to 1', async () => {
    const opened = await playground.open('/?model=random&step=decoder:0:weights#chapter=recap');
    const { page, errors } = opened;
    await readWeightsTable(opened, 'the cat sat on the mat'); // the default text, computed on load

    const input = page.locator('#text');
    await input.fill('the dog sat on the');
    await input.press('End');
    await page.keyboard.type(' rug .'); // real key presses, one input event each
    const text = 'the dog sat on the rug .';
    const shown = await readWeightsTable(opened, text);
    await playground.screenshot(page, 'smoke-weights');

    const node = weightsInNode(shown.model, text);
    expect(node.n).toBe(7);
    expect(node.m).toBe(7);
    expect(shown.labels.map((l) => l.text)).toEqual(['the', 'dog', 'sat', 'on', 'the', 'rug', '.']);
    expect(shown.cells).toHaveLength(7 * 7);

    // The number a student reads: token 0 ("the") attending to itself, to 3 decimals.
    const first = shown.cells.find((c) => c.row === 0 && c.col === 0);
    expect(Math.abs(Number(first.text) - node.weights[0])).toBeLessThanOrEqual(0.0005);

    // Every cell: the same float32 value as in Node (same wasm), shown rounded to 3 decimals.
    for (const c of shown.cells) {
      const expected = node.weights[c.row * node.m + c.col];
      // Chromium runs the relaxed-SIMD kernels, Node SIMD128: equal to float rounding.
      expect(Math.abs(c.value - expected), `cell (${c.row}, ${c.col})`).toBeLessThanOrEqual(1e-6);
      expect(c.text, `cell (${c.row}, ${c.col})`).toBe(c.value.toFixed(3));
    }

    // Softmax rows sum to 1; random weights do not give a uniform row.
    for (let i = 0; i < 7; i++) {
      const row = shown.cells.filter((c) => c.row === i).map((c) => c.value);
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
      expect(Math.max(...row) - Math.min(...row)).toBeGreaterThan(1e-4);
    }

    expect(errors).toEqual([]);
  });

  test('a word outside the vocabulary is flagged on the page, not dropped', async () => {
    const opened = await playground.open('/?model=random&step=decoder:0:weights#chapter=recap');
    const { page, errors } = opened;
    await readWeightsTable(opened, 'the cat sat on the mat');
    await page.locator('#text').fill('the zebra sat');
    const shown = await readWeightsTable(opened, 'the zebra sat');
    await playground.screenshot(page, 'smoke-unknown');

    expect(shown.labels).toEqual([
      { text: 'the', unknown: false },
      { text: 'zebra?', unknown: true },
      { text: 'sat', unknown: false },
    ]);
    await expect.poll(() => page.locator('#unknown').textContent()).toContain('zebra');
    expect(await page.locator('#unknown').isVisible()).toBe(true);
    expect(weightsInNode(shown.model, 'the zebra sat').unknown).toEqual([1]);
    expect(errors).toEqual([]);
  });
});
