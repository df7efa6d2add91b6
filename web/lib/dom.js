// Small DOM helpers. Text reaches the DOM only through textContent / attributes, never
// innerHTML, so token text such as "<img onerror=...>" always renders as text.

/**
 * el('div', { className, dataset, attrs, on, text, hidden, ...props }, ...children)
 * children: nodes, strings (as text) or null / false (skipped).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'attrs')
      for (const [a, v] of Object.entries(value)) {
        if (v !== undefined && v !== null && v !== false) node.setAttribute(a, v === true ? '' : String(v));
      }
    else if (key === 'on') for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (key === 'text') node.textContent = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else node[key] = value;
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** A number as students read it: −∞ for masked scores, fewer decimals for big values. */
export function fmt(v, digits = 3) {
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  if (Number.isNaN(v)) return 'undefined';
  const a = Math.abs(v);
  let s;
  if (a !== 0 && (a >= 1e5 || a < 1e-4)) s = v.toExponential(2);
  else if (a >= 100) s = v.toFixed(Math.max(0, digits - 2));
  else if (a >= 10) s = v.toFixed(Math.max(0, digits - 1));
  else s = v.toFixed(digits);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1); // no "-0.000"
  return s.replace('-', '−');
}

/** A number short enough for a heatmap cell: fixed decimals, never an exponent. */
export function fmtCell(v, digits = 2) {
  if (!Number.isFinite(v)) return fmt(v);
  const a = Math.abs(v);
  let s =
    a >= 1000
      ? v.toPrecision(2).replace('e+', 'e')
      : a >= 100
        ? v.toFixed(0)
        : a >= 10
          ? v.toFixed(Math.max(0, digits - 1))
          : v.toFixed(digits);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1);
  return s.replace('-', '−');
}

