// <ap-heads> (heads): h heads, each with its own slice W_Q^i, W_K^i, W_V^i of size d_k = d / h,
// so each computes its own attention pattern. All of a layer's patterns side by side; the
// buttons change the number of heads of the whole model (same weights, cut differently).
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { headChoices } from '../lib/models.js';
import { layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps.js';
import { renderTex } from '../lib/katex.js';

export class ApHeads extends ApWidget {
  static concept = 'heads';

  build() {
    this.buttons = el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Number of heads' } });
    this.formula = el('div', { className: 'formula' });
    this.grid = el('div', { className: 'thumbs' });
    this.note = el('p', { className: 'note' });
    this.body.append(
      el('p', { className: 'lead', text: 'One attention pattern can only express one kind of relation at a time. Multi-head attention runs h attentions in parallel, each on its own d_k = d/h columns of Q, K and V, and so learns h different patterns (typical models use h = 8 or 16).' }),
      el('div', { className: 'controls', dataset: { control: 'heads' } }, el('span', { className: 'note', text: 'Heads:' }), this.buttons),
      this.formula, this.grid, this.note);
  }

  render(run, state) {
    const h = run.config.nHeads, d = run.config.dModel;
    const choices = run.kind === 'model' ? headChoices(d) : [1, 2, 4, 8, 16].filter((k) => d % k === 0);
    this.buttons.replaceChildren(...choices.map((k) => el('button', {
      type: 'button', className: 'small', text: String(k), attrs: { 'aria-pressed': String(k === h) },
      on: { click: () => this.requestState({ heads: k, head: 0 }) },
    })));
    renderTex(this.formula, `\\text{head}_i = \\operatorname{Attention}(X W_Q^{(i)}, X W_K^{(i)}, X W_V^{(i)}),\\quad i = 0..${h - 1},\\quad d_k = ${d}/${h} = ${d / h}`, { display: true });
    const layer = layerFor(run, state);
    const { view } = stepView(run, 'heads', { layer });
    this.place(this.grid, view.inputs.map((m, i) => this.hm(`head${i}`, m, { 'max-cell': '30' })));
    this.note.textContent = `Layer ${layer ?? 0}: ${h} head${h > 1 ? 's' : ''} of d_k = ${d / h}. Each map is one head's weights (rows: queries, columns: keys).`;
  }
}

define(ApHeads);
