// <ap-general-form> (general-form): e = g(q, k); alpha = softmax(e); a = sum_i alpha_i v_i.
// The same queries, keys and values (one head of the current model) scored three ways by the
// core: a dot product, a scaled dot product, and the additive score v^T tanh(W q + W' k)
// (seeded weights); "hard" takes the argmax instead of the softmax (a database lookup).
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { headFor, layerFor } from '../lib/view.js';
import { matrix } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/module.js';
import { renderTex } from '../lib/katex.js';
import { headQKV, lookupStages, SCORE_FNS, scoreNote, scoreOf, scoreSwitch } from '../lib/lookup-view.js';

export class ApGeneralForm extends ApWidget {
  static concept = 'general-form';
  static extraAttributes = ['score'];

  build() {
    this.score = scoreOf(this.getAttribute('score'));
    this.hard = false;
    this.switch = scoreSwitch((g) => {
      this.score = g;
      this.update();
    });
    this.switch.node.dataset.control = 'score';
    this.hardBox = el('input', {
      type: 'checkbox',
      on: {
        change: () => {
          this.hard = this.hardBox.checked;
          this.update();
        },
      },
    });
    this.formula = el('div', { className: 'formula' });
    this.scoreNote = el('p', { className: 'note score-note' });
    this.out = el('div', { className: 'col3' });
    this.maskNote = el('p', {
      className: 'note mask-note',
      hidden: true,
      text: "This model is a decoder: its causal mask is on, so each query scores only the keys up to itself (−∞ after it, weight 0), as in the softmax view's weights of the same head.",
    });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Attention in general: score each key against the query with some function g, turn the scores into weights with a softmax, and average the values. Only g changes between dot-product and additive attention; a hard lookup keeps just the best key.',
      }),
      el(
        'div',
        { className: 'controls' },
        this.switch.node,
        el(
          'label',
          { className: 'switch', dataset: { control: 'hard' } },
          this.hardBox,
          el('span', { text: 'hard lookup (argmax)' }),
        ),
      ),
      this.formula,
      this.scoreNote,
      this.maskNote,
      this.out,
    );
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'score') this.score = scoreOf(newValue);
    super.attributeChangedCallback(name, oldValue, newValue);
  }

  render(run, state) {
    const ap = playgroundNow();
    this.switch.set(this.score);
    renderTex(
      this.formula,
      `${SCORE_FNS[this.score].tex}, \\quad \\alpha_i = ${this.hard ? '\\mathbb{1}[j = \\arg\\max_k e_{ik}]' : '\\operatorname{softmax}_j(e_{ij})'}, \\quad a_i = \\sum_j \\alpha_{ij} v_j`,
      { display: true },
    );
    this.scoreNote.textContent = scoreNote(this.score);
    this.scoreNote.hidden = !this.scoreNote.textContent;
    const { Q, K, V } = headQKV(run, { layer: layerFor(run, state), head: headFor(run, state) });
    // A decoder's head (the causal mask on) scores only the keys up to each query, as softmax's
    // weights above show for the same head: the lookup masks them too.
    const causal = !!run.config?.causal;
    const t = lookupStages(ap, { Q, K, V, score: this.score, hard: this.hard, causal });
    this.maskNote.hidden = !causal;
    const e = matrix({
      name: 'e',
      title: causal
        ? `scores e = g(q, k): ${this.score}, causal mask (−∞ after each query)`
        : `scores e = g(q, k): ${this.score}`,
      values: causal ? t.masked : t.scores,
      rows: Q.rows,
      cols: K.rows,
      rowLabels: Q.rowLabels,
      colLabels: K.rowLabels,
      kind: 'div',
      corner: 'q \\ k',
    });
    const a = matrix({
      name: 'alpha',
      title: this.hard ? 'weights (one-hot argmax)' : 'weights α = softmax(e)',
      values: t.weights,
      masked: causal ? Uint8Array.from(t.masked, (x) => (x === -Infinity ? 1 : 0)) : undefined,
      rows: Q.rows,
      cols: K.rows,
      rowLabels: Q.rowLabels,
      colLabels: K.rowLabels,
      kind: 'prob',
      corner: 'q \\ k',
    });
    const o = matrix({
      name: 'out',
      title: 'output a = Σ α v',
      values: t.out,
      rows: Q.rows,
      cols: V.cols,
      rowLabels: Q.rowLabels,
      kind: 'div',
    });
    this.place(this.out, this.hm('e', e), this.hm('a', a), this.hm('o', o));
  }
}

define(ApGeneralForm);
