// Issue 25 item 7: hostile numbers in widget attributes. Each numeric attribute of eight widgets is
// set, in turn, to 1e9, -1, NaN, "abc", 1e400 and a 10,000-character number; each time the widget
// must draw again with the value kept to its range (the nearest end) or, for one that is not a
// number, the value it had (or its default), show only finite numbers, and say so in exactly one
// console warning naming the element, the attribute, the value (a 40-character prefix of a long
// one) and what it used. The negative control runs the same check on a widget whose attribute
// reader was replaced by a plain Number(): the check must fail.
import { describe, expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const playground = usePlayground();

const LONG = '7'.repeat(10_000); // a number too: Infinity
const HOSTILE = [
  ['1e9', 'high'],
  ['-1', 'low'],
  ['NaN', 'nan'],
  ['abc', 'nan'],
  ['1e400', 'high'],
  [LONG, 'high'],
];

// The widgets of the test page: their attributes, and for each numeric attribute what it must use
// for a value too high, too low, or not a number (after the value before it in HOSTILE).
const WIDGETS = [
  {
    tag: 'ap-stepper',
    attrs: { model: 'grammar', text: 'the cat sleeps .' }, // 2 layers of 4 heads (switchChoices 1, 2, 4, 8, 16)
    numbers: {
      layer: { high: 1, low: 0, nan: 0 },
      head: { high: 3, low: 0, nan: 0 },
      heads: { high: 4, low: 1, nan: 4 }, // 64 heads is no choice of this model: its own 4
    },
  },
  {
    tag: 'ap-softmax',
    attrs: { preset: 'softmax.the-cat-sat' }, // 3 rows
    numbers: { row: { high: 2, low: 0, nan: 0 }, height: { high: 1e6, low: 0, nan: 0 } },
  },
  {
    tag: 'ap-rnn-vanishing',
    attrs: { text: 'the cat sat' },
    numbers: { radius: { high: 2, low: 0.25, nan: 0.9 }, length: { high: 64, low: 4, nan: 32 } },
  },
  {
    tag: 'ap-rnn-cost',
    attrs: {},
    numbers: { n: { high: 16384, low: 2, nan: 2 }, d: { high: 2048, low: 16, nan: 16 } },
  },
  { tag: 'ap-scale', attrs: {}, numbers: { dk: { high: 512, low: 1, nan: 1 } } },
  { tag: 'ap-long-context', attrs: {}, numbers: { tile: { high: 8, low: 1, nan: 2 } } },
  // The token hidden from BERT: on the English model (the default) a position of the sentence's 6
  // tokens, the · ␣cat · ␣sleep · s · ␣ · . (default: the third), warned about once with that range
  // (the word-level sides beside it once warned too, with the 4 words' range).
  { tag: 'ap-bert-gpt', attrs: { text: 'the cat sleeps .' }, numbers: { mask: { high: 5, low: 0, nan: 2 } } },
  // The calculator's own limits (the core's) refuse these: the preset's d_model stays.
  { tag: 'ap-model-sizes', attrs: { preset: 'original' }, numbers: { 'd-model': { high: 512, low: 512, nan: 512 } } },
];

// What the widget shows for an attribute, read from its controls (or, for heads and height, what
// it ran with and its style).
function shown(page, tag, attr) {
  return page.evaluate(
    ([tag, attr]) => {
      const w = document.querySelector(tag);
      const probes = {
        'ap-stepper|layer': () => Number(w._layerSel.value),
        'ap-stepper|head': () => Number(w._headSel.value),
        'ap-stepper|heads': () => w._run.config.nHeads,
        'ap-softmax|row': () => Number(w.rowSel.value),
        'ap-softmax|height': () => parseFloat(w.style.maxHeight) || 0,
        'ap-rnn-vanishing|radius': () => Number(w.radius.out.textContent), // a range input clamps its own value
        'ap-rnn-vanishing|length': () => Number(w.length.out.textContent),
        'ap-rnn-cost|n': () => 2 ** Number(w.n.input.value),
        'ap-rnn-cost|d': () => 2 ** Number(w.d.input.value),
        'ap-scale|dk': () => Number(w.dataset.dk),
        'ap-long-context|tile': () => Number(w.tileSelect.value),
        'ap-model-sizes|d-model': () => Number(w.in.dModel.input.value),
        'ap-bert-gpt|mask': () => Number(w.maskSel.value),
      };
      return probes[`${tag}|${attr}`]();
    },
    [tag, attr],
  );
}

// Sets attribute `attr` of `tag` to `value`, waits for the widget to draw again, and returns what
// is wrong (an empty list when nothing is): the value it shows, the numbers it draws, its warnings.
async function tryValue({ page, warnings, errors }, tag, attr, value, want) {
  const before = warnings.length;
  await page.evaluate(
    ([tag, attr, value]) =>
      new Promise((drawn) => {
        // drawn again (ap-rendered), or failed (widget.js fail() sets data-error)
        const w = document.querySelector(tag);
        w.addEventListener('ap-rendered', drawn, { once: true });
        new MutationObserver(drawn).observe(w, { attributeFilter: ['data-error'] });
        w.setAttribute(attr, value);
      }),
    [tag, attr, value],
  );
  // A console message reaches the test after the page's next task at the latest.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  const problems = [];
  const what = `${tag} ${attr}="${value.slice(0, 12)}${value.length > 12 ? '…' : ''}"`;
  const got = await shown(page, tag, attr);
  if (got !== want) problems.push(`${what}: shows ${got}, not ${want}`);
  const text = await page.evaluate((tag) => {
    const w = document.querySelector(tag);
    return [w.shadowRoot.textContent, w.dataset.error || ''].join(' ');
  }, tag);
  const wild = text.match(/\bNaN\b|Infinity|undefined|(?<!−)∞|1000000000|\de\+/);
  if (wild) problems.push(`${what}: draws ${wild[0]}`);
  const height = await page.evaluate((tag) => document.querySelector(tag).getBoundingClientRect().height, tag);
  if (!(height > 100)) problems.push(`${what}: collapsed to ${height} px`);
  const mine = warnings.slice(before).filter((m) => m.startsWith(`Attention Playground: <${tag}> ${attr}=`));
  if (mine.length !== 1) problems.push(`${what}: ${mine.length} warnings, not 1 (${JSON.stringify(mine)})`);
  else {
    const m = mine[0];
    const quoted = value.length > 40 ? `"${value.slice(0, 40)}…" (${value.length} characters)` : `"${value}"`;
    if (!m.includes(`${attr}=${quoted} `)) problems.push(`${what}: the warning does not quote the value: ${m}`);
    if (!/; using .+\.$/.test(m)) problems.push(`${what}: the warning does not say what was used: ${m}`);
    if (m.length > 300) problems.push(`${what}: a warning of ${m.length} characters`);
  }
  if (errors.length) problems.push(`${what}: ${errors.join('; ')}`);
  return problems;
}

async function openWidgets(widgets) {
  // Every widget in sight at once (they draw when seen), each in a box of its own height.
  const tags = widgets.map((w) => w.tag);
  const body = widgets
    .map(
      ({ tag, attrs }) =>
        `<${tag}${Object.entries(attrs)
          .map(([k, v]) => ` ${k}="${v}"`)
          .join('')}></${tag}>`,
    )
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>attributes</title>
<link rel="icon" href="data:,">
<style>${tags.join(', ')} { display: block; height: 600px; overflow: auto; }</style>
${[...new Set(tags)].map((t) => `<script type="module" src="/components/${t}.js"></script>`).join('\n')}
</head><body>${body}</body></html>`;
  const opened = await playground.openHtml(html, { viewport: { width: 1200, height: 700 * widgets.length } });
  for (const tag of tags)
    await opened.page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60_000 });
  return opened;
}

describe('numeric attributes out of range or not numbers (issue 25, item 7)', () => {
  test('eight widgets: each value is clamped or ignored, drawn with finite numbers, and warned about once', async () => {
    const opened = await openWidgets(WIDGETS);
    const problems = [];
    let tried = 0;
    for (const { tag, numbers } of WIDGETS) {
      for (const [attr, want] of Object.entries(numbers)) {
        for (const [value, kind] of HOSTILE) {
          problems.push(...(await tryValue(opened, tag, attr, value, want[kind])));
          tried++;
        }
        await opened.page.evaluate(([t, a]) => document.querySelector(t).removeAttribute(a), [tag, attr]);
      }
    }
    expect(tried).toBe(13 * HOSTILE.length);
    expect(problems).toEqual([]);
    // One warning as it reads on the console:
    expect(opened.warnings).toContain(
      'Attention Playground: <ap-stepper> layer="1e9" is out of range for this model (2 layers: 0 to 1); using 1.',
    );
    expect(opened.warnings).toContain(
      `Attention Playground: <ap-rnn-cost> n="${'7'.repeat(40)}…" (10000 characters) is out of range (2 to 16384); using 16384.`,
    );
  });

  // The negative control: the same check on a widget that reads its attribute with Number() alone,
  // as the widgets did before (radius="1e9" then ran the RNN with a spectral radius of a billion).
  test('control: an attribute read without its range fails the check', async () => {
    const opened = await openWidgets([WIDGETS[2]]);
    await opened.page.evaluate(() => {
      const cls = customElements.get('ap-rnn-vanishing');
      cls.prototype.numberAttribute = function (name, spec, fallback) {
        const v = Number(this.getAttribute(name));
        return Number.isFinite(v) ? v : fallback;
      };
    });
    const problems = await tryValue(opened, 'ap-rnn-vanishing', 'radius', '1e9', 2);
    expect(problems).toContain('ap-rnn-vanishing radius="1e9": shows 1000000000, not 2');
    expect(problems.join('\n')).toMatch(/radius="1e9": draws /); // norms of 1e+80 and more
    expect(problems.join('\n')).toContain('radius="1e9": 0 warnings, not 1');
  });
});
