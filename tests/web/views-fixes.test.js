// The four views of issue 12 item 3 in headless Chromium: scale (the notes' d_k = 512 case shows
// unscaled weights saturated and scaled ones spread), heads (one colour scale for all heads, one
// line per head naming its pattern, checked against the pattern computed here from the weights),
// block (the block as the notes draw it, two residual paths, boxes that open their stage, pre-norm
// redraws) and model-sizes (each published total labelled with its source). Each alone in a plain
// page and on the playground page by #concept=. Expected numbers are computed here: sqrt(d_k), the
// std of q.k, the largest weight per row, the previous-token weight, from the core in Node.
// Screenshots: tests/web/screenshots/fixes-<view>-<width>.png at 1366x768 and 375x812.
import { beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { load } from '../../wasm/index.js';
import { ROOT, SCREENSHOT_DIR, usePlayground } from './harness.js';
import { LESSONS, measuredPlace } from '../../web/lib/lessons.js';

const playground = usePlayground();
let ap;
beforeAll(async () => {
  ap = await load();
});

const TEXT = 'the cat sat on the mat';
const WIDTHS = { wide: { width: 1366, height: 768 }, phone: { width: 375, height: 812 } };

// A plain page with only the four views, served from the dev server's origin through a route.
const page4 = (body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>views</title></head>
<body style="margin: 12px; max-width: 1200px">
  ${body}
  <script type="module">
    import '/components/ap-scale.js';
    import '/components/ap-heads.js';
    import '/components/ap-block.js';
    import '/components/ap-model-sizes.js';
  </script>
</body></html>`;

const openAlone = (body, viewport = WIDTHS.wide) =>
  playground.openHtml(page4(body), { path: '/views-fixes.html', viewport });

async function rendered(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => document.querySelector(s)?.dataset.rendered, selector, { timeout: 30_000 });
}

const shot = (locator, name) => locator.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });

const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
const std = (a) => {
  const m = mean(a);
  return Math.sqrt(mean(a.map((v) => (v - m) ** 2)));
};

describe("scale: the notes' case d_k = 512", () => {
  test('unscaled largest weight > 0.9, scaled < 0.6, the spread of q.k near sqrt(512); the same numbers as the core in Node', async () => {
    const { page, errors } = await openAlone('<ap-scale></ap-scale>');
    await rendered(page, 'ap-scale');
    const w = page.locator('ap-scale');
    const d = await w.evaluate((x) => ({ ...x.dataset }));
    // sqrt(d_k) computed here; the notes: 22.6
    expect(Number(d.notesDk)).toBe(512);
    expect(Math.sqrt(512).toFixed(1)).toBe('22.6');
    // Var(q.k) = d_k: 25 scores estimate the std to about 14%, so within 30% of sqrt(512)
    expect(Math.abs(Number(d.notesScoreStd) / Math.sqrt(512) - 1)).toBeLessThan(0.3);
    expect(Number(d.notesUnscaledMax)).toBeGreaterThan(0.9);
    expect(Number(d.notesScaledMax)).toBeLessThan(0.6);

    // The same preset in Node, through the same core: the std and the two softmaxes by hand.
    const inp = ap.presets.get('scale.d512');
    const t = ap.presets.run('scale.d512');
    const s = Array.from(t.get('scores'));
    t.dispose();
    expect(Number(d.notesScoreStd)).toBeCloseTo(std(s), 2);
    const softmax = (row, k) => {
      const m = Math.max(...row.map((v) => v / k));
      const e = row.map((v) => Math.exp(v / k - m));
      const z = mean(e) * e.length;
      return e.map((v) => v / z);
    };
    const rows = [0, 1, 2, 3, 4].map((i) => s.slice(i * 5, i * 5 + 5));
    const hand = (k) => mean(rows.map((r) => Math.max(...softmax(r, k))));
    expect(Number(d.notesUnscaledMax)).toBeCloseTo(hand(1), 3);
    expect(Number(d.notesScaledMax)).toBeCloseTo(hand(Math.sqrt(inp.dModel)), 3);
    // What the student reads: the two means, side by side, unscaled first.
    const shown = await w.evaluate((x) =>
      [...x.shadowRoot.querySelectorAll('.scale-notes b')].map((b) => b.textContent),
    );
    expect(shown).toEqual([hand(1).toFixed(2), hand(Math.sqrt(512)).toFixed(2)]);
    const maps = await w.evaluate((x) =>
      [...x.shadowRoot.querySelectorAll('.scale-notes ap-heatmap')].map((h) => ({
        rows: h.matrix.rows,
        domain: h.matrix.domain,
      })),
    );
    expect(maps).toEqual([
      { rows: 5, domain: [0, 1] },
      { rows: 5, domain: [0, 1] },
    ]);
    expect(await w.locator('.scale-verdict').textContent()).toMatch(/extremely peaked/);
    for (const [k, vp] of Object.entries(WIDTHS)) {
      await page.setViewportSize(vp);
      await shot(w, `fixes-scale-${k}`);
    }
    expect(errors).toEqual([]);
  });

  test('the preset button shows the same case in the step-by-step part, with the ratio sqrt(512) = 22.6', async () => {
    const { page, errors } = await openAlone('<ap-scale preset="scale.d512"></ap-scale>');
    await rendered(page, 'ap-scale');
    const w = page.locator('ap-scale');
    expect(await w.locator('.sqrt-dk').textContent()).toBe('22.6');
    // the lower side by side: unscaled then scaled, both from the preset
    const tops = await w.evaluate((x) =>
      [...x.shadowRoot.querySelectorAll('.col2:not(.scale-notes) ap-heatmap')].map((h) => h.matrix.title),
    );
    expect(tops[0]).toMatch(/not scaled/);
    expect(tops[1]).toMatch(/scaled by √512/);
    expect(errors).toEqual([]);
  });
});

describe('heads on the trained grammar model', () => {
  /** The view's maps (values, labels, masks) as the page drew them. */
  const readHeads = (w) =>
    w.evaluate((x) =>
      [...x.shadowRoot.querySelectorAll('.head-card')].map((c) => {
        const m = c.querySelector('ap-heatmap').matrix;
        return {
          head: Number(c.dataset.head),
          pattern: c.dataset.pattern,
          line: c.querySelector('.head-pattern').textContent,
          values: Array.from(m.values),
          rows: m.rows,
          cols: m.cols,
          labels: m.colLabels,
          masked: m.masked ? Array.from(m.masked) : null,
          domain: m.domain,
          drawn: c.querySelector('ap-heatmap')._scale?.domain ?? null,
        };
      }),
    );

  test('one colour domain for all heads by default; the switch gives each head its own', async () => {
    const { page, errors } = await openAlone(`<ap-heads model="grammar" text="${TEXT}"></ap-heads>`);
    await rendered(page, 'ap-heads');
    const w = page.locator('ap-heads');
    let heads = await readHeads(w);
    expect(heads.length).toBe(4);
    for (const h of heads) expect(h.drawn).toEqual([0, 1]);
    expect(await w.getAttribute('data-colors')).toBe('shared');
    await w.locator('input[data-input="shared-scale"]').uncheck();
    await expect.poll(() => w.getAttribute('data-colors')).toBe('per-head');
    heads = await readHeads(w);
    // own scale: 0 .. that head's largest weight among the rows with a choice (the first row of a
    // causal head sees only itself: its 1 would make every scale 0 .. 1 again); maxima differ
    const ownMax = (h) => {
      let mx = 0;
      for (let i = 0; i < h.rows; i++) {
        let seen = 0;
        for (let j = 0; j < h.cols; j++) if (!h.masked || !h.masked[i * h.cols + j]) seen++;
        if (seen >= 2) for (let j = 0; j < h.cols; j++) mx = Math.max(mx, h.values[i * h.cols + j]);
      }
      return mx;
    };
    for (const h of heads) expect(h.drawn).toEqual([0, ownMax(h)]);
    expect(new Set(heads.map((h) => h.drawn[1].toFixed(4))).size).toBeGreaterThan(1);
    expect(await w.locator('[data-control="colors"]').textContent()).toMatch(/one colour scale for all heads/);
    expect(errors).toEqual([]);
  });

  test('each head has one line naming its pattern; the previous-token head is the one found here from the weights', async () => {
    const { page, errors } = await openAlone(`<ap-heads model="grammar" text="${TEXT}"></ap-heads>`);
    await rendered(page, 'ap-heads');
    const w = page.locator('ap-heads');
    const heads = await readHeads(w);
    // The maps are the core's weights: the same model in Node, <bos> + the text.
    const model = ap.loadModel((await readFile(join(ROOT, 'web', 'models', 'grammar.safetensors'))).buffer);
    const ids = Int32Array.from([2, ...model.tokenizer.encode(TEXT).ids]);
    const trace = model.forward(ids);
    const n = ids.length;
    try {
      expect(heads[0].labels).toEqual(['<bos>', ...TEXT.split(' ')]);
      for (const h of heads) {
        const ref = trace.get('weights', { layer: 0, head: h.head });
        h.values.forEach((v, k) => expect(Math.abs(v - ref[k])).toBeLessThan(1e-5));
      }
    } finally {
      trace.dispose();
      model.dispose();
    }
    // Previous-token weight by hand: mean over rows 1..n-1 of w[i][i-1] (row 0 sees only itself).
    const prev = heads.map((h) => mean(Array.from({ length: n - 1 }, (_, k) => h.values[(k + 1) * n + k])));
    const best = prev.indexOf(Math.max(...prev));
    expect(prev[best]).toBeGreaterThan(0.5); // a real previous-token head in this trained model
    expect(heads[best].pattern).toBe('previous');
    expect(heads[best].line).toContain(`previous token: ${prev[best].toFixed(2)} of the weight on average`);
    // ... and what evenly spread weights would give there: mean of 1/(i+1) over the same rows
    const even = mean(Array.from({ length: n - 1 }, (_, k) => 1 / (k + 2)));
    expect(heads[best].line).toContain(`(${even.toFixed(2)} if spread evenly)`);
    // every head has exactly one line, under its map
    for (const h of heads) expect(h.line.length).toBeGreaterThan(10);
    expect(await w.locator('.head-card .head-pattern').count()).toBe(heads.length);
    // Readable: at 1366 px a map's cells are large enough for the numbers, labels are in HTML
    await expect
      .poll(() => w.evaluate((x) => x.shadowRoot.querySelector('.head-card ap-heatmap')._cellW))
      .toBeGreaterThanOrEqual(28);
    await shot(w, 'fixes-heads-wide');
    await page.setViewportSize(WIDTHS.phone);
    // at 375 px one map per row, as wide as the view allows
    await expect
      .poll(() =>
        w.evaluate((x) => {
          const r = x.shadowRoot;
          return (
            r.querySelector('.head-card').getBoundingClientRect().width /
            r.querySelector('.heads-grid').getBoundingClientRect().width
          );
        }),
      )
      .toBeGreaterThan(0.95);
    await shot(w, 'fixes-heads-phone');
    expect(errors).toEqual([]);
  });

  test('on the char models (reverse, sort) every head still gets a line and a shared scale', async () => {
    const { page, errors } = await openAlone(
      '<ap-heads model="reverse" text="abcdef"></ap-heads><ap-heads model="sort" text="dcba97"></ap-heads>',
    );
    for (const sel of ['ap-heads[model="reverse"]', 'ap-heads[model="sort"]']) {
      await rendered(page, sel);
      const w = page.locator(sel);
      expect(await w.getAttribute('data-error')).toBeNull();
      const heads = await readHeads(w);
      expect(heads.length).toBeGreaterThan(1);
      for (const h of heads) {
        expect(h.drawn).toEqual([0, 1]);
        expect(h.line).toMatch(/token|word|broad|no fixed place/);
      }
      await shot(w, `fixes-heads-${await w.getAttribute('model')}`);
    }
    expect(errors).toEqual([]);
  });
});

describe('block: the block as the notes draw it', () => {
  const readBlock = (w) =>
    w.evaluate((x) => {
      const r = x.shadowRoot;
      return {
        boxes: [...r.querySelectorAll('svg .box')].map((g) => ({
          id: g.dataset.box,
          role: g.getAttribute('role'),
          name: g.getAttribute('aria-label'),
          pressed: g.getAttribute('aria-pressed'),
        })),
        residuals: [...r.querySelectorAll('svg path.residual')].map((p) => ({
          from: p.dataset.from,
          to: p.dataset.to,
          skips: p.dataset.skips,
          d: p.getAttribute('d'),
        })),
        stage: x.dataset.stage,
        step: r.querySelector('.block-stage').dataset.step,
        outName: r.querySelector('.block-stage .out ap-heatmap')?.matrix?.name ?? null,
      };
    });

  test('post-norm: X -> attention -> Add & Norm -> FFN -> Add & Norm, two residual paths that skip the sublayers', async () => {
    const { page, errors } = await openAlone(`<ap-block model="grammar" text="${TEXT}"></ap-block>`);
    await rendered(page, 'ap-block');
    const w = page.locator('ap-block');
    const b = await readBlock(w);
    expect(b.boxes.map((x) => x.id)).toEqual(['input', 'attn', 'add1', 'ffn', 'add2', 'output']);
    expect(b.boxes.find((x) => x.id === 'attn').name).toMatch(/Multi-Head Attention/);
    expect(b.boxes.filter((x) => x.id.startsWith('add')).map((x) => x.name.split(':')[0])).toEqual([
      'Add & Norm',
      'Add & Norm',
    ]);
    // Two residual paths: around the attention from X into the first Add & Norm, around the FFN
    // from the first Add & Norm into the second.
    expect(b.residuals.map(({ from, to, skips }) => ({ from, to, skips }))).toEqual([
      { from: 'input', to: 'add1', skips: 'attn' },
      { from: 'add1', to: 'add2', skips: 'ffn' },
    ]);
    // Each path goes out to the side and back (M, H, V, H): it skips, it does not pass through.
    for (const r of b.residuals) expect(r.d).toMatch(/^M[\d.]+,[\d.]+ H[\d.]+ V[\d.]+ H[\d.]+$/);
    // Opens on the attention box, showing the softmax weights of the core.
    expect(b.stage).toBe('attn');
    expect(b.outName).toBe('weights');
    // The boxes that open a stage are buttons with names
    for (const x of b.boxes.filter((y) => y.id !== 'output')) expect(x.role).toBe('button');
    await shot(w, 'fixes-block-post-wide');
    expect(errors).toEqual([]);
  });

  test('a box opens its stage inline (FFN: X W_1 + b_1 from the core), by click and by keyboard; the stepper link is an event', async () => {
    const { page, errors } = await openAlone(`<ap-block model="grammar" text="${TEXT}"></ap-block>`);
    await rendered(page, 'ap-block');
    const w = page.locator('ap-block');
    await w.locator('svg .box[data-box="ffn"]').click();
    await expect.poll(() => w.getAttribute('data-stage')).toBe('ffn');
    let b = await readBlock(w);
    expect(b.step).toBe('decoder:0:ffn_hidden');
    expect(b.outName).toBe('ffn_hidden');
    expect(b.boxes.find((x) => x.id === 'ffn').pressed).toBe('true');
    // The numbers are the core's: the FFN's hidden layer of the same model in Node.
    const model = ap.loadModel((await readFile(join(ROOT, 'web', 'models', 'grammar.safetensors'))).buffer);
    const trace = model.forward(Int32Array.from([2, ...model.tokenizer.encode(TEXT).ids]));
    try {
      const ref = trace.get('ffn_hidden', { layer: 0 });
      const shown = await w.evaluate((x) =>
        Array.from(x.shadowRoot.querySelector('.block-stage .out ap-heatmap').matrix.values),
      );
      expect(shown.length).toBe(ref.length);
      shown.forEach((v, k) => expect(Math.abs(v - ref[k])).toBeLessThan(1e-4 * Math.max(1, Math.abs(ref[k]))));
    } finally {
      trace.dispose();
      model.dispose();
    }
    // keyboard: focus the second Add & Norm and press Enter; then its norm step
    await w.locator('svg .box[data-box="add2"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => w.getAttribute('data-stage')).toBe('add2');
    await w.locator('.block-substeps button[data-step="decoder:0:norm2"]').click();
    await expect.poll(async () => (await readBlock(w)).outName).toBe('norm2');
    // the walk-through link dispatches ap-goto-step with the step id
    const step = await w.evaluate(
      (x) =>
        new Promise((resolve) => {
          x.addEventListener('ap-goto-step', (e) => resolve(e.detail.step), { once: true });
          x.shadowRoot.querySelector('.goto-step').click();
        }),
    );
    expect(step).toBe('decoder:0:norm2');
    expect(errors).toEqual([]);
  });

  test('pre-norm redraws: LayerNorm before each sublayer, Add after, a final LayerNorm after the last layer; layers selectable', async () => {
    const { page, errors } = await openAlone(`<ap-block model="grammar" text="${TEXT}"></ap-block>`);
    await rendered(page, 'ap-block');
    const w = page.locator('ap-block');
    await w.locator('button[data-norm="pre"]').click();
    await expect.poll(() => w.getAttribute('data-norm')).toBe('pre');
    let b = await readBlock(w);
    expect(b.boxes.map((x) => x.id)).toEqual(['input', 'norm1', 'attn', 'add1', 'norm2', 'ffn', 'add2', 'output']);
    expect(b.residuals.map(({ from, to }) => [from, to])).toEqual([
      ['input', 'add1'],
      ['add1', 'add2'],
    ]);
    // the last layer ends with the final LayerNorm
    await w.locator('button[aria-label="layer 1"]').click();
    await expect.poll(() => w.getAttribute('data-layer')).toBe('1');
    b = await readBlock(w);
    expect(b.boxes.map((x) => x.id)).toEqual([
      'input',
      'norm1',
      'attn',
      'add1',
      'norm2',
      'ffn',
      'add2',
      'final',
      'output',
    ]);
    expect(b.boxes[0].name).toMatch(/output of layer 0/);
    await shot(w, 'fixes-block-pre-wide');
    await page.setViewportSize(WIDTHS.phone);
    await w.locator('button[data-norm="post"]').click();
    await expect.poll(() => w.getAttribute('data-norm')).toBe('post');
    // at 375 px the diagram fits the screen
    const width = await w.evaluate(
      (x) => x.shadowRoot.querySelector('.block-diagram svg').getBoundingClientRect().right,
    );
    expect(width).toBeLessThanOrEqual(375);
    await shot(w, 'fixes-block-post-phone');
    expect(errors).toEqual([]);
  });
  test('a decoder layer of an encoder-decoder (dates) adds its cross-attention box and a third residual path', async () => {
    const { page, errors } = await openAlone('<ap-block model="dates" text="22 Nov 2026"></ap-block>');
    await rendered(page, 'ap-block');
    const w = page.locator('ap-block');
    expect(await w.getAttribute('data-error')).toBeNull();
    const b = await readBlock(w);
    expect(b.boxes.map((x) => x.id)).toEqual(['input', 'attn', 'add1', 'cross', 'addc', 'ffn', 'add2', 'output']);
    expect(b.residuals.map(({ from, to, skips }) => [from, to, skips])).toEqual([
      ['input', 'add1', 'attn'],
      ['add1', 'addc', 'cross'],
      ['addc', 'add2', 'ffn'],
    ]);
    await w.locator('svg .box[data-box="cross"]').click();
    await expect.poll(async () => (await readBlock(w)).outName).toBe('cross_weights');
    await shot(w, 'fixes-block-dates-wide');
    expect(errors).toEqual([]);
  });
});

describe('model-sizes: every total labelled with its true source', () => {
  test('65M and 213M from Vaswani et al. 2017, 110M from Devlin et al. 2018, only 175B from the notes', async () => {
    const { page, errors } = await openAlone('<ap-model-sizes></ap-model-sizes>');
    await rendered(page, 'ap-model-sizes');
    const w = page.locator('ap-model-sizes');
    const expectSource = async (id, total, cite) => {
      await w.locator(`button[data-preset="${id}"]`).click();
      await expect.poll(() => w.getAttribute('data-published')).toBe(String(total));
      expect(await w.getAttribute('data-source')).toBe(cite);
      expect(await w.locator('.ms-cite').textContent()).toBe(`published (${cite})`);
      return w.locator('.ms-source').textContent();
    };
    expect(await expectSource('original', 65e6, 'Vaswani et al. 2017')).not.toMatch(/65M[^.]*notes 004/i);
    expect(await expectSource('original-big', 213e6, 'Vaswani et al. 2017')).toMatch(/Not in the notes/);
    expect(await expectSource('bert-base', 110e6, 'Devlin et al. 2018')).toMatch(/not its total/);
    expect(await expectSource('gpt3', 175e9, 'Notes 004')).toMatch(/Brown et al\. 2020/);
    const lead = await w.locator('.ms-lead').textContent();
    expect(lead).toMatch(/175B parameters \(the only total the notes give\)/);
    expect(lead).toMatch(/65M \(base\) and 213M \(big\) from Vaswani et al\. 2017/);
    expect(lead).toMatch(/110M \(BERT-base\) from Devlin et al\. 2018/);
    // nowhere a paper's total credited to the notes
    expect(await w.evaluate((x) => x.shadowRoot.textContent)).not.toMatch(/\((65|110|213)M\); notes/);
    for (const [k, vp] of Object.entries(WIDTHS)) {
      await page.setViewportSize(vp);
      await shot(w, `fixes-model-sizes-${k}`);
    }
    expect(errors).toEqual([]);
  });
});

describe('on the playground page', () => {
  test('#concept= opens each of the four views with no console errors', async () => {
    for (const id of ['scale', 'heads', 'block', 'model-sizes']) {
      const p = await playground.open(`/#concept=${id}`, { viewport: WIDTHS.wide });
      await rendered(p.page, `ap-${id}`);
      expect(await p.page.locator(`ap-${id}`).getAttribute('data-error'), id).toBeNull();
      await shot(p.page.locator(`ap-${id}`), `fixes-page-${id}-wide`);
      expect(p.errors, id).toEqual([]);
    }
  });

  test("the heads prompt about commas moves the view to the measured punctuation head's layer, on the model's own heads", async () => {
    // Where it should go, from the measured roles (tests/wasm/heads-prompt.test.js checks that head
    // weighs this sentence's commas there).
    const roles = JSON.parse(await readFile(join(ROOT, 'web/models/english.heads.json'), 'utf8'));
    const tryThis = LESSONS.C.extras.heads.find((t) => /comma/.test(t.try));
    const place = measuredPlace(roles, tryThis.headRole);
    expect(place.layer).toBeGreaterThan(0); // not where the page starts
    // Opened on 8 re-sliced heads: the measured head is one of the model's own 4, so the prompt
    // goes back to them (head 3 of 8 would be another slice of the weights).
    const { page, errors } = await playground.open('/?heads=8#concept=heads', { viewport: WIDTHS.wide });
    await rendered(page, 'ap-heads');
    expect(new URL(page.url()).searchParams.get('heads')).toBe('8');
    await page.locator(`.try[data-for="heads"] button[aria-label*="commas"]`).click();
    await page.waitForFunction(
      ({ layer, text }) => {
        const w = document.querySelector('ap-heads');
        const on = w?.shadowRoot.querySelector(`button[aria-label="layer ${layer}"]`);
        return w?.dataset.text === text && on?.getAttribute('aria-pressed') === 'true';
      },
      { layer: place.layer, text: tryThis.patch.text },
      { timeout: 30_000 },
    );
    const url = new URL(page.url());
    expect(url.searchParams.get('layer')).toBe(String(place.layer));
    expect(url.searchParams.get('head')).toBe(String(place.head));
    expect(url.searchParams.get('heads')).toBeNull();
    expect(errors).toEqual([]);
  });

  test('on a layer with no named head, the heads view says so, states the naming rule and goes to the layers that have names', async () => {
    const roles = JSON.parse(await readFile(join(ROOT, 'web/models/english.heads.json'), 'utf8'));
    const t = roles.thresholds;
    const namedLayers = [...new Set(roles.heads.filter((h) => h.role).map((h) => h.layer))].sort((a, b) => a - b);
    const empty = [...Array(Math.max(...roles.heads.map((h) => h.layer)) + 1).keys()].find(
      (l) => !namedLayers.includes(l),
    );
    expect(empty).toBe(0); // the page opens on layer 0, where no head of the English model has a role
    const { page, errors } = await playground.open('/#concept=heads', { viewport: WIDTHS.wide });
    await rendered(page, 'ap-heads');
    const line = () => page.locator('ap-heads').evaluate((w) => w.shadowRoot.querySelector('.roles-line').textContent);
    await expect.poll(line, { timeout: 30_000 }).toContain('No head of layer 0 has a role by this measure.');
    const text = await line();
    expect(text).toContain(`at least ${t.minMass} of its weight goes to one relation, ${t.minRatio} times`);
    for (const h of roles.heads.filter((x) => x.role)) expect(text).toContain(`head ${h.head}, ${h.label}`);
    const buttons = page.locator('ap-heads .roles-line button');
    expect(await buttons.allTextContents()).toEqual(namedLayers.map((l) => `layer ${l}`));
    await buttons.first().click();
    await page.waitForFunction(
      (l) =>
        document
          .querySelector('ap-heads')
          ?.shadowRoot.querySelector(`button[aria-label="layer ${l}"]`)
          ?.getAttribute('aria-pressed') === 'true',
      namedLayers[0],
      { timeout: 30_000 },
    );
    await expect.poll(line, { timeout: 30_000 }).not.toContain('No head of layer');
    expect(await line()).toContain(`at least ${t.minMass} of its weight`); // the rule stays beside the names
    expect(errors).toEqual([]);
  });
});
