// Formulas with KaTeX. Only our own formula strings go in (shapes and numbers we format):
// token text never enters TeX, it is shown as plain text next to the formula instead.
import katex from 'katex';

const shownIn = new WeakMap();
// Rendered formulas by source: a formula that comes back (the shapes of the previous text)
// is cloned instead of laid out again by KaTeX.
const rendered = new Map();
const MAX_RENDERED = 300;

/** Renders `tex` into `node` (skipped when the same string is already there). */
export function renderTex(node, tex, { display = false } = {}) {
  if (shownIn.get(node) === tex) return;
  shownIn.set(node, tex);
  const key = `${display ? 'D' : 'I'}${tex}`;
  let source = rendered.get(key);
  if (!source) {
    source = document.createElement('div');
    katex.render(tex, source, {
      displayMode: display,
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      output: 'htmlAndMathml',
    });
    rendered.set(key, source);
    if (rendered.size > MAX_RENDERED) rendered.delete(rendered.keys().next().value);
  }
  node.replaceChildren(...source.cloneNode(true).childNodes);
}

/** A new element holding the formula. */
export function tex(source, { display = false, className = 'formula' } = {}) {
  const node = document.createElement(display ? 'div' : 'span');
  node.className = className;
  renderTex(node, source, { display });
  return node;
}

/** "(6\times 16)" for a shape. */
export function texShape(shape) {
  return `${shape.join('\\times ')}`;
}
