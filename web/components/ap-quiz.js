// <ap-quiz> (quiz): the notes' own questions, each interactive, each answered by the core:
//  - "Thinking Machines" (notes 003, answer (c)): the preset softmax.thinking-machines run by the
//    core gives the weights; the option whose coefficients they match is the answer.
//  - "Transformers vs RNNs" (notes 003, answer (b)): each statement is tested with the core (an
//    Elman RNN and self-attention on the same inputs, a permutation, a transformer layer's
//    tensors) or with counted multiply-adds; the statement that holds is the answer.
//  - The dimensions quiz (notes 002): shapes typed for chosen n, d, h, checked against the shapes
//    of a core trace with those sizes.
//  - "Predict, then reveal": questions generated from a view's numbers (the notes' presets and
//    the page's own sentence); the student commits a guess, then the view itself is revealed.
// Attributes: questions (comma list of ids: thinking-machines, transformers-vs-rnns, dimensions,
// predict), plus the page's state (text, model, preset...) for the predict questions.
// Events: 'ap-quiz-answer' { question, correct } after every check.
import { ApWidget, define } from '../lib/widget.js';
import { el, emit, fmt, num, tokenText } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { renderTex } from '../lib/katex.js';
import { getPlayground, playgroundNow } from '../lib/playground.js';
import { runFor } from '../lib/runs.js';
import { runSpec, STATE_KEYS } from '../lib/state.js';
import './ap-softmax.js';
import './ap-causal-mask.js';

export const QUESTION_IDS = ['thinking-machines', 'transformers-vs-rnns', 'dimensions', 'predict'];
// The predict-then-reveal questions one by one ('predict' names all three), so the learning path
// can place each beside its concept.
const PREDICT_IDS = ['predict-cat-sat', 'predict-causal', 'predict-live'];

// ---- the core's answers (pure functions of the module `ap`) --------------------------------

const TM_OPTIONS = [
  { key: 'a', coef: [0.5, 0.5] }, { key: 'b', coef: [0.54, 0.46] },
  { key: 'c', coef: [0.88, 0.12] }, { key: 'd', coef: [0.12, 0.88] },
];

/** "Thinking Machines": scores, scaled scores, weights (and without scaling), and the option they match. */
export function thinkingMachines(ap) {
  const id = 'softmax.thinking-machines';
  const p = ap.presets.get(id);
  const t = ap.presets.run(id);
  let scores, scaled, weights, v, z;
  try {
    scores = t.get('scores', { head: 0 });
    scaled = t.get('scaled', { head: 0 });
    weights = t.get('weights', { head: 0 });
    v = t.get('v');
    z = t.get('head_out', { head: 0 });
  } finally { t.dispose(); }
  const u = ap.attention({ x: p.x, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo, n: p.n, dModel: p.dModel, nHeads: p.nHeads, scale: false });
  let unscaled;
  try { unscaled = u.get('weights', { head: 0 }); } finally { u.dispose(); }
  const d = p.dModel, w = [weights[0], weights[1]];
  // The option whose coefficients are nearest the core's weights of "Thinking" (row 0).
  const gap = TM_OPTIONS.map((o) => Math.max(Math.abs(o.coef[0] - w[0]), Math.abs(o.coef[1] - w[1])));
  const answer = TM_OPTIONS[gap.indexOf(Math.min(...gap))].key;
  return {
    tokens: p.tokens, dK: p.dModel / p.nHeads, scores: [scores[0], scores[1]], scaled: [scaled[0], scaled[1]], weights: w,
    unscaled: [unscaled[0], unscaled[1]], v1: Array.from(v.slice(0, 3)), v2: Array.from(v.slice(d, d + 3)), z1: Array.from(z.slice(0, 3)), answer,
  };
}

/**
 * "Transformers vs RNNs": each statement tested. Same inputs for the RNN and for attention: the
 * notes' "clouds drift across blue sky" (004). Returns the numbers and the statements that hold.
 */
