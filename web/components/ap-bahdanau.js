// <ap-bahdanau> (bahdanau): additive attention (Bahdanau, Cho and Bengio 2015, notes 004).
// Encoder states h_j: a bidirectional RNN over the page's tokens (h_j = [forward; backward]);
// decoder states s_t: an RNN reading the same tokens, so output step t looks from s_{t-1}.
// The core computes e_tj = v^T tanh(W_s s_{t-1} + W_h h_j), alpha = softmax, C_t = sum alpha h,
// and records every stage (W_s, W_h, v, W_s s, W_h h, the tanh layer for every (t, j), the
// scores, weights and context); the view shows them one by one for the chosen step t, each with
// its formula and a one-line caption, and explains a clicked cell term by term. Beside it, on
// the same states, scaled dot-product attention. A decoder step t is chosen with a stepper or
// by clicking a row of either alignment matrix. Attribute t (1-based step).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { matrix, rowOf } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/playground.js';
import { renderTex, tex } from '../lib/katex.js';
import { colAt, explainBox, rowAt, softmaxTerms } from '../lib/explain.js';
import { bidirectionalStates, rnnStates, stepControls, stepOf, tokenRows } from '../lib/rnn-view.js';
import { lookupStages } from '../lib/lookup-view.js';

const D_HALF = 4;          // each direction of the encoder
const D = 2 * D_HALF;      // encoder and decoder state width (equal, so s . h is defined)
const D_A = 8;             // width of the additive score's hidden layer
const SEEDS = { encoder: 11, decoder: 13, additive: 17 };
const m = (source) => tex(source, { className: 'math' });
const f = (v) => fmt(v, 4);

// The additive side, one block per stage: heatmap name, then (for step t) its formula and caption.
const ADD_STEPS = ['add-ws', 'add-wh', 'add-tanh', 'add-v', 'add-e', 'add-alpha', 'add-context'];

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

export class ApBahdanau extends ApWidget {
  static concept = 'bahdanau';
  static extraAttributes = ['t'];

  build() {
    this.stepper = stepControls('decoder step t', (t) => this.setAttribute('t', String(t)));
    this.formula = el('div', { className: 'formula' });
    this.setup = el('p', { className: 'note' });
    this.steps = new Map();
    this.add = el('div', { style: { display: 'grid', gap: '14px' } });
    for (const [k, name] of ADD_STEPS.entries()) {
      const s = {
        formula: el('span', { className: 'math' }),
        caption: el('p', { className: 'note', style: { margin: '2px 0 4px' } }),
        slot: el('div'),
        explain: el('div'),
      };
      s.node = el('div', { className: 'add-step', dataset: { step: name } },
        el('div', { style: { fontWeight: '600' } }, `${k + 1}. `, s.formula), s.caption, s.slot, s.explain);
      this.steps.set(name, s);
      this.add.append(s.node);
    }
    this.add.addEventListener('ap-cell-select', (e) => {
      if (!this.steps.has(e.detail.name)) return;
      this._picked = { name: e.detail.name, row: e.detail.row, col: e.detail.col };
      this._explain();
    });
    this.dot = el('div', { style: { display: 'grid', gap: '6px' } });
    this.maps = el('div', { className: 'col2' });
    this.maps.addEventListener('ap-cell-select', (e) => this.setAttribute('t', String(e.detail.row + 1)));
    this.body.append(
      el('p', { className: 'lead' }, 'Instead of compressing the whole input into one fixed-size vector, the decoder looks at all encoder states at every output step. For output position t, an alignment function (a small neural network) scores how well the previous decoder state ', m('s_{t-1}'),
        ' matches each encoder state ', m('h_j'), '; a softmax turns the scores into weights ', m('\\alpha_{tj}'), ', and the context vector ', m('C_t'),
        ' is the weighted sum of the encoder states. The α are not learnable parameters: they are computed from the input, for inputs of any length.'),
      this.formula, this.setup, this.stepper.node,
      el('div', { className: 'col2' },
        el('div', { className: 'panel' }, el('h4', { text: 'Additive (Bahdanau), step by step' }),
          el('p', { className: 'note', text: 'Click a cell of any step to see how the core’s number was made.' }), this.add),
        el('div', { className: 'panel' }, el('h4', { text: 'Scaled dot product, same states' }), this.dot)),
      el('h4', { text: 'Alignment matrices (rows: output steps t, columns: source tokens j; click a row to choose t)' }), this.maps);
  }

