// The steps of additive (Bahdanau) attention for one decoder step t (cpp/core/additive.cpp and the
// translator's cpp/core/rnn_attention.cpp record them): W_s s_{t-1} (add_s), W_h h_j (add_h), the
// tanh layer (add_tanh), v (add_v), the scores e_tj (add_scores), the weights α_tj (add_weights)
// and the context C_t (add_context). Each maker gives the same view as the transformer's steps
// (lib/steps/index.js), drawn by the same StepPanel; <ap-bahdanau> shows them in this order.
import { matrix } from '../heatmap.js';
import { fmt } from '../dom.js';
import { colAt, rowAt, softmaxTerms } from '../explain.js';

const f = (v) => fmt(v, 4);

/** Term lines of a sum of products a_k × b_k, each named by what(k). */
function productLines(a, b, what) {
  const lines = [];
  let sum = 0;
  for (let k = 0; k < a.length; k++) {
    sum += a[k] * b[k];
    lines.push(`${k === 0 ? '  ' : '+ '}${f(a[k]).padStart(8)} × ${f(b[k]).padStart(8)}   (${what(k)})`);
  }
  return { lines, sum };
}

// Row `at` of a row-major array of `cols` columns.
const one = (values, cols, at) => values.slice(at * cols, (at + 1) * cols);
const core = (v) => `core: ${f(v)}`;
// The heatmap numbers its columns itself (every 4th when they are many).
const UNITS = null;

/**
 * The run of one decoder step, as the makers read it: t (1-based), m source words with their
 * labels, the widths dS, dH, dA, the encoder states H (m × dH), the decoder state s_{t-1}, and A,
 * the core's additive stages for every step: Ws, Wh, v (the weights), ws (= add_s), wh (= add_h),
 * tanh (= add_tanh), e (= add_scores), alpha (= add_weights), c (= add_context); trained says
 * whether the weights were learned.
 */
function stepRun(d, t) {
  const i = t - 1;
  return { ...d, t, i, p: t - 1, tanh: d.A.tanh.slice(i * d.m * d.dA, (i + 1) * d.m * d.dA) };
}

function addS({ t, i, p, dS, dA, A, s, trained }) {
  const s0 = trained
    ? ' (s_0 is made from the backward state of the first word, which has read the whole sentence)'
    : ' (= 0 at the start, so this row is 0)';
  return {
    title: `W_s s_${p}: the previous decoder state, projected`,
    tex: `W_s\\, s_{${p}}`,
    inputs: [],
    output: matrix({
      name: 'add_s',
      title: `W_s s_${p}`,
      values: one(A.ws, dA, i),
      rows: 1,
      cols: dA,
      rowLabels: [`s${p}`],
      colLabels: UNITS,
      kind: 'div',
    }),
    changed: `The previous decoder state s_${p}${t === 1 ? s0 : ''} through W_s (${dS}×${dA}): ${dA} numbers, made once for step ${t}.`,
    explain: (row, c) => {
      const { lines, sum } = productLines(s, colAt(A.Ws, dS, dA, c), (k) => `s_${p}[${k}] · W_s[${k},${c}]`);
      return {
        title: `(W_s s_${p})[${c}]`,
        formula: `(W_s\\, s_{${p}})_{${c}} = \\sum_k s_{${p},k}\\, W_s[k, ${c}]`,
        lines,
        result: `Σ = ${f(sum)}   ${core(A.ws[i * dA + c])}`,
      };
    },
  };
}

// Stages add_h and add_tanh: one row of dA numbers per source word.
const perSource = ({ m, dA, labels }) => ({
  rows: m,
  cols: dA,
  rowLabels: labels,
  colLabels: UNITS,
  rowAxis: 'source j',
  kind: 'div',
});

function addH(r) {
  const { dH, dA, A, H, labels } = r;
  return {
    title: 'W_h h_j: every encoder state, projected',
    tex: 'W_h\\, h_j \\quad (j = 1, \\dots, n)',
    inputs: [],
    output: matrix({ name: 'add_h', title: 'W_h h_j', values: A.wh, ...perSource(r) }),
    changed: `Every encoder state through W_h (${dH}×${dA}): one row per source word, made once and reused at every decoder step.`,
    explain: (j, c) => {
      const { lines, sum } = productLines(
        rowAt(H, dH, j),
        colAt(A.Wh, dH, dA, c),
        (k) => `h_${j + 1}[${k}] · W_h[${k},${c}]`,
      );
      return {
        title: `(W_h h_${j + 1})[${c}], source "${labels[j]}"`,
        formula: `(W_h\\, h_{${j + 1}})_{${c}} = \\sum_k h_{${j + 1},k}\\, W_h[k, ${c}]`,
        lines,
        result: `Σ = ${f(sum)}   ${core(A.wh[j * dA + c])}`,
      };
    },
  };
}

function addTanh(r) {
  const { t, i, p, dA, A, tanh, labels } = r;
  return {
    title: `the tanh layer for t = ${t}`,
    tex: `\\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_j\\big)`,
    inputs: [],
    output: matrix({ name: 'add_tanh', title: `tanh layer, t = ${t}`, values: tanh, ...perSource(r), domain: [-1, 1] }),
    changed: `Row 1 added to every row of 2, squashed by tanh into (−1, 1): the alignment network's hidden layer for step ${t}, one row per source word.`,
    explain: (j, c) => {
      const a = A.ws[i * dA + c],
        b = A.wh[j * dA + c];
      return {
        title: `tanh layer ["${labels[j]}", ${c}] at t = ${t}`,
        formula: `\\tanh\\big((W_s\\, s_{${p}})_{${c}} + (W_h\\, h_{${j + 1}})_{${c}}\\big)`,
        lines: [
          `  ${f(a).padStart(8)}   (W_s s_${p})[${c}], step 1`,
          `+ ${f(b).padStart(8)}   (W_h h_${j + 1})[${c}], step 2 row "${labels[j]}"`,
          `= ${f(a + b).padStart(8)}   then tanh`,
        ],
        result: `tanh(${f(a + b)}) = ${f(Math.tanh(a + b))}   ${core(tanh[j * dA + c])}`,
      };
    },
  };
}

