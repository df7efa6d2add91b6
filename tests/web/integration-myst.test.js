// The anywidget front-end module (dist/anywidget.js) in a real anywidget host: the example
// Jupyter Book 2 / MyST book (examples/myst/), built by mystmd with MyST's book theme (built from
// source, tests/tools/lib/myst.mjs), served as a plain static site. The theme's own anywidget
// renderer (@myst-theme/anywidget) imports the module, gives it a model (its MystAnyModel) and an
// element in a shadow root, as Jupyter gives a model synced with Python. Checked in Chromium: every
// page shows live widgets with the notes' numbers (and the API's, in Node) and no console errors,
// nothing is fetched from another host, the site works offline once loaded, and the two-way sync
// through the host's model: a trait set on it recomputes the widget, and what the student changes
// (the text box, a selected cell) is set on it.
import { beforeAll, describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { buildMystBook } from '../tools/lib/myst.mjs';
import { ROOT, requireBundle, startStaticSite, usePlayground, useStaticSite } from './harness.js';
import { CAT_SAT, copyEmbed, drawn, expectClose, foreignRequests, goOffline, heatmaps } from './lib/widgets.js';
import { defaultScores } from './lib/models.js';

const OUT = join(ROOT, 'build', 'examples', 'myst');
const HTML = join(OUT, 'html');
// Each page of the book and the widget it embeds (examples/myst/*.md).
const PAGES = [
  { path: '/', tag: 'ap-scores' },
  { path: '/softmax', tag: 'ap-softmax' },
  { path: '/causal-mask', tag: 'ap-causal-mask' },
  { path: '/heads', tag: 'ap-heads' },
];

beforeAll(requireBundle);
let built;
beforeAll(async () => {
  built = await buildMystBook({ out: OUT });
  console.log(
    `MyST book built in ${built.seconds.toFixed(1)} s` +
      (built.themeInstalled ? ' (installed the theme)' : '') +
      (built.themeBuilt ? ' (built the theme)' : ''),
  );
}, 900_000);
const site = useStaticSite(HTML);

let ap;
beforeAll(async () => {
  ap = await load();
});

// Where the host put the widget: the <ap-*> element and the anywidget container whose (open)
// shadow root holds it, as the theme's renderer made them.
function hostOf(page, tag) {
  return page.evaluate((t) => {
    const hosts = [...document.querySelectorAll('.myst-anywidget')].filter((h) => h.shadowRoot);
    const host = hosts.find((h) => h.shadowRoot.querySelector(t));
    return host ? { hosts: hosts.length, inShadow: true, tag: host.shadowRoot.querySelector(t).localName } : null;
  }, tag);
}

// The module URL the host imported (MyST copies the directive's file as build/anywidget-<hash>.js).
const moduleUrl = () => `/build/${readdirSync(join(HTML, 'build')).find((f) => /^anywidget-.*\.js$/.test(f))}`;

// Runs `fn(model, element)` in the page with the host's model of the widget `tag`, reached through
// the module's modelOf() (the same module instance the host imported: same URL). A string, so that
// Vitest does not rewrite its import() for Node.
function withModel(page, tag, fn) {
  return page.evaluate(`(async () => {
    const { modelOf } = await import(${JSON.stringify(moduleUrl())});
    const host = [...document.querySelectorAll('.myst-anywidget')].find((h) => h.shadowRoot?.querySelector(${JSON.stringify(tag)}));
    const element = host.shadowRoot.querySelector(${JSON.stringify(tag)});
    return (${fn.toString()})(modelOf(element), element);
  })()`);
}

describe('the MyST book (examples/myst) built by mystmd with the book theme', () => {
  test('the build wrote every page, the module and the bundle it imports, with the directive resolved', () => {
    for (const p of ['index.html', 'softmax/index.html', 'causal-mask/index.html', 'heads/index.html'])
      expect(readdirSync(join(HTML, ...p.split('/').slice(0, -1))).includes('index.html'), p).toBe(true);
    expect(moduleUrl()).toMatch(/^\/build\/anywidget-[0-9a-f]+\.js$/);
    const files = readdirSync(join(HTML, 'build'));
    expect(files).toContain('attention-playground.js');
    expect(files).toContain('attention-playground');
    // The page data names the module and the initial model (the directive's JSON body).
    const data = JSON.parse(readFileSync(join(HTML, 'softmax.json'), 'utf8'));
    const widgets = JSON.stringify(data.mdast).match(/"type":"anywidget"[^}]*\}/g) || [];
    expect(widgets.length).toBe(1);
    expect(widgets[0]).toContain(moduleUrl());
    expect(widgets[0]).toContain('"preset":"softmax.the-cat-sat"');
  });

  test.each(PAGES)(
    'page $path: the host renders a live $tag, no console errors, nothing from another host',
    async ({ path, tag }) => {
      const { page, errors, requests } = await site.open(path, { viewport: { width: 1366, height: 900 } });
      await expect.poll(() => hostOf(page, tag), { timeout: 30_000 }).toMatchObject({ inShadow: true, tag });
      const widget = page.locator(tag);
      await drawn(widget);
      expect(await widget.getAttribute('data-error')).toBeNull();
      expect((await heatmaps(widget)).length).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    },
  );

  test('the notes\' numbers: "the cat sat" weights (notes 000), the row of "sat" is 0.2 0.3 0.5', async () => {
    const { page, errors } = await site.open('/softmax', { viewport: { width: 1366, height: 900 } });
    const soft = page.locator('ap-softmax');
    await drawn(soft);
    const weights = (await heatmaps(soft)).find((h) => h.rows === 3 && h.cols === 3 && /weight/i.test(h.title));
    expect(weights).toBeTruthy();
    CAT_SAT.forEach((v, i) => expect(weights.values[i]).toBeCloseTo(v, 5));
    [0.2, 0.3, 0.5].forEach((v, j) => expect(weights.values[2 * 3 + j]).toBeCloseTo(v, 5));
    // hide: "text" from the directive's JSON reached the element.
    expect(await soft.evaluate((w) => w.shadowRoot.querySelector('.own-text').hidden)).toBe(true);
    // What a student sees, on a laptop and a phone.
    // From the top of the page: the theme's header and sidebar are sticky.
    await page.evaluate(() => document.fonts.ready.then(() => window.scrollTo(0, 0)));
    await site.screenshot(page, 'integration-myst');
    const phone = await site.open('/softmax', { viewport: { width: 390, height: 844 } });
    await drawn(phone.page.locator('ap-softmax'));
    await phone.page.evaluate(() => document.fonts.ready.then(() => window.scrollTo(0, 0)));
    await site.screenshot(phone.page, 'integration-myst-phone');
    expect(errors).toEqual([]);
    expect(phone.errors).toEqual([]);
  });

  test("the causal mask page shows the preset's weights as the API computes them (notes 004)", async () => {
    const { page, errors } = await site.open('/causal-mask');
    const mask = page.locator('ap-causal-mask');
    await drawn(mask);
    const t = ap.presets.run('causal-mask.clouds');
    const want = Array.from(t.get('weights', { head: 0 }));
    t.dispose();
    const shown = (await heatmaps(mask)).find(
      (h) => h.rows === 5 && h.cols === 5 && h.values.every((v, i) => Math.abs(v - want[i]) < 1e-6),
    );
    expect(shown, JSON.stringify((await heatmaps(mask)).map((h) => h.title))).toBeTruthy();
    expect(shown.values[0]).toBe(1); // "Clouds" sees only itself
    expect(shown.values.slice(1, 5)).toEqual([0, 0, 0, 0]);
    expect(errors).toEqual([]);
  });

  test("the scores page runs the trained model on the directive's text, as the API does in Node", async () => {
    const { page, errors } = await site.open('/');
    const scores = page.locator('ap-scores');
    await drawn(scores);
    const shown = (await heatmaps(scores)).find((h) => h.rows === 4 && h.cols === 4);
    expect(shown.rowLabels).toEqual(['<|endoftext|>', 'the', ' cat', ' sat']);
    expectClose(shown.values, await defaultScores(ap, 'the cat sat'));
    expect(errors).toEqual([]);
  });

  test('works offline once loaded: the student types new text, the widget recomputes, nothing is fetched', async () => {
    const { page, errors, requests } = await site.open('/');
    const scores = page.locator('ap-scores');
    await drawn(scores);
    await goOffline(page);
    const before = requests.length;
    await scores.locator('.own-text input').fill('a dog ran');
    await expect
      .poll(async () => (await heatmaps(scores)).some((h) => h.rows === 4 && h.rowLabels[1] === 'a'))
      .toBe(true);
    const shown = (await heatmaps(scores)).find((h) => h.rows === 4 && h.cols === 4);
    expectClose(shown.values, await defaultScores(ap, 'a dog ran'));
    expect(requests.slice(before)).toEqual([]);
    expect(foreignRequests(requests, site.baseUrl)).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe("two-way sync through the MyST host's model", () => {
  test("the host's model holds the directive's JSON; a trait set on it recomputes the widget", async () => {
    const { page, errors } = await site.open('/');
    const scores = page.locator('ap-scores');
    await drawn(scores);
    const seen = await withModel(page, 'ap-scores', (model) => ({
      widget: model.get('widget'),
      text: model.get('text'),
      hide: model.get('hide'),
      api: ['get', 'set', 'on', 'save_changes'].every((k) => typeof model[k] === 'function'),
    }));
    expect(seen).toEqual({ widget: 'scores', text: 'the cat sat', hide: 'presets', api: true });
    // model.set('text', ...) as a Python kernel (or the page) would: change:text -> attribute -> recompute.
    await withModel(page, 'ap-scores', (model) => model.set('text', 'the dog sat on the mat'));
    await expect.poll(() => scores.getAttribute('text')).toBe('the dog sat on the mat');
    await expect.poll(async () => (await heatmaps(scores)).some((h) => h.rows === 8 && h.cols === 8)).toBe(true);
    expectClose(
      (await heatmaps(scores)).find((h) => h.rows === 8 && h.cols === 8).values,
      await defaultScores(ap, 'the dog sat on the mat'),
    );
    // A number trait (layer 1) reaches the element as its attribute and the widget shows layer 1.
    const layer1 = await defaultScores(ap, 'the dog sat on the mat', { layer: 1 });
    await withModel(page, 'ap-scores', (model) => model.set('layer', 1));
    await expect.poll(() => scores.getAttribute('layer')).toBe('1');
    await expect
      .poll(async () => {
        const m = (await heatmaps(scores)).find((h) => h.rows === 8 && h.cols === 8);
        // Two layers deep, float32 rounding differs a little more between the page's kernels
        // (relaxed SIMD where Chromium has it) and Node's (SIMD128).
        return m.values.every((v, i) => Math.abs(v - layer1[i]) <= 2e-5 * Math.max(1, Math.abs(layer1[i])));
      })
      .toBe(true);
    expect(errors).toEqual([]);
  });

  test("what the student changes reaches the host's model: typed text, and the selected cell as `selected`", async () => {
    const { page, errors } = await site.open('/');
    const scores = page.locator('ap-scores');
    await drawn(scores);
    // A listener on the host's model, as a notebook's Python side would observe the trait.
    await withModel(page, 'ap-scores', (model) => {
      window.__changes = [];
      model.on('change:text', () => window.__changes.push(['text', model.get('text')]));
      model.on('change:selected', () => window.__changes.push(['selected', model.get('selected')]));
    });
    await scores.locator('.own-text input').fill('a cat ran');
    await expect.poll(() => withModel(page, 'ap-scores', (model) => model.get('text'))).toBe('a cat ran');
    await expect
      .poll(async () => (await heatmaps(scores)).some((h) => h.rows === 4 && h.rowLabels[2] === ' cat'))
      .toBe(true);
    // Click query 1 ("a"), key 2 ("cat") of the 4 x 4 scores.
    const map = scores.locator('.out ap-heatmap .hm-plot canvas');
    const box = await map.boundingBox();
    await page.mouse.click(box.x + box.width * (2.5 / 4), box.y + box.height * (1.5 / 4));
    const value = (await heatmaps(scores)).find((h) => h.rows === 4 && h.cols === 4).values[1 * 4 + 2];
    await expect
      .poll(() => withModel(page, 'ap-scores', (model) => model.get('selected')))
      .toMatchObject({ row: 1, col: 2, rowLabel: 'a', colLabel: ' cat' });
    const selected = await withModel(page, 'ap-scores', (model) => model.get('selected'));
    expect(selected.value).toBeCloseTo(value, 6);
    expect(selected.value).toBeCloseTo((await defaultScores(ap, 'a cat ran'))[1 * 4 + 2], 5);
    const changes = await page.evaluate(() => window.__changes);
    expect(changes).toContainEqual(['text', 'a cat ran']);
    expect(changes.filter(([k]) => k === 'selected').length).toBe(1);
    expect(errors).toEqual([]);
  });

  test('a model naming no known widget shows a message in the element, naming the known ones', async () => {
    const { page, errors } = await site.open('/');
    await drawn(page.locator('ap-scores'));
    const shown = await page.evaluate(`(async () => {
      const { default: widget } = await import(${JSON.stringify(moduleUrl())});
      const out = [];
      for (const id of ['softmaxx', undefined]) {
        const el = document.createElement('div');
        document.body.append(el);
        const cleanup = await widget.render({ model: { get: (k) => (k === 'widget' ? id : undefined), on() {}, off() {}, set() {}, save_changes() {} }, el });
        out.push({ text: el.textContent, role: el.firstElementChild?.getAttribute('role'), cleanup: typeof cleanup });
      }
      return out;
    })()`);
    expect(shown[0].text).toContain('There is no widget "softmaxx".');
    expect(shown[0].text).toContain('softmax, ');
    expect(shown[0].role).toBe('alert');
    expect(shown[0].cleanup).toBe('function');
    expect(shown[1].text).toContain('no "widget" trait');
    expect(errors).toEqual([]);
  });
});

// "Embed this view" on the playground page gives a MyST directive; pasted into a page of a book and
// built by mystmd, it shows the numbers the playground showed. The directive names anywidget.js on
// the site it was copied from (the page as `npm run build` makes it, served statically), as an
// instructor would paste it; mystmd downloads that file into the book, and its `bundle` trait
// loads the widget bundle from the same site.
describe("copy embed: the playground's MyST directive, pasted into a book", () => {
  // The page as deployed (npm run build: the page beside dist/'s bundle, embed.html, anywidget.js).
  const playground = usePlayground({ built: true });

  test("built by mystmd, the pasted directive shows the playground view's exact numbers", async () => {
    const { code, shown, errors } = await copyEmbed(
      playground,
      '/?text=the+dog+ran+home&head=1&causal=off#chapter=B',
      'softmax',
    );
    expect(code.myst).toMatch(/^:::\{anywidget\} http:\/\/[^\n]+\/anywidget\.js\n\{"widget":"softmax",/);
    // mystmd downloads the module into the book; the bundle and its files come from the playground's site.
    expect(errors).toEqual([]);
    const pastedOut = join(ROOT, 'build', 'examples', 'myst-pasted');
    const { html } = await buildMystBook({
      out: pastedOut,
      pages: { 'pasted.md': `---\ntitle: Pasted from the playground\n---\n\n${code.myst}\n` },
    });
    const book = await startStaticSite(html);
    try {
      const opened = await book.open('/pasted', { viewport: { width: 1366, height: 900 } });
      await expect.poll(() => hostOf(opened.page, 'ap-softmax'), { timeout: 30_000 }).toMatchObject({ inShadow: true });
      const widget = opened.page.locator('ap-softmax');
      await drawn(widget);
      expect(await heatmaps(widget)).toEqual(shown);
      expect(opened.errors).toEqual([]);
    } finally {
      await book.close();
    }
  }, 300_000);
});
