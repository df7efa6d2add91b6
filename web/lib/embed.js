// The iframe embed (embed.html?widget=<id>&text=...&<control>_hide=1): one widget configured
// entirely by the URL, for course platforms that only allow iframes. Every state key of
// lib/state.js (text, preset, model, layer, head, step, causal, scale, heads, pos, norm, seed...)
// and every extra attribute the widget observes is passed through as an attribute; `hide=a,b`
// or `a_hide=1` hides controls; `theme=light|dark` and `height=<px>` as on the element.
// The frame reports its height to the host page (postMessage { type:
// 'attention-playground:resize', height, widget }) so a host script can size the iframe.
import { CONCEPTS } from './concepts.js';
import { el } from './dom.js';
import { parseState, readUrl, STATE_KEYS } from './state.js';

/** Tag names the embed accepts: every concept view, plus the stepper. */
export function embeddableWidgets() {
  return [...CONCEPTS.map((c) => c.id), 'stepper'];
}

/**
 * Reads `search` (default location.search) and mounts the widget it names in `root`.
 * Returns the element, or null after showing a message that names the problem.
 */
export function mountEmbed({
  root = document.getElementById('ap-embed') || document.body,
  search = location.search,
} = {}) {
  const params = new URLSearchParams(search);
  const id = (params.get('widget') || '').trim();
  const known = embeddableWidgets();
  if (!known.includes(id)) {
    const why = id ? `There is no widget "${id}".` : 'The URL does not name a widget (add ?widget=<id>).';
    root.replaceChildren(
      el(
        'div',
        { className: 'ap-embed-error', attrs: { role: 'alert' } },
        el('p', { text: `${why} Known widgets: ${known.join(', ')}.` }),
        el('p', { text: 'Example: embed.html?widget=softmax&preset=softmax.the-cat-sat&text_hide=1' }),
      ),
    );
    return null;
  }
  const tag = `ap-${id}`;
  const node = document.createElement(tag);
  const observed = new Set(customElements.get(tag)?.observedAttributes || []);
  // <control>_hide=1 as the playground page's URL reads it.
  const hide = readUrl(new URL(`?${search.replace(/^\?/, '')}`, location.href).href).hide;
  for (const [key, value] of params) {
    if (key === 'widget' || key.endsWith('_hide')) continue;
    if (key === 'hide') {
      hide.push(...value.split(/[\s,]+/).filter(Boolean));
      continue;
    }
    if (key === 'theme') {
      if (value === 'light' || value === 'dark') {
        node.setAttribute('theme', value);
        document.documentElement.style.colorScheme = value;
      }
      continue;
    }
    if (observed.has(key)) node.setAttribute(key, value);
  }
  if (hide.length) node.setAttribute('hide', [...new Set(hide)].join(','));
  root.replaceChildren(node);
  document.title = `${node.constructor.title || CONCEPTS.find((c) => c.id === id)?.title || id} · Attention Playground`;

  // Tell the host page how tall the widget is (it cannot see into a cross-origin frame).
  if (window.parent !== window && typeof ResizeObserver === 'function') {
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.scrollHeight);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: 'attention-playground:resize', height, widget: id }, '*');
    }).observe(document.body);
  }
  return node;
}

// "Copy embed": how to put a view, as it is now, in another page.
const escapeAttr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The ways to show `widget` (an <ap-*> element), in its current state, elsewhere:
 *  - attrs: the attributes that make another element of the same kind show the same numbers (the
 *    state that differs from the element's own defaults, and the extra attributes it has set);
 *  - html: the script tag of the bundle and the element, for any web page;
 *  - iframeUrl and iframe: embed.html?widget=<id>&..., for course platforms that allow only iframes;
 *  - myst: a MyST / Jupyter Book {anywidget} directive, with anywidget.js and the same state as
 *    its JSON body (the anywidget module maps each key to the attribute of the same name), plus
 *    `bundle`, the URL of attention-playground.js (mystmd puts the module alone into the book).
 * `base` is the URL of the folder that holds attention-playground.js, embed.html and anywidget.js.
 */
export function embedCode(widget, { base }) {
  const tag = widget.localName;
  const id = tag.replace(/^ap-/, '');
  const cls = widget.constructor;
  const now = widget.state;
  const defaults = parseState(cls.defaults || {});
  const attrs = {};
  for (const k of STATE_KEYS) {
    if (k === 'text' && now.preset) continue; // a preset brings its own text
    if (String(now[k]) !== String(defaults[k])) attrs[k] = String(now[k]);
  }
  for (const k of cls.extraAttributes || []) if (widget.hasAttribute(k)) attrs[k] = widget.getAttribute(k);
  const at = (file) => new URL(file, base).href;
  const attrText = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
    .join('');
  const html = [
    `<script type="module" src="${at('attention-playground.js')}"></script>`,
    `<link rel="stylesheet" href="${at('attention-playground.css')}">`,
    `<${tag}${attrText}></${tag}>`,
  ].join('\n');
  const iframeUrl = `${at('embed.html')}?${new URLSearchParams({ widget: id, ...attrs })}`;
  const height = Math.max(300, Math.ceil(widget.getBoundingClientRect?.().height || 0) + 40);
  const title = cls.title || CONCEPTS.find((c) => c.id === id)?.title || id;
  const iframe = `<iframe src="${escapeAttr(iframeUrl)}" title="${escapeAttr(title)}" width="100%" height="${height}" style="border: 0"></iframe>`;
  // mystmd copies (or downloads) the module alone into the book: `bundle` says where the rest is.
  const myst = [
    `:::{anywidget} ${at('anywidget.js')}`,
    JSON.stringify({ widget: id, ...attrs, bundle: at('attention-playground.js') }),
    ':::',
  ].join('\n');
  return { widget: id, attrs, html, iframeUrl, iframe, myst };
}