function addV({ dA, A, trained }) {
  return {
    title: 'v: the output weights',
    tex: 'v',
    inputs: [],
    output: matrix({
      name: 'add_v',
      title: 'v',
      values: A.v,
      rows: 1,
      cols: dA,
      rowLabels: ['v'],
      colLabels: UNITS,
      kind: 'div',
    }),
    changed: `The output weights (${dA} numbers): they turn each row of 3 into one number. The notes' eq. (6) stops at the tanh vector; v is the network's last layer.`,
    explain: (row, c) => ({
      title: `v[${c}]`,
      lines: [
        trained
          ? 'A parameter of the alignment network, learned by backpropagation with the rest of the model.'
          : 'A parameter of the alignment network (seeded random here; learned in a trained model).',
      ],
      result: `= ${f(A.v[c])}`,
    }),
  };
}

function addScores({ t, i, p, m: n, dA, A, tanh, labels }) {
  return {
    title: `the scores e_${t}j`,
    tex: `e_{${t}j} = v^\\top \\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_j\\big)`,
    inputs: [],
    output: matrix({
      name: 'add_scores',
      title: `scores e_${t}j`,
      values: one(A.e, n, i),
      rows: 1,
      cols: n,
      rowLabels: [`t=${t}`],
      colLabels: labels,
      kind: 'div',
    }),
    changed: 'Each row of 3 dotted with v: one score per source word (any real number).',
    explain: (row, col) => {
      const { lines, sum } = productLines(A.v, rowAt(tanh, dA, col), (k) => `v[${k}] · tanh[${k}]`);
      return {
        title: `e_${t},${col + 1}: step ${t}, source "${labels[col]}"`,
        formula: `e_{${t},${col + 1}} = \\sum_c v_c \\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_{${col + 1}}\\big)_c`,
        lines,
        result: `Σ = ${f(sum)}   ${core(A.e[i * n + col])}`,
      };
    },
  };
}

function addWeights({ t, i, m: n, A, labels }) {
  return {
    title: `the weights α_${t}j`,
    tex: `\\alpha_{${t}j} = \\exp(e_{${t}j}) \\,/\\, \\textstyle\\sum_k \\exp(e_{${t}k})`,
    inputs: [],
    output: matrix({
      name: 'add_weights',
      title: `weights α_${t}j`,
      values: one(A.alpha, n, i),
      rows: 1,
      cols: n,
      rowLabels: [`t=${t}`],
      colLabels: labels,
      kind: 'prob',
    }),
    changed: 'The softmax over the source words: positive weights that sum to 1.',
    explain: (row, col) => {
      const sm = softmaxTerms(rowAt(A.e, n, i), col, labels);
      return {
        title: `α_${t},${col + 1}: step ${t}, source "${labels[col]}"`,
        formula: `\\alpha_{${t},${col + 1}} = \\frac{\\exp(e_{${t},${col + 1}})}{\\sum_k \\exp(e_{${t}k})}`,
        lines: sm.lines,
        result: `${f(sm.exps[col])} / ${f(sm.total)} = ${f(sm.value)}   ${core(A.alpha[i * n + col])}`,
      };
    },
  };
}

function addContext({ t, i, m: n, dH, A, H, labels }) {
  return {
    title: `the context C_${t}`,
    tex: `C_{${t}} = \\sum_j \\alpha_{${t}j}\\, h_j`,
    inputs: [],
    output: matrix({
      name: 'add_context',
      title: `context C_${t}`,
      values: one(A.c, dH, i),
      rows: 1,
      cols: dH,
      rowLabels: [`t=${t}`],
      kind: 'div',
    }),
    changed: `The encoder states averaged with those weights: the ${dH} numbers the decoder reads at step ${t}.`,
    explain: (row, c) => {
      const { lines, sum } = productLines(
        rowAt(A.alpha, n, i),
        colAt(H, n, dH, c),
        (k) => `α_${t},${k + 1} · h_${k + 1}[${c}], "${labels[k]}"`,
      );
      return {
        title: `C_${t}[${c}]`,
        formula: `C_{${t}}[${c}] = \\sum_j \\alpha_{${t}j}\\, h_j[${c}]`,
        lines,
        result: `Σ = ${f(sum)}   ${core(A.c[i * dH + c])}`,
      };
    },
  };
}

/** The makers by the core's stage name, in the order of the computation. */
export const ADDITIVE_STEPS = {
  add_s: addS,
  add_h: addH,
  add_tanh: addTanh,
  add_v: addV,
  add_scores: addScores,
  add_weights: addWeights,
  add_context: addContext,
};

/**
 * The views of decoder step t (1-based): [{ name, view }] in order. d: the run (see stepRun) with
 * S, the decoder states s_0 .. s_{T-1} as rows of dS, from which s_{t-1} is read.
 */
export function additiveViews(d, t) {
  const r = stepRun(d, t);
  r.s = d.S.slice(r.p * d.dS, (r.p + 1) * d.dS);
  return Object.entries(ADDITIVE_STEPS).map(([name, make]) => ({ name, view: make(r) }));
}
