// "How was this number computed?": the arithmetic behind one cell, term by term, with the
// actual numbers, ending with the value the core computed. The terms are presentation (the
// products and exps a student would write by hand); the result shown is always the core's.
import { el, fmt } from './dom.js';
import { tex } from './katex.js';

const MAX_TERMS = 16;

function f(v) {
  return fmt(v, 4);
}

/** Term lines, eliding the middle of long sums. */
function termLines(terms) {
  if (terms.length <= MAX_TERMS) return terms;
  return [...terms.slice(0, 10), `   … ${terms.length - 14} more terms …`, ...terms.slice(-4)];
}

/**
 * An explanation box: { title, formula (TeX, our own strings only), lines: [text], result: text }.
 */
export function explainBox({ title, formula, lines = [], result, note }) {
  const box = el('div', { className: 'explain', attrs: { role: 'region', 'aria-label': `How ${title} was computed` } });
  box.append(el('h4', { text: title }));
  if (formula) box.append(tex(formula, { display: true }));
  if (lines.length)
    box.append(el('div', { className: 'terms' }, ...termLines(lines).map((l) => el('div', { text: l }))));
  if (result) box.append(el('div', { className: 'result', text: result }));
  if (note) box.append(el('p', { className: 'note', text: note }));
  return box;
}

/** out = Σ_c a_c · b_c (+ bias): a dot product term by term. */
export function dotTerms(a, b, { aName = 'a', bName = 'b', bias = null } = {}) {
  const lines = [];
  let sum = 0;
  for (let c = 0; c < a.length; c++) {
    const p = a[c] * b[c];
    sum += p;
    lines.push(
      `${c === 0 ? '  ' : '+ '}${f(a[c]).padStart(8)} × ${f(b[c]).padStart(8)}   (${aName}[${c}]·${bName}[${c}] = ${f(p)})`,
    );
  }
  if (bias !== null) {
    sum += bias;
    lines.push(`+ ${f(bias).padStart(8)}              (bias)`);
  }
  return { lines, sum };
}

/** Row i of a row-major (rows x cols) array. */
export function rowAt(values, cols, i) {
  return values.subarray ? values.subarray(i * cols, (i + 1) * cols) : values.slice(i * cols, (i + 1) * cols);
}

/** Column j of a row-major (rows x cols) array. */
export function colAt(values, rows, cols, j) {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) out[r] = values[r * cols + j];
  return out;
}

/** Softmax of a row, written out: exp(s_j - max) / Σ exp(s_k - max). */
export function softmaxTerms(row, j, labels) {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  const exps = Array.from(row, (v) => (v === -Infinity ? 0 : Math.exp(v - max)));
  const total = exps.reduce((a, b) => a + b, 0);
  const lines = Array.from(row, (v, k) => {
    const mark = k === j ? '→' : ' ';
    const lab = labels ? String(labels[k]).slice(0, 10).padEnd(10) : `k=${k}`.padEnd(10);
    if (v === -Infinity) return `${mark} ${lab} exp(−∞) = 0   (masked)`;
    return `${mark} ${lab} exp(${f(v)} − ${f(max)}) = ${f(exps[k])}`;
  });
  lines.push(`  sum of the exps = ${f(total)}`);
  return { lines, max, exps, total, value: exps[j] / total };
}
