// The widget bundle as an instructor uses it, in headless Chromium against a plain static server
// (no Vite): dist/attention-playground.js loaded by one script tag in examples/course.html, the
// gallery, the iframe embed (embed.html?widget=...), and a page under a strict CSP. Numbers are
// checked against the lecture notes and against the same model run through the API in Node.
import { beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { ROOT, requireBundle, startStaticSite, useStaticSite } from './harness.js';
import { CAT_SAT, THINKING, drawn, goOffline, heatmaps, renderAll } from './lib/widgets.js';
import { defaultScores } from './lib/models.js';

beforeAll(requireBundle);
const site = useStaticSite(ROOT);
const open = (path, opts) => site.open(path, opts);
let ap;
beforeAll(async () => {
  ap = await load();
});

describe('the course page (examples/course.html)', () => {
  test('every widget renders from the one bundle with no console errors, each configured differently', async () => {
    const { page, errors } = await open('examples/course.html');
    const widgets = await renderAll(page);
    expect(widgets.length).toBeGreaterThanOrEqual(6);
    expect(new Set(widgets.map((w) => w.tag)).size).toBe(widgets.length); // six+ different kinds
    expect(widgets.filter((w) => w.error)).toEqual([]);
    // The notes' numbers, as the widgets hold them: "the cat sat" weights (000).
    const soft = await heatmaps(page.locator('ap-softmax'));
    const weights = soft.find((h) => h.rows === 3 && h.cols === 3 && /weight/i.test(h.title));
    expect(weights, JSON.stringify(soft.map((h) => h.title))).toBeTruthy();
    CAT_SAT.forEach((v, i) => expect(weights.values[i]).toBeCloseTo(v, 5));
    // Hidden controls stay hidden: the softmax widget was given hide="text".
    expect(await page.locator('ap-softmax').evaluate((w) => w.shadowRoot.querySelector('.own-text').hidden)).toBe(true);
    expect(await page.locator('ap-heads').evaluate((w) => w.shadowRoot.querySelector('.own-text').hidden)).toBe(false);
    await site.screenshot(page, 'embed-course-page');
    expect(errors).toEqual([]);
  });

  test('attribute changes recompute: a new preset, and new text checked against the API in Node', async () => {
    const { page, errors } = await open('examples/course.html');
    const soft = page.locator('ap-softmax');
    await drawn(soft);
    await soft.evaluate((w) => w.setAttribute('preset', 'softmax.thinking-machines'));
    await expect
      .poll(async () => (await heatmaps(soft)).some((h) => h.cols === 2 && Math.abs(h.values[0] - THINKING) < 1e-5))
      .toBe(true);
    // row="1": the widget explains the query row "Machines" (softmax of [96, 112] / 8 = [12, 14]).
    await soft.evaluate((w) => w.setAttribute('row', '1'));
    await expect
      .poll(() => soft.evaluate((w) => w.shadowRoot.querySelector('[data-control="row"] select').value))
      .toBe('1');
    const rowText = await soft.evaluate((w) => w.shadowRoot.textContent);
    expect(rowText).toContain('Row "Machines"');

    // <ap-scores text=...>: the default model is the trained English decoder (web/models).
    const scores = page.locator('ap-scores');
    await scores.scrollIntoViewIfNeeded();
    await scores.evaluate((w) => w.setAttribute('text', 'the cat sat'));
    await expect.poll(async () => (await heatmaps(scores)).some((h) => h.rows === 4 && h.cols === 4)).toBe(true);
    const shown = (await heatmaps(scores)).find((h) => h.rows === 4 && h.cols === 4);
    // A widget with no model attribute runs the English decoder, which reads <|endoftext|> first.
    expect(shown.rowLabels).toEqual(['<|endoftext|>', 'the', ' cat', ' sat']);
    const s = await defaultScores(ap, 'the cat sat');
    shown.values.forEach((v, i) => expect(Math.abs(v - s[i])).toBeLessThanOrEqual(4e-6 * Math.max(1, Math.abs(s[i]))));
    // The widget's own text box recomputes too (typing, as a student would).
    const heads = page.locator('ap-heads');
    await heads.scrollIntoViewIfNeeded();
    await heads.locator('.own-text input').fill('a dog ran');
    await expect.poll(() => heads.getAttribute('text')).toBe('a dog ran');
    await expect.poll(async () => (await heatmaps(heads)).every((h) => h.rows === 4)).toBe(true); // <|endoftext|> a dog ran
    expect(errors).toEqual([]);
  });

  test('works offline once loaded: going offline after the first widget drew, every other widget still renders', async () => {
    const { page, errors, requests } = await open('examples/course.html');
    await expect.poll(() => page.locator('ap-scores').getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    await goOffline(page);
    const before = requests.length;
    const widgets = await renderAll(page);
    expect(widgets.filter((w) => w.error)).toEqual([]);
    expect(requests.slice(before)).toEqual([]); // nothing more was fetched
    expect(errors).toEqual([]);
  });

  test('a selected cell reaches the page as an ap-cell-select event', async () => {
    const { page, errors } = await open('examples/course.html');
    const scores = page.locator('ap-scores');
    // The English model loads first: wait for it as the test before does (a busy CI run took over the default 1 s).
    await expect.poll(() => scores.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    const map = scores.locator('.out ap-heatmap .hm-plot canvas');
    await map.scrollIntoViewIfNeeded(); // a mouse click lands only inside the viewport
    const box = await map.boundingBox();
    // <|endoftext|> + "the cat sat on the mat" in the English pieces (" m" + "at"): 8 x 8
    await page.mouse.click(box.x + box.width * (2.5 / 8), box.y + box.height * (1.5 / 8)); // query 1, key 2
    const value = (await heatmaps(scores)).find((h) => h.rows === 8 && h.cols === 8).values[1 * 8 + 2];
    await expect
      .poll(() => page.locator('#picked').textContent())
      .toBe(`You picked the score of query 1 for key 2: ${value.toFixed(3)}.`);
    expect(errors).toEqual([]);
  });

  test('two widgets of the same kind on one page are independent', async () => {
    const { page, errors } = await open('examples/course.html');
    await page.evaluate(() => {
      for (const [id, preset] of [
        ['one', 'softmax.the-cat-sat'],
        ['two', 'softmax.clouds'],
      ]) {
        const w = document.createElement('ap-softmax');
        w.id = id;
        w.setAttribute('preset', preset);
        document.body.prepend(w);
      }
    });
    const one = page.locator('#one'),
      two = page.locator('#two');
    // Each keeps the height it will have before it draws, so #one (prepended first, so below #two)
    // starts below the fold: a view draws when it comes into view, as a reader would scroll to it.
    await expect.poll(() => two.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    await one.scrollIntoViewIfNeeded();
    await expect
      .poll(
        async () =>
          Boolean(await one.getAttribute('data-rendered')) && Boolean(await two.getAttribute('data-rendered')),
      )
      .toBe(true);
    const before = await heatmaps(two);
    const renderedTwo = await two.getAttribute('data-rendered');
    // A preset button inside #one (no page handles the request: the widget applies it to itself).
    await one.locator('button[data-preset="softmax.thinking-machines"]').click();
    await expect.poll(() => one.getAttribute('preset')).toBe('softmax.thinking-machines');
    await expect
      .poll(async () => (await heatmaps(one)).some((h) => h.cols === 2 && Math.abs(h.values[0] - THINKING) < 1e-5))
      .toBe(true);
    expect(await two.getAttribute('preset')).toBe('softmax.clouds');
    expect(await two.getAttribute('data-rendered')).toBe(renderedTwo);
    expect(await heatmaps(two)).toEqual(before);
    // The notes' "sky" row (004) is still what #two shows.
    const sky = (await heatmaps(two)).find((h) => h.cols === 5 && h.rows === 5);
    [0.3, 0.1, 0.1, 0.3, 0.2].forEach((v, j) => expect(sky.values[4 * 5 + j]).toBeCloseTo(v, 5));
    expect(errors).toEqual([]);
  });

  test('no CSS leaks in or out: hostile page rules do not reach inside a widget, widget rules do not reach the page', async () => {
    const { page, errors } = await open('examples/course.html');
    const soft = page.locator('ap-softmax');
    await drawn(soft);
    await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent =
        '* { color: rgb(255, 0, 0) !important; letter-spacing: 9px !important; } table, canvas, button { display: none !important; } .widget, .formula { border: 7px solid rgb(0, 255, 0) !important; }';
      document.head.append(style);
      const probe = document.createElement('div');
      probe.className = 'widget hm';
      probe.id = 'probe';
      document.body.append(probe);
    });
    const inside = await soft.evaluate((w) => {
      const cs = (sel) => getComputedStyle(w.shadowRoot.querySelector(sel));
      return {
        color: cs('.widget').color,
        border: cs('.widget').borderTopWidth,
        table: cs('table').display,
        button: cs('button:not(.lead-more)').display, // a lead's More button shows only in a narrow view
        spacing: cs('.widget').letterSpacing,
      };
    });
    expect(inside.color).not.toBe('rgb(255, 0, 0)');
    expect(inside.border).toBe('1px');
    expect(inside.table).not.toBe('none');
    expect(inside.button).not.toBe('none');
    expect(inside.spacing).toBe('normal');
    // The page's own element named like the widget's classes keeps the page's styles only.
    const probe = await page
      .locator('#probe')
      .evaluate((p) => ({ radius: getComputedStyle(p).borderTopLeftRadius, padding: getComputedStyle(p).paddingTop }));
    expect(probe).toEqual({ radius: '0px', padding: '0px' });
    expect(errors).toEqual([]);
  });

  test('theme="dark" and --ap-* custom properties style one widget, not the page', async () => {
    const { page, errors } = await open('examples/course.html', { colorScheme: 'light' });
    const sin = page.locator('ap-sinusoidal');
    await drawn(sin);
    const bg = () => sin.evaluate((w) => getComputedStyle(w.shadowRoot.querySelector('.widget')).backgroundColor);
    expect(await bg()).toBe('rgb(255, 255, 255)');
    await sin.evaluate((w) => w.setAttribute('theme', 'dark'));
    await expect.poll(bg).toBe('rgb(22, 24, 29)');
    // A heatmap nested in it follows (its canvas text colour is read from the same variables).
    expect(
      await sin.evaluate((w) =>
        getComputedStyle(w.shadowRoot.querySelector('ap-heatmap')).getPropertyValue('--_fg').trim(),
      ),
    ).toBe('#e6e8ec');
    // The other widgets and the page are untouched; the page's accent reaches its widgets.
    expect(
      await page
        .locator('ap-scale')
        .evaluate((w) => getComputedStyle(w.shadowRoot.querySelector('.widget')).backgroundColor),
    ).toBe('rgb(255, 255, 255)');
    expect(
      await page.locator('ap-scale').evaluate((w) => getComputedStyle(w).getPropertyValue('--_accent').trim()),
    ).toBe('#8a3b12');
    await site.screenshot(page, 'embed-course-page-dark-widget');
    expect(errors).toEqual([]);
  });
});

describe('the anywidget module (dist/anywidget.js) with an unusual host model (issue 25 item 8)', () => {
  // A host is whatever calls render({ model, el }): here, this page, with models as odd hosts make
  // them. A trait that cannot be read or turned into an attribute is skipped and the widget draws;
  // a model whose `widget` cannot be read gets a message in the element. render never rejects.
  test('get() that throws, no on(), circular, BigInt and throwing-toString traits: a widget or a message, never nothing', async () => {
    const { page, errors } = await open('examples/course.html');
    const results = await page.evaluate(async () => {
      // (a string: Vitest would rewrite a dynamic import written in this function's source)
      const { default: widget } = await new Function('return import("/dist/anywidget.js")')();
      const base = { widget: 'softmax', preset: 'softmax.the-cat-sat', bundle: '/dist/attention-playground.js' };
      const host = (traits, extra = {}) => ({
        get: (k) => {
          if (typeof traits[k] === 'function') return traits[k]();
          return traits[k];
        },
        set() {},
        on() {},
        off() {},
        save_changes() {},
        ...extra,
      });
      const circular = {};
      circular.self = circular;
      const cases = {
        'get throws for text': host({
          ...base,
          text: () => {
            throw new Error('no kernel');
          },
        }),
        'no on()': host(base, { on: undefined }),
        'circular trait': host({ ...base, text: circular }),
        'BigInt trait': host({ ...base, layer: 10n ** 30n, text: { big: 1n } }),
        'toString throws': host({
          ...base,
          text: {
            toString() {
              throw new Error('nope');
            },
            toJSON() {
              throw new Error('nope');
            },
          },
        }),
        'widget unreadable': host({
          ...base,
          widget: () => {
            throw new Error('no kernel');
          },
        }),
      };
      const out = {};
      for (const [name, model] of Object.entries(cases)) {
        const el = document.createElement('div');
        document.body.append(el);
        let outcome;
        try {
          await widget.render({ model, el });
          outcome = 'resolved';
        } catch (err) {
          outcome = `rejected: ${err.message}`;
        }
        const tag = el.firstElementChild?.tagName.toLowerCase() ?? '';
        if (tag === 'ap-softmax') {
          el.firstElementChild.scrollIntoView();
          await new Promise((r) => {
            const t = setInterval(() => {
              if (el.firstElementChild.dataset.rendered !== undefined) (clearInterval(t), r());
            }, 50);
          });
        }
        out[name] = {
          outcome,
          tag,
          text: el.textContent.slice(0, 160),
          error: el.firstElementChild?.dataset?.error ?? null,
        };
      }
      return out;
    });
    for (const [name, r] of Object.entries(results)) {
      expect(r.outcome, name).toBe('resolved');
      if (name === 'widget unreadable') {
        expect(r.tag).toBe('div');
        expect(r.text).toMatch(/no "widget" trait naming a widget/);
      } else {
        expect(r.tag, name).toBe('ap-softmax');
        expect(r.error, name).toBeNull();
      }
    }
    expect(errors).toEqual([]);
  });
});

describe('the gallery (examples/gallery.html)', () => {
  test(
    'lists every widget with its attributes, and each live instance renders without errors',
    { timeout: 240_000 },
    async () => {
      const { page, errors, requests } = await open('examples/gallery.html');
      // A string: Vitest would rewrite a dynamic import() inside a function it transforms.
      const concepts = await page.evaluate(
        "import('../dist/attention-playground.js').then((m) => m.CONCEPTS.map((c) => c.id))",
      );
      await expect.poll(() => page.locator('section.entry').count()).toBe(concepts.length + 1);
      for (const id of [...concepts, 'stepper']) {
        expect(await page.locator(`section.entry[data-widget="${id}"] pre`).textContent()).toContain(`<ap-${id}`);
      }
      const widgets = await renderAll(page, 'section.entry > *');
      expect(widgets.length).toBe(concepts.length + 1);
      expect(widgets.filter((w) => w.error)).toEqual([]);
      // Forty-odd widgets, one wasm module: every file (the module, each model) fetched once.
      expect(requests.filter((u) => /ap_core-[^/]*\.wasm$/.test(u))).toHaveLength(1);
      const counts = {};
      for (const u of requests) counts[u] = (counts[u] || 0) + 1;
      expect(Object.entries(counts).filter(([u, c]) => c > 1 && !u.startsWith('data:'))).toEqual([]);
      await site.screenshot(page, 'embed-gallery');
      expect(errors).toEqual([]);
    },
  );
});

describe('the iframe embed (embed.html)', () => {
  // height=<px> caps the widget and scrolls it; a value that is not a positive number of px sets no
  // cap (height=1e9 was read as 1 px by parseInt and collapsed the widget: issue 25 item 7).
  test('height=300 caps the widget at 300 px; 1e9, -5 and "tall" leave it its own height, with a warning', async () => {
    const heightOf = async (height) => {
      const { page, errors, warnings } = await open(
        `dist/embed.html?widget=softmax&preset=softmax.the-cat-sat&height=${encodeURIComponent(height)}`,
      );
      const w = page.locator('ap-softmax');
      await expect.poll(() => w.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
      expect(errors).toEqual([]);
      const size = await w.evaluate((e) => ({ box: e.getBoundingClientRect().height, scroll: e.scrollHeight }));
      return { ...size, warnings };
    };
    const capped = await heightOf('300');
    expect(Math.round(capped.box)).toBe(300);
    expect(capped.scroll).toBeGreaterThan(300);
    expect(capped.warnings).toEqual([]);
    for (const [v, why] of [
      ['1e9', 'is out of range (0 to 1000000); using 1000000 px'],
      ['-5', 'is out of range (0 to 1000000); using no height limit'],
      ['tall', 'is not a number; using no height limit'],
    ]) {
      const free = await heightOf(v);
      expect(free.box, v).toBeGreaterThan(300);
      expect(Math.abs(free.box - free.scroll), v).toBeLessThanOrEqual(1);
      expect(free.warnings).toEqual([`Attention Playground: <ap-softmax> height="${v}" ${why}.`]);
    }
  });

  // Issue 25 item 7: every other number in the URL goes through the same attribute readers.
  test('hostile numbers in the URL (row, head, heads, layer) are clamped or ignored, one warning each', async () => {
    const long = '9'.repeat(10_000);
    const { page, errors, warnings } = await open(
      `dist/embed.html?widget=softmax&preset=softmax.the-cat-sat&row=1e400&head=abc&heads=-1&layer=${long}`,
    );
    const w = page.locator('ap-softmax');
    await expect.poll(() => w.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    // the preset's last row, its one head, its one layer
    expect(await w.evaluate((e) => e.shadowRoot.querySelector('[data-control="row"] select').value)).toBe('2');
    const soft = await heatmaps(w);
    const weights = soft.find((h) => h.rows === 3 && h.cols === 3 && /weight/i.test(h.title));
    CAT_SAT.forEach((v, i) => expect(weights.values[i]).toBeCloseTo(v, 5));
    expect(errors).toEqual([]);
    const ours = warnings.filter((m) => m.startsWith('Attention Playground: <ap-softmax>')).sort();
    expect(ours).toEqual([
      'Attention Playground: <ap-softmax> head="abc" is not a number; using 0.',
      'Attention Playground: <ap-softmax> heads="-1" is out of range (1 to 64); using 1.',
      `Attention Playground: <ap-softmax> layer="${'9'.repeat(40)}…" (10000 characters) is out of range (0 to 63); using 63.`,
      'Attention Playground: <ap-softmax> row="1e400" is out of range (0 to 2); using 2.',
    ]);
  });

  test('the URL configures the widget: widget, preset, text, <control>_hide, theme', async () => {
    const { page, errors } = await open('examples/iframe.html');
    const frame = (id) => page.frameLocator(`#${id}`);
    const soft = frame('frame-softmax').locator('ap-softmax');
    await expect.poll(() => soft.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
    expect(await soft.getAttribute('preset')).toBe('softmax.thinking-machines');
    expect(await soft.getAttribute('hide')).toBe('text,presets,temperature');
    expect(
      await soft.evaluate((w) => getComputedStyle(w.shadowRoot.querySelector('[data-control="temperature"]')).display),
    ).toBe('none');
    expect(
      await soft.evaluate((w) => getComputedStyle(w.shadowRoot.querySelector('[data-control="row"]')).display),
    ).not.toBe('none');
    expect(await soft.evaluate((w) => w.shadowRoot.querySelector('.own-text').hidden)).toBe(true);
    expect(await soft.evaluate((w) => w.shadowRoot.querySelector('.presets').hidden)).toBe(true);
    await expect
      .poll(async () => (await heatmaps(soft)).some((h) => h.cols === 2 && Math.abs(h.values[0] - THINKING) < 1e-5))
      .toBe(true);

    const causal = frame('frame-causal').locator('ap-causal-mask');
    await drawn(causal);
    expect(await causal.getAttribute('text')).toBe('the cat sat on the mat');
    expect(await causal.evaluate((w) => getComputedStyle(w.shadowRoot.querySelector('.widget')).backgroundColor)).toBe(
      'rgb(22, 24, 29)',
    );
    // The causal weights: row i has zeros right of the diagonal (<|endoftext|> + 7 pieces).
    const w = (await heatmaps(causal)).find((h) => h.rows === 8 && h.cols === 8 && /weight/i.test(h.title));
    for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) expect(w.values[i * 8 + j]).toBe(0);

    const stepper = frame('frame-stepper').locator('ap-stepper');
    await drawn(stepper);
    expect(await stepper.getAttribute('data-stage')).toBe('weights');
    // The frame reported its height and the host page sized the iframe to it.
    await expect.poll(() => page.locator('#frame-softmax').evaluate((f) => f.style.height)).toMatch(/^\d+px$/);
    await site.screenshot(page, 'embed-iframes');
    expect(errors).toEqual([]);
  });

  test('an unknown or missing widget gives a message naming the problem', async () => {
    const { page, errors } = await open('dist/embed.html?widget=nope');
    await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('There is no widget "nope".');
    expect(await page.locator('[role=alert]').textContent()).toContain('softmax');
    const missing = await open('dist/embed.html');
    await expect.poll(() => missing.page.locator('[role=alert]').textContent()).toContain('does not name a widget');
    expect([...errors, ...missing.errors]).toEqual([]);
  });
});

describe("a page under Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'", () => {
  test(
    'the widgets, the wasm module and the training worker work, with no violation',
    { timeout: 180_000 },
    async () => {
      const { page, errors } = await open('examples/csp.html');
      const response = await page.request.get(new URL('examples/csp.html', site.baseUrl).href);
      expect(response.headers()['content-security-policy']).toBe("script-src 'self' 'wasm-unsafe-eval'");
      await page.evaluate(() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', (e) =>
          window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      const widgets = await renderAll(page);
      expect(widgets.filter((w) => w.error)).toEqual([]);
      const sky = (await heatmaps(page.locator('#csp-softmax'))).find((h) => h.cols === 5 && h.rows === 5);
      [0.3, 0.1, 0.1, 0.3, 0.2].forEach((v, j) => expect(sky.values[4 * 5 + j]).toBeCloseTo(v, 5));
      // An inline script is refused here (so the policy is really in force)...
      await page.evaluate(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.head.append(s);
      });
      expect(await page.evaluate(() => window.__inline)).toBeUndefined();
      // ...while the module's wasm was compiled and the training worker starts and reports steps.
      const training = page.locator('#csp-training');
      const start = training.getByRole('button', { name: /start|train/i }).first();
      await start.click();
      await expect
        .poll(() => training.evaluate((w) => Number(w.dataset.step || 0)), { timeout: 120_000 })
        .toBeGreaterThan(0);
      const violations = await page.evaluate(() => window.__violations);
      expect(violations.filter((v) => !v.startsWith('script-src-elem inline') && !v.includes('inline'))).toEqual([]);
      await site.screenshot(page, 'embed-csp-page');
      // The one console error allowed is the refusal of the inline script this test injected.
      expect(
        errors.filter((e) => !/Executing inline script violates the following Content Security Policy/.test(e)),
      ).toEqual([]);
    },
  );
});

describe('the README snippet', () => {
  test('pasted into a plain page on another static host, with the bundle copied to /course/, shows live widgets', async () => {
    const { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Embed in a course page'));
    const snippet = section.match(/```html\n([\s\S]*?)```/)[1];
    expect(snippet).toContain('<script type="module" src="/course/attention-playground.js"></script>');
    const host = mkdtempSync(join(tmpdir(), 'ap-host-'));
    let other;
    try {
      cpSync(join(ROOT, 'dist', 'attention-playground.js'), join(host, 'course', 'attention-playground.js'));
      cpSync(join(ROOT, 'dist', 'attention-playground.css'), join(host, 'course', 'attention-playground.css'));
      cpSync(join(ROOT, 'dist', 'attention-playground'), join(host, 'course', 'attention-playground'), {
        recursive: true,
      });
      writeFileSync(
        join(host, 'course', 'week3.html'),
        `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Week 3</title></head><body>\n${snippet}\n</body></html>`,
      );
      other = await startStaticSite(host);
      const { page, errors } = await other.open('course/week3.html');
      const widgets = await renderAll(page);
      expect(widgets.map((w) => w.tag)).toEqual(['ap-softmax', 'ap-heads', 'ap-causal-mask', 'ap-stepper']);
      expect(widgets.filter((w) => w.error)).toEqual([]);
      const soft = (await heatmaps(page.locator('ap-softmax'))).find((h) => h.rows === 3 && h.cols === 3);
      [0.7, 0.2, 0.1].forEach((v, j) => expect(soft.values[j]).toBeCloseTo(v, 5));
      expect(await page.locator('ap-stepper').getAttribute('data-stage')).toBe('weights');
      await other.screenshot(page, 'embed-readme-snippet');
      await page.context().close();
      expect(errors).toEqual([]);
    } finally {
      await other?.close();
      rmSync(host, { recursive: true, force: true });
    }
  });
});