  renderKey(state) { return `${super.renderKey(state)}|t=${this.getAttribute('t') ?? ''}`; }

  render(run) {
    const ap = playgroundNow();
    const { x, n, d, labels } = tokenRows(run);
    this.stepper.node.hidden = this.hides('t');
    const t = stepOf(this, n);
    this.stepper.set(t, n);
    this.stepper.out.textContent = `t = ${t} of ${n}: producing "${labels[t - 1]}" from s_${t - 1}`;
    renderTex(this.formula, 'e_{tj} = v^\\top \\tanh\\big(W_s\\, s_{t-1} + W_h\\, h_j\\big), \\quad \\alpha_{tj} = \\frac{\\exp(e_{tj})}{\\sum_{k} \\exp(e_{tk})}, \\quad C_t = \\sum_j \\alpha_{tj}\\, h_j \\qquad \\text{vs.}\\quad e_{tj} = \\frac{s_{t-1} \\cdot h_j}{\\sqrt{d}}', { display: true });
    this.setup.textContent = `Encoder: a bidirectional RNN over your ${n} tokens, h_j = [→h_j; ←h_j] (${D} numbers). Decoder: an RNN reading the same tokens (a copy task), s_0 = 0. W_s, W_h, v and the RNNs have random seeded weights: this shows how the alignment is computed; a trained model (like the notes' translation example) learns weights that make it meaningful.`;

    // States (the core's RNNs), then both attentions on them (the core).
    const H = bidirectionalStates(ap, { x, n, dIn: d, dHalf: D_HALF, seed: SEEDS.encoder });
    const dec = rnnStates(ap, { x, n, dIn: d, dHidden: D, seed: SEEDS.decoder });
    const S = new Float32Array(n * D);     // row t-1 = s_{t-1}: s_0 = 0, then s_1 .. s_{n-1}
    S.set(dec.h.subarray(0, (n - 1) * D), D);
    const tr = ap.additiveAttention({ s: S, n, dS: D, h: H, m: n, dH: D, dA: D_A, seed: SEEDS.additive });
    let A;
    try {
      A = {
        Ws: tr.get('add_ws'), Wh: tr.get('add_wh'), v: tr.get('add_v'),
        ws: tr.get('add_s'), wh: tr.get('add_h'), tanh: tr.get('add_tanh'),
        e: tr.get('add_scores'), alpha: tr.get('add_weights'), c: tr.get('add_context'),
      };
    } finally {
      tr.dispose();
    }
    const B = lookupStages(ap, { Q: { values: S, rows: n, cols: D }, K: { values: H, rows: n, cols: D }, V: { values: H, rows: n, cols: D }, score: 'scaled' });

    const steps = labels.map((l, k) => `${k + 1} ${l}`);
    const src = labels;
    const i = t - 1;
    const p = t - 1; // the decoder state's index: s_{t-1}
    const units = Array.from({ length: D_A }, (_, c) => String(c));
    this._cur = { t, n, labels, H, s: S.slice(i * D, (i + 1) * D), A, tanh: A.tanh.slice(i * n * D_A, (i + 1) * n * D_A) };

    // The additive side: each stage for step t, from the core's trace.
    const one = (values, cols, at) => values.slice(at * cols, (at + 1) * cols);
    const show = (name, formula, caption, mat) => {
      const s = this.steps.get(name);
      renderTex(s.formula, formula);
      s.caption.textContent = caption;
      this.place(s.slot, this.hm(name, mat));
    };
    show('add-ws', `W_s\\, s_{${p}}`,
      `The previous decoder state s_${p}${t === 1 ? ' (= 0 at the start, so this row is 0)' : ''} through W_s (${D}×${D_A}): ${D_A} numbers, made once for step ${t}.`,
      matrix({ name: 'add-ws', title: `W_s s_${p}`, values: one(A.ws, D_A, i), rows: 1, cols: D_A, rowLabels: [`s${p}`], colLabels: units, kind: 'div' }));
    show('add-wh', 'W_h\\, h_j \\quad (j = 1, \\dots, n)',
      `Every encoder state through W_h (${D}×${D_A}): one row per source token, made once and reused at every decoder step.`,
      matrix({ name: 'add-wh', title: 'W_h h_j', values: A.wh, rows: n, cols: D_A, rowLabels: src, colLabels: units, rowAxis: 'source j', kind: 'div' }));
    show('add-tanh', `\\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_j\\big)`,
      `Row 1 added to every row of 2, squashed by tanh into (−1, 1): the alignment network's hidden layer for step ${t}, one row per source token.`,
      matrix({ name: 'add-tanh', title: `tanh layer, t = ${t}`, values: this._cur.tanh, rows: n, cols: D_A, rowLabels: src, colLabels: units, rowAxis: 'source j', kind: 'div', domain: [-1, 1] }));
    show('add-v', 'v',
      `The output weights (${D_A} numbers): they turn each row of 3 into one number. The notes' eq. (6) stops at the tanh vector; v is the network's last layer.`,
      matrix({ name: 'add-v', title: 'v', values: A.v, rows: 1, cols: D_A, rowLabels: ['v'], colLabels: units, kind: 'div' }));
    show('add-e', `e_{${t}j} = v^\\top \\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_j\\big)`,
      `Each row of 3 dotted with v: one score per source token (any real number).`,
      matrix({ name: 'add-e', title: `scores e_${t}j`, values: one(A.e, n, i), rows: 1, cols: n, rowLabels: [`t=${t}`], colLabels: src, kind: 'div' }));
    show('add-alpha', `\\alpha_{${t}j} = \\exp(e_{${t}j}) \\,/\\, \\textstyle\\sum_k \\exp(e_{${t}k})`,
      'The softmax over the source tokens: positive weights that sum to 1.',
      matrix({ name: 'add-alpha', title: `weights α_${t}j`, values: one(A.alpha, n, i), rows: 1, cols: n, rowLabels: [`t=${t}`], colLabels: src, kind: 'prob' }));
    show('add-context', `C_{${t}} = \\sum_j \\alpha_{${t}j}\\, h_j`,
      `The encoder states averaged with those weights: the ${D} numbers the decoder reads at step ${t}.`,
      matrix({ name: 'add-context', title: `context C_${t}`, values: one(A.c, D, i), rows: 1, cols: D, rowLabels: [`t=${t}`], kind: 'div' }));

    // The dot-product side, on the same states.
    const mat = (name, title, values, rows, cols, extra = {}) => matrix({ name, title, values, rows, cols, kind: 'div', ...extra });
    const Hm = mat('h', 'encoder states h_j', H, n, D, { rowLabels: src, rowAxis: 'source j' });
    const Sm = mat('s', 's_{t−1}', S, n, D, { rowLabels: steps.map((_, k) => `s${k}`) });
    const rowM = (name, title, values, cols, kind, colLabels = null) => matrix({ name, title, values: one(values, cols, i), rows: 1, cols, rowLabels: [`t=${t}`], colLabels, kind });
    this.place(this.dot,
      this.hm('d-s', rowOf(Sm, i, { title: `1. decoder state s_${p}${t === 1 ? ' = 0 (start)' : ''}` })),
      this.hm('d-h', matrix({ ...Hm, title: '2. encoder states h_j (keys and values)' })),
      this.hm('d-e', rowM('e', `3. scores e_${t}j = s_${p}·h_j / √${D}`, B.scores, n, 'div', src)),
      this.hm('d-alpha', rowM('alpha', `4. weights α_${t}j = softmax`, B.weights, n, 'prob', src)),
      this.hm('d-c', rowM('context', `5. context C_${t} = Σ_j α_${t}j h_j`, B.out, D, 'div')));

    const align = (name, title, values) => {
      const h = this.hm(name, matrix({ name, title, values, rows: n, cols: n, rowLabels: steps, colLabels: src, kind: 'prob', corner: 't \\ j', rowAxis: 'output step t', colAxis: 'source j' }));
      h.highlightRow = i;
      return h;
    };
    this.place(this.maps, align('align-add', 'additive: α_tj', A.alpha), align('align-dot', 'scaled dot product: α_tj', B.weights));

    // A picked cell stays explained (with the new step's numbers) while it exists.
    const pk = this._picked;
    const shown = pk && this._heatmaps.get(pk.name)?.matrix;
    if (pk && !(shown && pk.row < shown.rows && pk.col < shown.cols)) this._picked = null;
    this._explain();

    this.dataset.t = String(t);
    this.dataset.n = String(n);
    this.dataset.addScores = JSON.stringify(Array.from(one(A.e, n, i)));
    this.dataset.dotScores = JSON.stringify(Array.from(B.scores.slice(i * n, (i + 1) * n)));
  }

