// <ap-general-form> (general-form): e = g(q, k); alpha = softmax(e); a = sum_i alpha_i v_i.
// The same queries, keys and values (one head of the current model) scored three ways by the
// core: a dot product, a scaled dot product, and the additive score v^T tanh(W q + W' k)
// (seeded weights); "hard" takes the argmax instead of the softmax (a database lookup).
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { headFor, layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps.js';
import { matrix } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/playground.js';
import { renderTex } from '../lib/katex.js';

const G = {
  dot: 'e_{ij} = q_i \\cdot k_j',
  scaled: 'e_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt{d_k}}',
  additive: 'e_{ij} = v^\\top \\tanh(W_q q_i + W_k k_j)',
};

export class ApGeneralForm extends ApWidget {
  static concept = 'general-form';

  build() {
    this.score = 'scaled';
    this.hard = false;
    this.buttons = Object.keys(G).map((g) => el('button', { type: 'button', text: g === 'dot' ? 'dot product' : g === 'scaled' ? 'scaled dot product' : 'additive (Bahdanau)', dataset: { score: g }, on: { click: () => { this.score = g; this.update(); } } }));
    this.hardBox = el('input', { type: 'checkbox', on: { change: () => { this.hard = this.hardBox.checked; this.update(); } } });
    this.formula = el('div', { className: 'formula' });
    this.out = el('div', { className: 'col3' });
    this.body.append(
      el('p', { className: 'lead', text: 'Attention in general: score each key against the query with some function g, turn the scores into weights with a softmax, and average the values. Only g changes between dot-product and additive attention; a hard lookup keeps just the best key.' }),
      el('div', { className: 'controls' }, el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Score function g' } }, ...this.buttons),
        el('label', { className: 'switch' }, this.hardBox, el('span', { text: 'hard lookup (argmax)' }))),
      this.formula, this.out);
  }

  render(run, state) {
    const ap = playgroundNow();
    for (const b of this.buttons) b.setAttribute('aria-pressed', String(b.dataset.score === this.score));
    renderTex(this.formula, `${G[this.score]}, \\quad \\alpha_i = ${this.hard ? '\\mathbb{1}[j = \\arg\\max_k e_{ik}]' : '\\operatorname{softmax}_j(e_{ij})'}, \\quad a_i = \\sum_j \\alpha_{ij} v_j`, { display: true });
    const layer = layerFor(run, state), head = headFor(run, state);
    const { view } = stepView(run, 'scores', { layer, head });
    const [Q, K] = view.inputs;
    const V = stepView(run, 'head_out', { layer, head }).view.inputs[1];
    const t = ap.lookup({ q: Q.values, k: K.values, v: V.values, n: Q.rows, m: K.rows, d: Q.cols, dV: V.cols, score: this.score, hard: this.hard });
    try {
      const e = matrix({ name: 'e', title: `scores e = g(q, k): ${this.score}`, values: t.get('scores'), rows: Q.rows, cols: K.rows, rowLabels: Q.rowLabels, colLabels: K.rowLabels, kind: 'div', corner: 'q \\ k' });
      const a = matrix({ name: 'alpha', title: this.hard ? 'weights (one-hot argmax)' : 'weights α = softmax(e)', values: t.get('weights'), rows: Q.rows, cols: K.rows, rowLabels: Q.rowLabels, colLabels: K.rowLabels, kind: 'prob', corner: 'q \\ k' });
      const o = matrix({ name: 'out', title: 'output a = Σ α v', values: t.get('out'), rows: Q.rows, cols: V.cols, rowLabels: Q.rowLabels, kind: 'div' });
      this.place(this.out, this.hm('e', e), this.hm('a', a), this.hm('o', o));
    } finally {
      t.dispose();
    }
  }
}

define(ApGeneralForm);
