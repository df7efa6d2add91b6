// `node tests/tools/reserve.mjs`: measures how tall each widget's view (its .body) is once drawn
// with its default state, at three widths, and writes web/lib/reserve.js. A widget reserves that
// much space before it draws (web/lib/widget.js), so the page and a course page do not jump when
// the wasm module and the models arrive (Lighthouse's cumulative layout shift). Run it again when
// a view's layout changes; tests/web/layout-shift.test.js fails when the page starts to jump.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, ensureNodeModules, main, run, step, StepError } from './lib/setup.mjs';
import { serveStatic } from './lib/static-server.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium.mjs';

// Content widths of a view: a phone (375 px window), a tablet / narrow window, the playground's
// main column on a laptop (1366 px window), and a wide course page.
export const RESERVE_WIDTHS = [343, 700, 1000, 1200];

main(async () => {
  await ensureNodeModules();
  step('widget bundle');
  const { code } = await run(process.execPath, [join(ROOT, 'tests', 'tools', 'build.mjs'), '--widgets']);
  if (code !== 0) throw new StepError('the widget build failed');
  step('measuring every widget at widths ' + RESERVE_WIDTHS.join(', '));
  const site = await serveStatic(ROOT);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const heights = {}; // the view (.body), which the element reserves once it is defined
  let textBox = 0; // a widget's own text box
  const hosts = {}; // the whole element with hide="text", which attention-playground.css reserves before
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 3000 } });
    await page.goto(`${site.url}examples/csp.html`);
    await page.waitForFunction(() => customElements.get('ap-softmax'));
    const tags = await page.evaluate(async () => {
      const { widgetList } = await import('../dist/attention-playground.js');
      return widgetList().map((w) => w.tag);
    });
    // The widget's own text box (shown unless hide="text"), measured once.
    textBox = await page.evaluate(async () => {
      document.body.replaceChildren();
      const x = document.createElement('ap-softmax');
      document.body.append(x);
      await new Promise((r) => setTimeout(r, 100));
      const f = x.shadowRoot.querySelector('.own-text');
      const r = f.getBoundingClientRect();
      return Math.round(
        r.height + parseFloat(getComputedStyle(f).marginTop) + parseFloat(getComputedStyle(f).marginBottom),
      );
    });
    // One widget alone in a box `width` wide, with hide="text" and `attrs`: [view, element] heights once drawn.
    const measure = (tag, width, attrs = {}) =>
      page.evaluate(
        async ([t, w, a]) => {
          document.body.replaceChildren();
          document.body.style.margin = '0';
          const box = document.createElement('div');
          box.style.width = `${w}px`;
          const x = document.createElement(t);
          x.setAttribute('hide', 'text');
          for (const [k, v] of Object.entries(a)) x.setAttribute(k, v);
          box.append(x);
          document.body.append(box);
          const t0 = Date.now();
          while (x.dataset.rendered === undefined && Date.now() - t0 < 30000)
            await new Promise((r) => setTimeout(r, 50));
          await new Promise((r) => setTimeout(r, 300)); // views that finish drawing in a second pass
          const body = x.shadowRoot.querySelector('.body');
          body.style.minHeight = '0';
          return [Math.round(body.getBoundingClientRect().height), Math.round(x.getBoundingClientRect().height)];
        },
        [tag, width, attrs],
      );
    const record = async (key, tag, attrs) => {
      heights[key] = [];
      hosts[key] = [];
      for (const width of RESERVE_WIDTHS) {
        const [view, element] = await measure(tag, width, attrs);
        heights[key].push(view);
        hosts[key].push(element);
      }
      console.log(`${key.padEnd(28)} view ${heights[key].join(' ')}, element ${hosts[key].join(' ')}`);
    };
    for (const tag of tags) await record(tag, tag, {});
    // A widget opened on a worked example of the notes (preset="...") is often shorter or taller than
    // with its default text: each such pair gets a row of its own, keyed by its CSS selector.
    const presets = await page.evaluate(async () => {
      const { load } = await import('../dist/attention-playground.js');
      return (await load()).presets.list().map((p) => ({ id: p.id, concepts: p.concepts }));
    });
    for (const { id, concepts } of presets)
      for (const c of concepts)
        if (tags.includes(`ap-${c}`)) await record(`ap-${c}[preset="${id}"]`, `ap-${c}`, { preset: id });
  } finally {
    await browser.close();
    await site.close();
  }
  writeFileSync(join(ROOT, 'web', 'lib', 'reserve.js'), reserveModule(heights, hosts, textBox));
  console.log('\nweb/lib/reserve.js written');
});

// web/lib/reserve.js: one row per widget with both of its measurements (view and whole element),
// and the two tables lib/widget.js and the widget build read, taken from those rows.
function reserveModule(heights, hosts, textBox) {
  const rows = Object.keys(heights).map(
    (key) => `  '${key}': { view: [${heights[key].join(', ')}], element: [${hosts[key].join(', ')}] },`,
  );
  return `// Generated by \`node tests/tools/reserve.mjs\`: how tall each widget is once drawn with its
// default state, in px, at content widths ${RESERVE_WIDTHS.join(', ')}: its view (.body), and the whole element
// (title, notes and view; hide="text"). Rows keyed tag[preset="id"]: the widget opened on that
// worked example of the notes. A widget reserves the view's height before it draws
// (lib/widget.js reservedHeight), so nothing below it jumps when its numbers arrive; the widget
// build writes dist/attention-playground.css from the element's, so that a course page keeps
// each element's place before the bundle has even defined it.
export const RESERVE_WIDTHS = [${RESERVE_WIDTHS.join(', ')}];
export const RESERVE_TEXT_BOX = ${textBox};
const MEASURED = {
${rows.join('\n')}
};
const column = (key) => Object.fromEntries(Object.entries(MEASURED).map(([tag, m]) => [tag, m[key]]));
export const RESERVE = column('view');
export const RESERVE_ELEMENT = column('element');
`;
}