export function transformersVsRnns(ap, { n = 1000, d = 512, h = 8 } = {}) {
  const id = 'causal-mask.clouds';
  const p = ap.presets.get(id);
  const N = p.n, D = p.dModel;
  const attn = (x) => {
    const t = ap.attention({ x, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo, n: N, dModel: D, nHeads: 1, causal: false });
    try { return { out: t.get('attn_out'), weights: t.get('weights', { head: 0 }) }; } finally { t.dispose(); }
  };
  const rnn = (x) => {
    const t = ap.rnn({ x, n: N, dIn: D, dHidden: D, spectralRadius: 0.9, seed: 1 });
    try { return { h: t.get('rnn_h'), grad: t.get('rnn_grad_norm'), whh: t.shape('rnn_whh') }; } finally { t.dispose(); }
  };
  // (b) the RNN's state h_t needs h_{t-1}: the core's ||d h_T / d h_t|| is non-zero for every t
  // (a chain of T - t steps); attention's last row mixes every input in one weighted sum.
  const r = rnn(p.x), a = attn(p.x);
  const lastRow = Array.from(a.weights.slice((N - 1) * N, N * N));
  const chain = Array.from(r.grad);
  const rnnDepth = chain.filter((g) => g > 0).length; // states the last one depends on, one after another
  const attnDepth = 1;
  // (d) reverse the order of the tokens: attention's outputs are the same rows reversed (it cannot
  // tell the order without positional encodings); the RNN's final state changes.
  const perm = Array.from({ length: N }, (_, i) => N - 1 - i);
  const xp = new Float32Array(N * D);
  perm.forEach((src, i) => xp.set(p.x.subarray(src * D, (src + 1) * D), i * D));
  const ap2 = attn(xp), r2 = rnn(xp);
  let attnDiff = 0, rnnDiff = 0;
  perm.forEach((src, i) => { for (let c = 0; c < D; c++) attnDiff = Math.max(attnDiff, Math.abs(ap2.out[i * D + c] - a.out[src * D + c])); });
  for (let c = 0; c < D; c++) rnnDiff = Math.max(rnnDiff, Math.abs(r2.h[(N - 1) * D + c] - r.h[(N - 1) * D + c]));
  // (c) parameters of one layer: a transformer encoder layer of the original sizes, counted from
  // the core's own tensors, and an Elman RNN layer of the same width (W_xh, W_hh, b).
  const m = ap.createModel({ arch: 'encoder', dModel: d, nHeads: h, nLayers: 1, dFf: 4 * d, maxLen: 8, tokenizer: 'word', vocab: ['x'] }, { seed: 1 });
  let layerParams = 0;
  try {
    for (const t of m.tensors()) if (t.name.startsWith('encoder.0.')) layerParams += t.shape.reduce((x, y) => x * y, 1);
  } finally { m.dispose(); }
  const rnnParams = d * d + d * d + d;
  // (a) multiply-adds of one layer over n tokens (counted): RNN n (d·d + d·d); self-attention
  // 4 n d² (Q, K, V, W_O) + n² d (scores) + n² d (weighted sum).
  const rnnOps = n * 2 * d * d, attnOps = 4 * n * d * d + 2 * n * n * d;
  const holds = {
    a: attnOps < rnnOps,
    b: rnnDepth > attnDepth,
    c: layerParams < rnnParams,
    d: attnDiff > 1e-4,
  };
  return {
    tokens: p.tokens, N, chain, rnnDepth, attnDepth, lastRow, attnDiff, rnnDiff, layerParams, rnnParams, rnnOps, attnOps,
    sizes: { n, d, h }, holds, answer: Object.keys(holds).filter((k) => holds[k]),
  };
}

/** The dimensions quiz for sizes n, d, h: shapes from a core trace (one encoder layer). */
export function dimensionShapes(ap, { n, d, h }) {
  const m = ap.createModel({ arch: 'encoder', dModel: d, nHeads: h, nLayers: 1, dFf: 4 * d, maxLen: Math.max(8, n), tokenizer: 'word', vocab: ['a'] }, { seed: 1 });
  try {
    const t = m.forward(new Int32Array(n).fill(4));
    try {
      const q = t.shape('q'), one = t.shape('head_out', { head: 0 });
      const wq = m.tensors().find((x) => x.name === 'encoder.0.self_attn.wq').shape;
      return {
        I: t.shape('x'),
        W: [wq[0], one[1]],                 // W_Q^l: the block of d/h columns of W_Q (d × d) for head l
        Q: [q[0], one[1]],                  // Q^l = I W_Q^l: q's rows, one head's width
        A: t.shape('weights', { head: 0 }), // A^l and A^l' = softmax(A^l)
        O: one,                             // O^l = A^l' V^l
        concat: t.shape('concat'),          // [O^1; ...; O^h]
        Y: m.tensors().find((x) => x.name === 'encoder.0.self_attn.wo').shape,
        out: t.shape('attn_out'),           // O = [O^1; ...; O^h] Y
        heads: t.shape('weights')[0],
      };
    } finally { t.dispose(); }
  } finally { m.dispose(); }
}

/**
 * The fixed "predict, then reveal" questions: the row of "sat" in the notes' "the cat sat"
 * (000) and the row of "across" under the look-ahead mask in "clouds drift across blue sky" (004).
 */
export function predictFixed(ap) {
  const rowOf = (id, stage, word) => {
    const tokens = ap.presets.get(id).tokens;
    const i = tokens.indexOf(word), n = tokens.length;
    const t = ap.presets.run(id);
    try {
      const out = {};
      for (const s of stage) out[s] = Array.from(t.get(s, { head: 0 }).slice(i * n, (i + 1) * n));
      return { tokens, ...out };
    } finally { t.dispose(); }
  };
  const cat = rowOf('softmax.the-cat-sat', ['weights'], 'sat');
  const clouds = rowOf('causal-mask.clouds', ['masked', 'weights'], 'across');
  return {
    p1: { tokens: cat.tokens, row: cat.weights, argmax: cat.weights.indexOf(Math.max(...cat.weights)) },
    p2: { tokens: clouds.tokens, masked: clouds.masked, weights: clouds.weights, visible: clouds.tokens.filter((_, j) => clouds.masked[j] !== -Infinity) },
  };
}

// ---- the view -------------------------------------------------------------------------------

