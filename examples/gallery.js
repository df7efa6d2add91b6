// Builds the gallery from the bundle's own catalogue: for every widget its tag, chapter, extra
// attributes, a copy-paste snippet and a live instance (rendered when scrolled to).
import { COMMON_ATTRIBUTES, EVENTS, widgetList } from '../dist/attention-playground.js';

const EXAMPLES = {
  softmax: { preset: 'softmax.the-cat-sat' },
  'weighted-sum': { preset: 'weighted-sum.the-cat-sat' },
  scale: { preset: 'scale.d512' },
  'causal-mask': { preset: 'causal-mask.clouds' },
  sinusoidal: { preset: 'sinusoidal.d4' },
  'model-sizes': { preset: 'gpt3' },
  stepper: { text: 'the cat sat', height: '700' },
};

const h = (tag, props = {}, ...kids) => {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(props))
    if (k === 'text') n.textContent = v;
    else n.setAttribute(k, v);
  n.append(...kids);
  return n;
};

function table(header, rows) {
  const t = h('table');
  t.append(h('tr', {}, ...header.map((x) => h('th', { text: x }))));
  for (const r of rows) t.append(h('tr', {}, ...r.map((x, i) => h('td', {}, i === 0 ? h('code', { text: x }) : x))));
  return t;
}

document.getElementById('common').append(
  h('h2', { text: 'Attributes every widget understands' }),
  table(
    ['attribute', 'values', 'what it does'],
    COMMON_ATTRIBUTES.map((a) => [a.name, a.values, a.doc]),
  ),
  h('h2', { text: 'Events (bubbling, composed: listen on the element or on document)' }),
  table(
    ['event', 'detail', 'when'],
    EVENTS.map((e) => [e.name, e.detail, e.doc]),
  ),
);

const list = widgetList();
const main = document.getElementById('gallery');
main.replaceChildren(
  h(
    'nav',
    { 'aria-label': 'Widgets' },
    h('ol', {}, ...list.map((w) => h('li', {}, h('a', { href: `#w-${w.id}`, text: `<${w.tag}>` }), ` ${w.title}`))),
  ),
);
for (const w of list) {
  const attrs = EXAMPLES[w.id] || {};
  const snippet = `<${w.tag}${Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${v}"`)
    .join('')}></${w.tag}>`;
  const live = document.createElement(w.tag);
  for (const [k, v] of Object.entries(attrs)) live.setAttribute(k, v);
  const hideNote = h('p', { class: 'controls-note' });
  live.addEventListener('ap-rendered', () => {
    const names = [...new Set([...live.shadowRoot.querySelectorAll('[data-control]')].map((n) => n.dataset.control))];
    hideNote.textContent = `hide="…" names: ${[w.textInput ? 'text' : '', live.shadowRoot.querySelector('.presets') ? 'presets' : '', 'controls', ...names].filter(Boolean).join(', ')}.`;
  });
  main.append(
    h(
      'section',
      { class: 'entry', id: `w-${w.id}`, 'data-widget': w.id },
      h('h2', {}, h('code', { text: `<${w.tag}>` }), ` ${w.title}`),
      h('p', {
        text: w.chapter
          ? `Chapter ${w.chapter}: ${w.chapterTitle}.`
          : 'The whole forward pass, one operation at a time.',
      }),
      h('p', {
        text: `Attributes: the common ones${w.extra.length ? `, plus ${w.extra.join(', ')}` : ''}.${w.textInput ? ' Has its own text box (hide="text" removes it).' : ''}`,
      }),
      hideNote,
      h('pre', {}, h('code', { text: snippet })),
      live,
    ),
  );
}
