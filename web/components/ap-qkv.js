// <ap-qkv> (qkv): Q = X W_Q, K = X W_K, V = X W_V. Each projection as a matrix product; click
// any cell of the result to see it as the dot product of a row of X with a column of W.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';

export class ApQkv extends ApWidget {
  static concept = 'qkv';

  build() {
    this.which = 'q';
    this.buttons = ['q', 'k', 'v'].map((w) =>
      el('button', {
        type: 'button',
        text: w.toUpperCase(),
        attrs: { 'aria-pressed': String(w === this.which) },
        on: {
          click: () => {
            this.which = w;
            this.update();
          },
        },
      }),
    );
    this.panel = new StepPanel();
    // The notes write Q = XW_Q; a pre-norm model (GPT-2, this page's English model) multiplies the
    // normalised rows instead, and adds a bias: said when the model is one.
    this.preNote = el('p', { className: 'note pre-note', hidden: true });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Three learned matrices turn every row of X into a query ("what am I looking for?"), a key ("what do I offer?") and a value ("what I pass on"). Same X, three different products.',
      }),
      this.preNote,
      el(
        'div',
        { className: 'controls' },
        el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Projection' } }, ...this.buttons),
      ),
      this.panel.node,
    );
  }

  render(run, state) {
    for (const b of this.buttons) b.setAttribute('aria-pressed', String(b.textContent.toLowerCase() === this.which));
    const layer = layerFor(run, state);
    const pre = run.config.norm === 'pre';
    this.preNote.hidden = !pre;
    if (pre) {
      const added =
        layer === 0 && ['learned', 'sinusoidal'].includes(run.config.pos)
          ? ' (the token embeddings plus positions)'
          : '';
      this.preNote.textContent = `This model is pre-norm, as GPT-2: the rows multiplied here are LN(X), the rows of X${added} after layer normalisation, and each product adds its learned bias, as the formula below shows. The notes' Q = XW_Q is the same product without the norm and the bias.`;
    }
    const { view } = stepView(run, this.which, { layer });
    this.panel.show(view, { explainCell: { row: Math.min(1, view.output.rows - 1), col: 0 } });
  }
}

define(ApQkv);