let sheet = null;
function ownSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(`
      :host { --_ok: var(--ap-ok, #2b8a3e); --_ok-bg: var(--ap-ok-bg, #e6f4ea); }
      @media (prefers-color-scheme: dark) { :host { --_ok: var(--ap-ok, #69db7c); --_ok-bg: var(--ap-ok-bg, #17301f); } }
      :host([theme="light"]) { --_ok: var(--ap-ok, #2b8a3e); --_ok-bg: var(--ap-ok-bg, #e6f4ea); }
      :host([theme="dark"]) { --_ok: var(--ap-ok, #69db7c); --_ok-bg: var(--ap-ok-bg, #17301f); }
      .q { margin: 12px 0; }
      .q h4 { margin: 0 0 4px; }
      .q h4 small { color: var(--_muted); font-weight: normal; margin-left: 6px; }
      fieldset { border: 0; padding: 0; margin: 6px 0; display: grid; gap: 4px; }
      fieldset label { display: flex; gap: 8px; align-items: center; cursor: pointer; }
      fieldset input[type=radio] { margin: 0; padding: 0; width: 18px; height: 18px; min-height: 0; flex: none; accent-color: var(--_accent); }
      .feedback { margin: 8px 0 4px; padding: 6px 10px; border-radius: 6px; }
      .feedback:empty { display: none; }
      .feedback.ok { color: var(--_ok); background: var(--_ok-bg); font-weight: 600; }
      .feedback.no { color: var(--_warn); background: var(--_warn-bg); font-weight: 600; }
      .explain-box { border-left: 3px solid var(--_border); padding: 2px 10px; margin: 6px 0; }
      .explain-box li { margin: 4px 0; }
      .explain-box .holds { color: var(--_ok); font-weight: 600; }
      .explain-box .fails { color: var(--_warn); font-weight: 600; }
      .shape-row { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 4px 0; }
      .shape-row .lhs { min-width: 12em; }
      @media (max-width: 480px) { .shape-row .lhs { flex-basis: 100%; } } /* its two boxes stay together on the next line */
      .shape-row input { width: 4.5em; }
      .shape-row .mark { font-weight: 600; }
      .shape-row .mark.ok { color: var(--_ok); }
      .shape-row .mark.no { color: var(--_warn); }
      .reveal { margin-top: 8px; }
      .mode { margin: 4px 0 8px; }
    `);
  }
  return sheet;
}

let instances = 0;