/** Plain ASCII number for data attributes and CSV (full float32 precision). */
/** 2.3e9 FLOPs -> "2.30 GFLOP" */
export function flopText(x) {
  if (x >= 1e12) return `${(x / 1e12).toFixed(2)} TFLOP`;
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)} GFLOP`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} MFLOP`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(2)} kFLOP`;
  return `${x} FLOP`;
}

export function num(v) {
  if (v === -Infinity) return '-Infinity';
  if (v === Infinity) return 'Infinity';
  return String(v);
}

/** "6×16" */
export function shapeText(shape) {
  return shape.join('×');
}

/** A token as a label: empty / whitespace pieces become visible. */
export function tokenText(piece) {
  if (piece === ' ') return '␣';
  if (piece === '\n') return '⏎';
  if (piece === '\t') return '⇥';
  return piece;
}

const ORDINALS = ['1st', '2nd', '3rd'];

/**
 * 'the 2nd ' when the word at position j of `words` occurs more than once in them (the same text,
 * ignoring a BPE piece's leading space): which of them is meant, to put before it. '' for a word
 * that occurs once.
 */
export function occurrence(words, j) {
  const key = (w) => String(w).trim();
  const same = [];
  words.forEach((w, i) => {
    if (key(w) === key(words[j])) same.push(i);
  });
  if (same.length < 2) return '';
  const k = same.indexOf(j);
  return `the ${ORDINALS[k] ?? `${k + 1}th`} `;
}

/** Visually hidden text for screen readers. */
export function srOnly(text) {
  return el('span', { className: 'sr-only', text });
}

export function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}

/** Dispatches a composed, bubbling CustomEvent from `node`. */
export function emit(node, type, detail) {
  node.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

/** A labelled <select>. options: [{ value, label, disabled }] or [{ group, options }] */
export function select(label, options, value, onChange, { id, className } = {}) {
  const sel = el('select', { id, on: { change: () => onChange(sel.value) } });
  fillSelect(sel, options, value);
  return el('label', { className: className || 'field' }, el('span', { text: label }), sel);
}

/** A wide labelled field for a sentence box: grows to share a row, at most 40em. */
export function wideField(label, control) {
  return el(
    'label',
    { className: 'field wide', style: { flex: '1 1 20em', minWidth: '0', maxWidth: '40em' } },
    el('span', { text: label }),
    control,
  );
}

/** A labelled integer slider with a readout: { input, out, node }. */
export function rangeField(label, [lo, hi], value, onInput) {
  const input = el('input', {
    type: 'range',
    min: lo,
    max: hi,
    value,
    step: 1,
    attrs: { 'aria-label': label },
    on: { input: onInput },
  });
  const out = el('span', { className: 'mono' });
  return { input, out, node: el('label', { className: 'field inline' }, el('span', { text: label }), input, out) };
}

/** A slider over the steps of something, 0 to a max the caller sets later; pick(i) runs as it moves. */
export function stepSlider(label, pick) {
  const input = el('input', {
    type: 'range',
    min: 0,
    max: 0,
    value: 0,
    attrs: { 'aria-label': label },
    on: { input: () => pick(Number(input.value)) },
  });
  return input;
}

/** The box of a segmented choice (role="group", named for a screen reader); choiceButtons fills it. */
export function segGroup(name) {
  return el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': name } });
}

/**
 * Fills a segmented choice: one small button per value, the current one pressed; label(v) names a
 * button for a screen reader, pick(v) runs when it is clicked.
 */
export function choiceButtons(group, values, current, label, pick) {
  group.replaceChildren(
    ...values.map((v) =>
      el('button', {
        type: 'button',
        className: 'small',
        text: String(v),
        attrs: { 'aria-pressed': String(v === current), 'aria-label': label(v) },
        on: { click: () => pick(v) },
      }),
    ),
  );
}

/** A row of controls (data-control names it) led by a labelled segmented choice, then `more`. */
export function segRow(control, label, group, ...more) {
  return el(
    'div',
    { className: 'controls', dataset: { control } },
    el('span', { className: 'field inline' }, el('span', { text: label }), group),
    ...more,
  );
}

export function fillSelect(sel, options, value) {
  sel.replaceChildren();
  for (const o of options) {
    if (o.group) {
      const g = el('optgroup', { label: o.group });
      for (const p of o.options) g.append(el('option', { value: p.value, text: p.label, disabled: !!p.disabled }));
      sel.append(g);
    } else {
      sel.append(el('option', { value: o.value, text: o.label, disabled: !!o.disabled }));
    }
  }
  if (value !== undefined) sel.value = String(value);
}

// Boxes that scroll sideways (or down) when their content is wider than the view: formulas,
// tables of numbers. A keyboard user can scroll one only if it can take focus, so each that
// overflows gets tabindex="0" (and loses it when it no longer does). It only adds a tab stop to
// boxes with no focusable content of their own. keyboardScrollable(root) checks now, and again
// (once per frame at most) whenever the content of `root` changes; the caller checks on resize.
const SCROLLERS = '.formula, .scroll-x, table.nums, .terms';
const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([data-scroll-focus])';
const watched = new WeakSet();
export function keyboardScrollable(root) {
  if (!watched.has(root)) {
    watched.add(root);
    let pending = false;
    new MutationObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        markScrollable(root);
      });
    }).observe(root, { childList: true, subtree: true });
  }
  markScrollable(root);
}

function markScrollable(root) {
  for (const n of root.querySelectorAll(SCROLLERS)) {
    let scrolls = false;
    if (n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1) {
      const cs = getComputedStyle(n);
      scrolls =
        (n.scrollWidth > n.clientWidth + 1 && /auto|scroll/.test(cs.overflowX)) ||
        (n.scrollHeight > n.clientHeight + 1 && /auto|scroll/.test(cs.overflowY));
    }
    const want = scrolls && !n.querySelector(FOCUSABLE);
    if (want && !n.hasAttribute('tabindex')) {
      n.tabIndex = 0;
      n.dataset.scrollFocus = '';
    } else if (!want && 'scrollFocus' in n.dataset) {
      n.removeAttribute('tabindex');
      delete n.dataset.scrollFocus;
    }
  }
}

/**
 * The words a page shows for an error: one the core raised in the core's own words (the wrapper's
 * coreMessage, without the name of the call that its message starts with for programmers,
 * "forward: "), any other error's message. Every place of the page that shows an error reads it here.
 */
export function errorText(err) {
  if (err && typeof err.coreMessage === 'string') return err.coreMessage;
  return err && err.message ? err.message : String(err);
}

/** The distinct words at positions `unknown` of `pieces`, quoted: the first `max`, then "and N more". */
/**
 * Text a sentence quotes (a word, a piece, generated text): in straight double quotes, or in curly
 * ones when it holds a straight double quote itself, so that text with quotes in it does not read
 * as two quotations ("" or " The newer, the "blong" ...").
 */
export function quote(text) {
  const t = String(text);
  return t.includes('"') ? `“${t}”` : `"${t}"`;
}

export function quotedWords(pieces, unknown, max = Infinity) {
  const words = [...new Set(unknown.map((i) => quote(pieces[i])))];
  return words.length > max ? `${words.slice(0, max).join(', ')} and ${words.length - max} more` : words.join(', ');
}
