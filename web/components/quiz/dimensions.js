// The dimensions quiz (notes 002): the matrices form of multi-head attention; the reader picks
// n, d, h and types each matrix's shape; the core runs one layer of exactly those sizes
// (answers.js dimensionShapes) and marks each shape.
import { el, errorText } from '../../lib/dom.js';
import { numsTable } from '../../lib/view.js';
import { renderTex } from '../../lib/katex.js';
import { playgroundNow } from '../../lib/module.js';
import { dimensionShapes } from './answers.js';
import { Card } from './card.js';

// The sizes the reader can choose: [label, aria-label, default, min, max].
const SIZES = [
  ['n (tokens)', 'n', 6, 1, 32],
  ['d', 'd', 12, 1, 128],
  ['h (heads)', 'h', 3, 1, 16],
];

// The shapes asked for, in the notes' symbols.
const ITEMS = [
  { key: 'Q', tex: 'Q^l,\\ K^l,\\ V^l \\in' },
  { key: 'A', tex: "A^l,\\ A^{l'} \\in" },
  { key: 'O', tex: 'O^l \\in' },
  { key: 'concat', tex: '[O^1; \\dots; O^h] \\in' },
  { key: 'out', tex: 'O \\in' },
];

/** The card; its answer is computed here, from the sizes typed, whenever they change. */
export function dimensionsCard() {
  const c = new Card('dimensions', { title: 'Dimensions?', source: '002', prompt: null });
  const formula = el('div', { className: 'formula' });
  c.prompt.append(
    el('p', {
      text: 'The matrices form of multi-head attention, from the notes. Fill in the shapes for the sizes you choose; the core runs a layer of exactly these sizes and checks them.',
    }),
    formula,
  );
  const sizes = SIZES.map(([label, name, value, min, max]) => ({
    label,
    name,
    min,
    max,
    input: el('input', { type: 'number', min, max, step: 1, value, attrs: { 'aria-label': name } }),
  }));
  c.inputs.append(
    el(
      'div',
      { className: 'controls' },
      ...sizes.map((s) => el('label', { className: 'field' }, el('span', { text: s.label }), s.input)),
    ),
  );
  const rows = ITEMS.map((it) => {
    const shape = ['rows', 'columns'].map((part) =>
      el('input', { type: 'number', min: 1, step: 1, attrs: { 'aria-label': `${it.key} ${part}` } }),
    );
    const lhs = el('span', { className: 'lhs' });
    renderTex(lhs, `${it.tex}\\ \\mathbb{R}^{\\,?}`);
    const mark = el('span', { className: 'mark' });
    const node = el(
      'div',
      { className: 'shape-row', dataset: { shape: it.key } },
      lhs,
      shape[0],
      el('span', { text: '×' }),
      shape[1],
      mark,
    );
    return { key: it.key, shape, mark, node };
  });
  c.inputs.append(...rows.map((r) => r.node));

  let dims = null; // { sizes, shapes } of the sizes typed, or null when the core cannot build them
  c.answerWith({
    read: () => dims && rows.map((r) => r.shape.map((x) => Number(x.value))),
    missing: 'Choose sizes the core can build first.',
    judge: (typed) => {
      let all = true;
      rows.forEach((r, i) => {
        const want = dims.shapes[r.key];
        const ok = typed[i][0] === want[0] && typed[i][1] === want[1];
        all = all && ok;
        r.mark.className = `mark ${ok ? 'ok' : 'no'}`;
        r.mark.textContent = ok ? '✓' : `✗ the core: ${want.join(' × ')}`;
        r.node.dataset.correct = String(ok);
      });
      return [
        all,
        all ? "Correct: every shape matches the core's trace." : "Not all shapes match the core's trace (marked ✗).",
      ];
    },
    clear: () => {
      for (const r of rows) {
        r.mark.textContent = '';
        r.mark.className = 'mark';
        delete r.node.dataset.correct;
      }
    },
  });

  const refresh = () => {
    const ap = playgroundNow();
    if (!ap) return;
    let chosen;
    try {
      chosen = chosenSizes(sizes);
    } catch (err) {
      dims = null;
      c.check.disabled = true;
      c.explain.hidden = true;
      c.hint(errorText(err));
      return;
    }
    c.check.disabled = false;
    if (!c.answered) {
      c.feedback.className = 'feedback';
      c.feedback.textContent = '';
    }
    dims = { sizes: chosen, shapes: dimensionShapes(ap, chosen) };
    show(c, formula, dims);
  };
  for (const s of sizes) {
    s.input.addEventListener('change', () => {
      c.reset();
      refresh();
    });
  }
  // Drawn the first time it is shown (the core is loaded by then); the sizes redraw it after.
  c.show = () => {
    if (!dims) refresh();
  };
  return c;
}

/** n, d, h as typed, or an error that says which is out of range. */
function chosenSizes(sizes) {
  const out = {};
  for (const { name, input, min, max } of sizes) {
    const v = Number(input.value);
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${input.value}"`);
    }
    out[name] = v;
  }
  if (out.d % out.h) throw new Error(`d = ${out.d} is not divisible by h = ${out.h}: each head gets d/h columns`);
  return out;
}

function show(c, formula, { sizes, shapes }) {
  const { n, d, h } = sizes;
  renderTex(
    formula,
    `\\begin{gathered}Q^l = I W_Q^l,\\ K^l = I W_K^l,\\ V^l = I W_V^l,\\quad A^l = Q^l K^{lT},\\quad A^{l'} = \\mathrm{softmax}(A^l),\\quad O^l = A^{l'} V^l,\\quad O = [O^1; \\dots; O^h]\\, Y\\\\ I \\in \\mathbb{R}^{n \\times d} = \\mathbb{R}^{${n} \\times ${d}},\\quad W_Q^l, W_K^l, W_V^l \\in \\mathbb{R}^{d \\times \\frac{d}{h}} = \\mathbb{R}^{${shapes.W[0]} \\times ${shapes.W[1]}},\\quad Y \\in \\mathbb{R}^{d \\times d} = \\mathbb{R}^{${shapes.Y[0]} \\times ${shapes.Y[1]}},\\quad h = ${h}\\end{gathered}`,
    { display: true },
  );
  c.explain.replaceChildren(
    el('p', {
      text: `The core's trace of one attention layer with n = ${n}, d = ${d}, h = ${h} (each head has d/h = ${shapes.O[1]} columns):`,
    }),
    numsTable({
      header: ['matrix', 'notes (symbols)', 'the core'],
      rows: [
        [
          'Q^l, K^l, V^l',
          'n × d/h',
          `${shapes.Q.join(' × ')} (q is ${n} × ${d} for all heads; head l is its block of ${shapes.O[1]} columns)`,
        ],
        ["A^l, A^l'", 'n × n', `${shapes.A.join(' × ')} (weights: ${shapes.heads} heads of ${shapes.A.join(' × ')})`],
        ['O^l', 'n × d/h', shapes.O.join(' × ')],
        ['[O^1; …; O^h]', 'n × d', shapes.concat.join(' × ')],
        ['O', 'n × d', shapes.out.join(' × ')],
      ],
      className: 'nums dims-table',
    }),
    el('p', {
      className: 'note',
      text: 'The head axis works like a batch axis: h heads of n × d/h cost about one head of n × d.',
    }),
  );
}