/** One question: title, prompt, inputs, Check, feedback, explanation. */
class Card {
  constructor(id, { title, source, prompt }) {
    this.id = id;
    this.title = el('h4', { text: title }, source ? el('small', { text: `notes ${source}` }) : null);
    this.prompt = el('div', { className: 'prompt' });
    if (typeof prompt === 'string') this.prompt.append(el('p', { text: prompt }));
    else if (prompt) this.prompt.append(prompt);
    this.inputs = el('div', { className: 'inputs' });
    this.check = el('button', { type: 'button', className: 'check', text: 'Check' });
    this.again = el('button', { type: 'button', className: 'again small', text: 'Try again', hidden: true });
    this.feedback = el('p', { className: 'feedback', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.explain = el('div', { className: 'explain-box', hidden: true });
    this.extra = el('div');
    this.node = el('section', { className: 'panel q', dataset: { question: id, result: 'unanswered' } },
      this.title, this.prompt, this.inputs, el('div', { className: 'controls' }, this.check, this.again), this.feedback, this.explain, this.extra);
    this.again.addEventListener('click', () => this.reset());
  }

  result(correct, text) {
    this.node.dataset.result = correct ? 'correct' : 'wrong';
    this.feedback.className = `feedback ${correct ? 'ok' : 'no'}`;
    this.feedback.textContent = text;
    this.explain.hidden = false;
    this.again.hidden = false;
    emit(this.node, 'ap-quiz-answer', { question: this.id, correct });
  }

  reset() {
    this.node.dataset.result = 'unanswered';
    this.feedback.className = 'feedback';
    this.feedback.textContent = '';
    this.explain.hidden = true;
    this.again.hidden = true;
    this.onReset?.();
  }

  get answered() { return this.node.dataset.result !== 'unanswered'; }
}

/** Radio buttons: options [{ key, text }]; returns { node, value(), enable(b), clear() }. */
function choices(name, options, label) {
  const inputs = options.map((o) => el('input', { type: 'radio', name, value: o.key }));
  const node = el('fieldset', {}, el('legend', { className: 'sr-only', text: label }),
    ...options.map((o, i) => el('label', { dataset: { option: o.key } }, inputs[i], el('span', { text: o.text }))));
  return {
    node,
    value: () => inputs.find((x) => x.checked)?.value ?? null,
    enable: (b) => inputs.forEach((x) => { x.disabled = !b; }),
    clear: () => inputs.forEach((x) => { x.checked = false; }),
  };
}

const sub = (k) => String(k).replace(/\d/g, (c) => '₀₁₂₃₄₅₆₇₈₉'[c]);
const big = (x) => (x >= 1e9 ? `${fmt(x / 1e9, 3)} G` : x >= 1e6 ? `${fmt(x / 1e6, 3)} M` : x >= 1e3 ? `${fmt(x / 1e3, 3)} k` : String(x));

export class ApQuiz extends ApWidget {
  static concept = 'quiz';
  static textInput = false;
  static extraAttributes = ['questions'];

  // The whole quiz was measured (lib/reserve.js); one question beside its concept is a fraction of it.
  reserveKey() { return this.hasAttribute('questions') ? null : this.localName; }

  build() {
    this.shadowRoot.adoptedStyleSheets = [...this.shadowRoot.adoptedStyleSheets, ownSheet()];
    this.uid = ++instances;
    this.body.append(this.lead = el('p', { className: 'lead', text: 'The notes\' own questions. Answer, then check: the answer and its explanation are computed by the core, with the same numbers the other views show. Then predict before you reveal: commit a guess about a view\'s numbers, and only then see the view.' }));
    this.cards = {};
    this.sections = el('div');
    this.body.append(this.sections);
    this._buildThinking();
    this._buildRnn();
    this._buildDims();
    this._buildPredict();
  }

  _shown() {
    const q = (this.getAttribute('questions') || '').split(/[\s,]+/).filter(Boolean);
    const ids = q.length ? [...QUESTION_IDS, ...PREDICT_IDS].filter((id) => q.includes(id)) : QUESTION_IDS;
    if (ids.includes('predict')) ids.push(...PREDICT_IDS.filter((id) => !ids.includes(id)));
    return ids;
  }

  // One question alone (placed beside its concept on the learning path): a title that says so.
  _single(shown) {
    const one = shown.filter((id) => id !== 'predict');
    const single = one.length === 1;
    this.titleNode.textContent = single ? (one[0].startsWith('predict') ? 'Predict, then reveal' : 'A question from the notes') : 'Questions from the notes';
    this.lead.hidden = single;
    return single;
  }

  // ---- Thinking Machines ----
  _buildThinking() {
    const c = new Card('thinking-machines', { title: '"Thinking Machines"', source: '003', prompt: 'Self-attention on "Thinking Machines" with d_k = 64: q₁·k₁ = 112, q₁·k₂ = 96. What would be the output vector for the word "Thinking" approximately?' });
    const opts = [
      { key: 'a', text: '(a) 0.5 v₁ + 0.5 v₂' }, { key: 'b', text: '(b) 0.54 v₁ + 0.46 v₂' },
      { key: 'c', text: '(c) 0.88 v₁ + 0.12 v₂' }, { key: 'd', text: '(d) 0.12 v₁ + 0.88 v₂' },
    ];
    const ch = choices(`tm-${this.uid}`, opts, 'Options');
    c.inputs.append(ch.node);
    c.check.addEventListener('click', () => {
      const v = ch.value();
      if (!v) { c.feedback.className = 'feedback no'; c.feedback.textContent = 'Pick an option first.'; return; }
      const r = this.data?.tm;
      if (!r) return;
      ch.enable(false);
      c.check.disabled = true;
      c.result(v === r.answer, v === r.answer ? `Correct: (${r.answer}).` : `Not quite: you chose (${v}); the core's weights give (${r.answer}).`);
    });
    c.onReset = () => { ch.enable(true); ch.clear(); c.check.disabled = false; };
    this.cards.tm = c;
  }

  _explainThinking(r) {
    const [s1, s2] = r.scores, [t1, t2] = r.scaled, [w1, w2] = r.weights;
    const c = this.cards.tm;
    c.explain.dataset.weights = `${num(w1)},${num(w2)}`;
    c.explain.replaceChildren(
      el('p', { text: `The core, on the notes' vectors: q₁·k₁ = ${fmt(s1, 3)}, q₁·k₂ = ${fmt(s2, 3)}; divided by √d_k = √${r.dK}: ${fmt(t1, 3)} and ${fmt(t2, 3)}; softmax: ` },
        el('b', { className: 'mono w', text: `${fmt(w1, 3)}, ${fmt(w2, 3)}` }), el('span', { text: '.' })),
      el('p', { text: `So z₁ = ${fmt(w1, 2)} v₁ + ${fmt(w2, 2)} v₂: option (${r.answer}). The core's z₁ starts [${r.z1.map((x) => fmt(x, 3)).join(', ')}] with v₁ = [${r.v1.map((x) => fmt(x, 3)).join(', ')}…] and v₂ = [${r.v2.map((x) => fmt(x, 3)).join(', ')}…].` }),
      el('ul', {},
        el('li', { text: `(a) 0.5 / 0.5 would need equal scores: "Thinking" matches itself better (${fmt(s1, 0)} > ${fmt(s2, 0)}).` }),
        el('li', { text: `(b) 0.54 / 0.46 is not what softmax gives for ${fmt(t1, 1)} and ${fmt(t2, 1)}: a difference of 2 in the exponent is a factor e² ≈ 7.4 between the weights.` }),
        el('li', { text: '(d) swaps the two weights.' }),
        el('li', { text: `Without the scaling the core gives ${fmt(r.unscaled[0], 6)} and ${fmt(r.unscaled[1], 3)}: softmax saturates on 112 and 96. That is why the scores are divided by √d_k.` })));
  }

  // ---- Transformers vs RNNs ----
  _buildRnn() {
    const c = new Card('transformers-vs-rnns', { title: 'Transformers vs RNNs', source: '003', prompt: 'Which of the following statements is correct?' });
    const opts = [
      { key: 'a', text: '(a) Transformers have fewer operations compared to RNNs' },
      { key: 'b', text: '(b) Transformers are easier to parallelize compared to RNNs' },
      { key: 'c', text: '(c) Transformers have less parameters compared to RNNs' },
      { key: 'd', text: '(d) Transformers are better at capturing positional information than RNNs' },
    ];
    const ch = choices(`rnn-${this.uid}`, opts, 'Options');
    c.inputs.append(ch.node);
    c.check.addEventListener('click', () => {
      const v = ch.value();
      if (!v) { c.feedback.className = 'feedback no'; c.feedback.textContent = 'Pick an option first.'; return; }
      const r = this.data?.rnn;
      if (!r) return;
      ch.enable(false);
      c.check.disabled = true;
      const ok = r.answer.includes(v);
      c.result(ok, ok ? `Correct: (${v}).` : `Not quite: you chose (${v}); the statement that holds is (${r.answer.join(', ')}).`);
    });
    c.onReset = () => { ch.enable(true); ch.clear(); c.check.disabled = false; };
    this.cards.rnn = c;
  }

  _explainRnn(r) {
    const mark = (k) => el('span', { className: r.holds[k] ? 'holds' : 'fails', text: r.holds[k] ? 'holds' : 'does not hold' });
    const { n, d, h } = r.sizes;
    const toks = r.tokens.join(' ');
    this.cards.rnn.explain.dataset.answer = r.answer.join(',');
    this.cards.rnn.explain.replaceChildren(
      el('p', { text: `Each statement tested (the RNN and attention below are the core's, on the same vectors for "${toks}", notes 004):` }),
      el('ul', {},
        el('li', { dataset: { option: 'a' } }, el('b', { text: '(a) fewer operations: ' }), mark('a'),
          el('span', { text: `. Counted multiply-adds of one layer for n = ${n} tokens, d = ${d}: RNN n·2d² = ${big(r.rnnOps)}; self-attention 4nd² + 2n²d = ${big(r.attnOps)}. Attention is O(n²d), the RNN O(nd²): for n > d attention does more work.` })),
        el('li', { dataset: { option: 'b' } }, el('b', { text: '(b) easier to parallelize: ' }), mark('b'),
          el('span', { text: `. The RNN's last state depends on every earlier one through a chain: ‖∂h_T/∂h_t‖ = ${r.chain.map((g) => fmt(g, 3)).join(', ')} for t = 0…${r.N - 1} (T = ${r.N - 1}), all non-zero, so ${r.rnnDepth} states must be computed one after another. Attention's last row mixes all ${r.N} inputs in one weighted sum (weights ${r.lastRow.map((x) => fmt(x, 2)).join(', ')}), and every row at once: ${r.attnDepth} parallel step.` })),
        el('li', { dataset: { option: 'c' } }, el('b', { text: '(c) fewer parameters: ' }), mark('c'),
          el('span', { text: `. One transformer encoder layer with d = ${d}, h = ${h}, d_ff = ${4 * d} (counted from the core's tensors): ${big(r.layerParams)} parameters; an RNN layer of the same width (W_xh, W_hh, b): ${big(r.rnnParams)}.` })),
        el('li', { dataset: { option: 'd' } }, el('b', { text: '(d) better at positional information: ' }), mark('d'),
          el('span', { text: `. Reverse the tokens: attention's outputs are the same rows in reverse order (largest difference ${fmt(r.attnDiff, 3)}): without positional encodings it cannot see the order at all. The RNN's final state changes by up to ${fmt(r.rnnDiff, 3)}: it reads the order by construction.` }))));
  }

  // ---- the dimensions quiz ----
  _buildDims() {
    const c = new Card('dimensions', { title: 'Dimensions?', source: '002', prompt: null });
    this.dimsFormula = el('div', { className: 'formula' });
    c.prompt.append(el('p', { text: 'The matrices form of multi-head attention, from the notes. Fill in the shapes for the sizes you choose; the core runs a layer of exactly these sizes and checks them.' }), this.dimsFormula);
    const size = (label, value, min, max) => el('input', { type: 'number', min, max, step: 1, value, attrs: { 'aria-label': label } });
    this.dn = size('n', 6, 1, 32);
    this.dd = size('d', 12, 1, 128);
    this.dh = size('h', 3, 1, 16);
    const sizes = el('div', { className: 'controls' },
      ...[['n (tokens)', this.dn], ['d', this.dd], ['h (heads)', this.dh]].map(([l, i]) => el('label', { className: 'field' }, el('span', { text: l }), i)));
    for (const i of [this.dn, this.dd, this.dh]) i.addEventListener('change', () => { c.reset(); this._refreshDims(); });
    const items = [
      { key: 'Q', tex: 'Q^l,\\ K^l,\\ V^l \\in' },
      { key: 'A', tex: "A^l,\\ A^{l'} \\in" },
      { key: 'O', tex: 'O^l \\in' },
      { key: 'concat', tex: '[O^1; \\dots; O^h] \\in' },
      { key: 'out', tex: 'O \\in' },
    ];
    this.dimRows = items.map((it) => {
      const rows = el('input', { type: 'number', min: 1, step: 1, attrs: { 'aria-label': `${it.key} rows` } });
      const cols = el('input', { type: 'number', min: 1, step: 1, attrs: { 'aria-label': `${it.key} columns` } });
      const lhs = el('span', { className: 'lhs' });
      renderTex(lhs, `${it.tex}\\ \\mathbb{R}^{\\,?}`);
      const mark = el('span', { className: 'mark' });
      return { ...it, rows, cols, mark, node: el('div', { className: 'shape-row', dataset: { shape: it.key } }, lhs, rows, el('span', { text: '×' }), cols, mark) };
    });
    c.inputs.append(sizes, ...this.dimRows.map((r) => r.node));
    c.check.addEventListener('click', () => {
      const s = this.dims;
      if (!s) return;
      let all = true;
      for (const r of this.dimRows) {
        const want = s.shapes[r.key];
        const got = [Number(r.rows.value), Number(r.cols.value)];
        const ok = got[0] === want[0] && got[1] === want[1];
        all = all && ok;
        r.mark.className = `mark ${ok ? 'ok' : 'no'}`;
        r.mark.textContent = ok ? '✓' : `✗ the core: ${want.join(' × ')}`;
        r.node.dataset.correct = String(ok);
      }
      c.result(all, all ? 'Correct: every shape matches the core\'s trace.' : 'Not all shapes match the core\'s trace (marked ✗).');
    });
    c.onReset = () => { for (const r of this.dimRows) { r.mark.textContent = ''; r.mark.className = 'mark'; delete r.node.dataset.correct; } };
    this.cards.dims = c;
  }

  _dimSizes() {
    const n = Number(this.dn.value), d = Number(this.dd.value), h = Number(this.dh.value);
    if (!Number.isInteger(n) || n < 1 || n > 32) throw new Error(`n must be a whole number from 1 to 32, got "${this.dn.value}"`);
    if (!Number.isInteger(d) || d < 1 || d > 128) throw new Error(`d must be a whole number from 1 to 128, got "${this.dd.value}"`);
    if (!Number.isInteger(h) || h < 1 || h > 16) throw new Error(`h must be a whole number from 1 to 16, got "${this.dh.value}"`);
    if (d % h) throw new Error(`d = ${d} is not divisible by h = ${h}: each head gets d/h columns`);
    return { n, d, h };
  }

  _refreshDims() {
    const ap = playgroundNow();
    if (!ap) return;
    const c = this.cards.dims;
    let sizes;
    try { sizes = this._dimSizes(); } catch (err) {
      this.dims = null;
      c.check.disabled = true;
      c.explain.hidden = true;
      c.feedback.className = 'feedback no';
      c.feedback.textContent = err.message;
      return;
    }
    c.check.disabled = false;
    if (!c.answered) { c.feedback.className = 'feedback'; c.feedback.textContent = ''; }
    const shapes = dimensionShapes(ap, sizes);
    this.dims = { sizes, shapes };
    const { n, d, h } = sizes;
    renderTex(this.dimsFormula, `\\begin{gathered}Q^l = I W_Q^l,\\ K^l = I W_K^l,\\ V^l = I W_V^l,\\quad A^l = Q^l K^{lT},\\quad A^{l'} = \\mathrm{softmax}(A^l),\\quad O^l = A^{l'} V^l,\\quad O = [O^1; \\dots; O^h]\\, Y\\\\ I \\in \\mathbb{R}^{n \\times d} = \\mathbb{R}^{${n} \\times ${d}},\\quad W_Q^l, W_K^l, W_V^l \\in \\mathbb{R}^{d \\times \\frac{d}{h}} = \\mathbb{R}^{${shapes.W[0]} \\times ${shapes.W[1]}},\\quad Y \\in \\mathbb{R}^{d \\times d} = \\mathbb{R}^{${shapes.Y[0]} \\times ${shapes.Y[1]}},\\quad h = ${h}\\end{gathered}`, { display: true });
    c.explain.replaceChildren(
      el('p', { text: `The core's trace of one attention layer with n = ${n}, d = ${d}, h = ${h} (each head has d/h = ${shapes.O[1]} columns):` }),
      numsTable({
        header: ['matrix', 'notes (symbols)', 'the core'],
        rows: [
          ['Q^l, K^l, V^l', 'n × d/h', `${shapes.Q.join(' × ')} (q is ${n} × ${d} for all heads; head l is its block of ${shapes.O[1]} columns)`],
          ['A^l, A^l\'', 'n × n', `${shapes.A.join(' × ')} (weights: ${shapes.heads} heads of ${shapes.A.join(' × ')})`],
          ['O^l', 'n × d/h', shapes.O.join(' × ')],
          ['[O^1; …; O^h]', 'n × d', shapes.concat.join(' × ')],
          ['O', 'n × d', shapes.out.join(' × ')],
        ],
        className: 'nums dims-table',
      }),
      el('p', { className: 'note', text: 'The head axis works like a batch axis: h heads of n × d/h cost about one head of n × d.' }));
  }

  // ---- predict, then reveal ----
  _buildPredict() {
    this.predictIntro = el('div', {},
      el('h4', { text: 'Predict, then reveal' }),
      el('p', { className: 'note mode', text: 'Commit a guess about a view\'s numbers; the view appears only after you commit, with the core\'s answer.' }));
    this.predictCards = [];
    const mk = (id, { title, source }) => {
      const c = new Card(id, { title, source, prompt: null });
      c.check.textContent = 'Commit my guess';
      c.reveal = el('div', { className: 'reveal', hidden: true });
      c.extra.append(c.reveal);
      this.predictCards.push(c);
      return c;
    };
    // 1. "the cat sat" (notes 000): which word does "sat" attend to most?
    const p1 = mk('predict-cat-sat', { title: 'Which word does "sat" attend to most?', source: '000' });
    p1.prompt.append(el('p', { text: 'In the notes\' "the cat sat" example, the row of "sat" in the attention weights:' }));
    p1.choice = choices(`p1-${this.uid}`, ['the', 'cat', 'sat'].map((t, i) => ({ key: String(i), text: t })), 'Tokens');
    p1.inputs.append(p1.choice.node);
    p1.check.addEventListener('click', () => this._commitChoice(p1));
    p1.onReset = () => { p1.choice.enable(true); p1.choice.clear(); p1.check.disabled = false; p1.reveal.hidden = true; };
    // 2. "clouds drift across blue sky" (notes 004): with the look-ahead mask, how many words can "across" see?
    const p2 = mk('predict-causal', { title: 'With the look-ahead mask, how many words can "across" attend to?', source: '004' });
    p2.prompt.append(el('p', { text: '"clouds drift across blue sky", generated left to right: the row of "across" after the mask.' }));
    p2.number = el('input', { type: 'number', min: 0, max: 5, step: 1, attrs: { 'aria-label': 'Number of words' } });
    p2.inputs.append(el('label', { className: 'field inline' }, el('span', { text: 'words:' }), p2.number));
    p2.check.addEventListener('click', () => this._commitCount(p2));
    p2.onReset = () => { p2.number.disabled = false; p2.number.value = ''; p2.check.disabled = false; p2.reveal.hidden = true; };
    // 3. The page's own sentence and model: which token, and how much?
    const p3 = mk('predict-live', { title: 'Your sentence: where does this token look, and how much?', source: '' });
    p3.q = el('p');
    p3.prompt.append(p3.q);
    p3.choiceBox = el('div');
    p3.weight = el('input', { type: 'number', min: 0, max: 1, step: 0.05, attrs: { 'aria-label': 'Largest weight' } });
    p3.inputs.append(p3.choiceBox, el('label', { className: 'field inline' }, el('span', { text: 'its weight (0 to 1, within ±0.05 counts):' }), p3.weight));
    p3.check.addEventListener('click', () => this._commitLive(p3));
    p3.onReset = () => { p3.choice?.enable(true); p3.choice?.clear(); p3.weight.disabled = false; p3.weight.value = ''; p3.check.disabled = false; p3.reveal.hidden = true; };
    this.pc = { p1, p2, p3 };
  }

  /** The revealed view: created once per card, with the attributes that make it show the same numbers. */
  _reveal(card, tag, attrs) {
    card.reveal.hidden = false;
    const key = JSON.stringify([tag, attrs]);
    if (card.revealKey === key) return;
    card.revealKey = key;
    const w = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, String(v));
    // Its preset buttons would change the whole page's state: keep its requests to itself.
    w.addEventListener('ap-state-change', (e) => e.stopPropagation());
    card.reveal.replaceChildren(w);
  }

  _commitChoice(card) {
    const v = card.choice.value();
    if (v === null) { card.feedback.className = 'feedback no'; card.feedback.textContent = 'Commit a guess first.'; return; }
    const r = this.data?.p1;
    if (!r) return;
    card.choice.enable(false);
    card.check.disabled = true;
    const ok = Number(v) === r.argmax;
    card.result(ok, ok ? `Right: "${r.tokens[r.argmax]}" (weight ${fmt(r.row[r.argmax], 2)}).` : `Not quite: you said "${r.tokens[v]}"; the core's row for "sat" is ${r.row.map((x, j) => `${r.tokens[j]} ${fmt(x, 2)}`).join(', ')}.`);
    card.explain.replaceChildren(el('p', { text: `The core's weights for "sat": ${r.row.map((x, j) => `${r.tokens[j]} ${fmt(x, 2)}`).join(', ')} (the notes: .2 .3 .5). "sat" attends most to itself; the view below shows the whole table.` }));
    this._reveal(card, 'ap-softmax', { preset: 'softmax.the-cat-sat', hide: 'text' });
  }

  _commitCount(card) {
    const v = Number(card.number.value);
    if (card.number.value === '' || !Number.isInteger(v)) { card.feedback.className = 'feedback no'; card.feedback.textContent = 'Type a whole number first.'; return; }
    const r = this.data?.p2;
    if (!r) return;
    card.number.disabled = true;
    card.check.disabled = true;
    const ok = v === r.visible.length;
    card.result(ok, ok ? `Right: ${r.visible.length} (${r.visible.join(', ')}).` : `Not quite: you said ${v}; the core leaves ${r.visible.length} scores finite: ${r.visible.join(', ')}.`);
    card.explain.replaceChildren(el('p', { text: `The core's masked row for "across": ${r.masked.map((x, j) => `${r.tokens[j]} ${fmt(x, 2)}`).join(', ')}; after the softmax: ${r.weights.map((x, j) => `${r.tokens[j]} ${fmt(x, 2)}`).join(', ')}. −∞ becomes a weight of exactly 0 (notes 004: "across" attends to clouds, drift, across only).` }));
    this._reveal(card, 'ap-causal-mask', { preset: 'causal-mask.clouds', hide: 'text' });
  }

  _commitLive(card) {
    const r = this.data?.p3;
    if (!r || r.empty) return;
    const v = card.choice?.value();
    const w = Number(card.weight.value);
    if (v === null || v === undefined || card.weight.value === '' || !(w >= 0 && w <= 1)) {
      card.feedback.className = 'feedback no';
      card.feedback.textContent = 'Pick a token and type a weight from 0 to 1 first.';
      return;
    }
    card.choice.enable(false);
    card.weight.disabled = true;
    card.check.disabled = true;
    const tokOk = r.best.includes(Number(v));
    const wOk = Math.abs(w - r.max) <= 0.05;
    card.result(tokOk && wOk, `${tokOk ? '✓' : '✗'} token: the core says "${r.labels[r.best[0]]}" (position ${r.best[0]}); ${wOk ? '✓' : '✗'} weight: ${fmt(r.max, 3)} (you said ${fmt(w, 2)}).`);
    card.explain.replaceChildren(el('p', { text: `Row "${r.labels[r.row]}" (position ${r.row}), layer 0, head 0: ${r.weights.map((x, j) => `${r.labels[j]} ${fmt(x, 2)}`).join(', ')}. The view below shows that row written out.` }));
    const attrs = { layer: 0, head: 0, hide: 'text', row: r.row };
    for (const k of STATE_KEYS) if (this.hasAttribute(k) && k !== 'layer' && k !== 'head' && k !== 'step') attrs[k] = this.getAttribute(k);
    this._reveal(card, 'ap-softmax', attrs);
  }

  // ---- compute and render ----

  compute(state) {
    const ap = playgroundNow();
    const spec = runSpec({ ...state, layer: 0, head: 0 });
    const run = ap ? runFor(spec) : null;
    if (!ap || (run && typeof run.then === 'function')) {
      return Promise.all([getPlayground(), run || runFor(spec)]).then(([a, r]) => this._answers(a, r));
    }
    return this._answers(ap, run);
  }

  _answers(ap, run) {
    if (!this._fixed) this._fixed = { tm: thinkingMachines(ap), rnn: transformersVsRnns(ap), ...predictFixed(ap) };
    return { ...this._fixed, p3: this._live(run) };
  }

  /** The live question: the third token's row (layer 0, head 0) of the page's run. */
  _live(run) {
    if (run.error) throw run.error;
    if (run.empty) return { empty: true };
    const w = run.get('weights', { layer: run.kind === 'model' ? 0 : undefined, head: 0 });
    const [n, m] = run.shape('weights', { layer: run.kind === 'model' ? 0 : undefined, head: 0 });
    const labels = Array.from(run.tokens, tokenText);
    const row = Math.min(2, n - 1);
    const weights = Array.from(w.slice(row * m, (row + 1) * m));
    const max = Math.max(...weights);
    const best = weights.map((x, j) => (x >= max - 1e-6 ? j : -1)).filter((j) => j >= 0);
    return { labels, row, weights, max, best, key: `${run.key}|${row}` };
  }

  render(r) {
    this.data = r;
    const shown = this._shown();
    const nodes = [];
    if (shown.includes('thinking-machines')) { this._explainThinking(r.tm); nodes.push(this.cards.tm.node); }
    if (shown.includes('transformers-vs-rnns')) { this._explainRnn(r.rnn); nodes.push(this.cards.rnn.node); }
    if (shown.includes('dimensions')) { if (!this.dims) this._refreshDims(); nodes.push(this.cards.dims.node); }
    const single = this._single(shown);
    if (shown.some((id) => PREDICT_IDS.includes(id))) {
      if (!single) nodes.push(this.predictIntro);
      if (shown.includes('predict-cat-sat')) nodes.push(this.pc.p1.node);
      if (shown.includes('predict-causal')) nodes.push(this.pc.p2.node);
      const p3 = this.pc.p3, live = r.p3;
      if (shown.includes('predict-live') && !live.empty) {
        if (p3.liveKey !== live.key) {
          // A new sentence or model: a new question.
          p3.liveKey = live.key;
          p3.reset();
          p3.q.textContent = `In your sentence "${live.labels.join(' ')}" (the page's model, layer 0, head 0), which token will "${live.labels[live.row]}" (position ${live.row}) attend to most, and with what weight?`;
          p3.choice = choices(`p3-${this.uid}`, live.labels.map((l, j) => ({ key: String(j), text: `${j}: ${l}` })), 'Tokens');
          p3.choiceBox.replaceChildren(p3.choice.node);
          p3.revealKey = null;
          p3.reveal.replaceChildren();
        }
        nodes.push(p3.node);
      }
    }
    this.place(this.sections, nodes);
    this.dataset.answers = JSON.stringify({ tm: r.tm.answer, rnn: r.rnn.answer, p1: r.p1.argmax, p2: r.p2.visible.length });
  }
}

define(ApQuiz);