  /** The picked cell of the additive side, term by term (the result is always the core's). */
  _explain() {
    for (const s of this.steps.values()) s.explain.replaceChildren();
    const pk = this._picked, cur = this._cur;
    if (!pk || !cur) return;
    const x = this._terms(pk.name, pk.row, pk.col);
    if (!x) return;
    const box = explainBox(x);
    box.dataset.cell = `${pk.name}:${pk.row},${pk.col}`;
    this.steps.get(pk.name).explain.append(box);
    this._heatmaps.get(pk.name).selected = { row: pk.row, col: pk.col };
  }

  _terms(name, row, col) {
    const { t, n, labels, H, s, A, tanh } = this._cur;
    const p = t - 1, i = t - 1;
    const j = row, c = col;
    const src = (k) => `"${labels[k]}"`;
    const core = (v) => `core: ${f(v)}`;
    if (name === 'add-ws') {
      const { lines, sum } = productLines(s, colAt(A.Ws, D, D_A, c), (k) => `s_${p}[${k}] · W_s[${k},${c}]`);
      return { title: `(W_s s_${p})[${c}]`, formula: `(W_s\\, s_{${p}})_{${c}} = \\sum_k s_{${p},k}\\, W_s[k, ${c}]`, lines, result: `Σ = ${f(sum)}   ${core(A.ws[i * D_A + c])}` };
    }
    if (name === 'add-wh') {
      const { lines, sum } = productLines(rowAt(H, D, j), colAt(A.Wh, D, D_A, c), (k) => `h_${j + 1}[${k}] · W_h[${k},${c}]`);
      return { title: `(W_h h_${j + 1})[${c}], source ${src(j)}`, formula: `(W_h\\, h_{${j + 1}})_{${c}} = \\sum_k h_{${j + 1},k}\\, W_h[k, ${c}]`, lines, result: `Σ = ${f(sum)}   ${core(A.wh[j * D_A + c])}` };
    }
    if (name === 'add-tanh') {
      const a = A.ws[i * D_A + c], b = A.wh[j * D_A + c];
      return {
        title: `tanh layer [${src(j)}, ${c}] at t = ${t}`,
        formula: `\\tanh\\big((W_s\\, s_{${p}})_{${c}} + (W_h\\, h_{${j + 1}})_{${c}}\\big)`,
        lines: [`  ${f(a).padStart(8)}   (W_s s_${p})[${c}], step 1`, `+ ${f(b).padStart(8)}   (W_h h_${j + 1})[${c}], step 2 row ${src(j)}`, `= ${f(a + b).padStart(8)}   then tanh`],
        result: `tanh(${f(a + b)}) = ${f(Math.tanh(a + b))}   ${core(tanh[j * D_A + c])}`,
      };
    }
    if (name === 'add-v') {
      return { title: `v[${c}]`, lines: ['A parameter of the alignment network (seeded random here; learned in a trained model).'], result: `= ${f(A.v[c])}` };
    }
    if (name === 'add-e') {
      const { lines, sum } = productLines(A.v, rowAt(tanh, D_A, col), (k) => `v[${k}] · tanh[${k}]`);
      return { title: `e_${t},${col + 1}: step ${t}, source ${src(col)}`, formula: `e_{${t},${col + 1}} = \\sum_c v_c \\tanh\\big(W_s\\, s_{${p}} + W_h\\, h_{${col + 1}}\\big)_c`, lines, result: `Σ = ${f(sum)}   ${core(A.e[i * n + col])}` };
    }
    if (name === 'add-alpha') {
      const row = rowAt(A.e, n, i);
      const sm = softmaxTerms(row, col, labels);
      return { title: `α_${t},${col + 1}: step ${t}, source ${src(col)}`, formula: `\\alpha_{${t},${col + 1}} = \\frac{\\exp(e_{${t},${col + 1}})}{\\sum_k \\exp(e_{${t}k})}`, lines: sm.lines, result: `${f(sm.exps[col])} / ${f(sm.total)} = ${f(sm.value)}   ${core(A.alpha[i * n + col])}` };
    }
    if (name === 'add-context') {
      const { lines, sum } = productLines(rowAt(A.alpha, n, i), colAt(H, n, D, c), (k) => `α_${t},${k + 1} · h_${k + 1}[${c}], ${src(k)}`);
      return { title: `C_${t}[${c}]`, formula: `C_{${t}}[${c}] = \\sum_j \\alpha_{${t}j}\\, h_j[${c}]`, lines, result: `Σ = ${f(sum)}   ${core(A.c[i * D + c])}` };
    }
    return null;
  }
}

define(ApBahdanau);
