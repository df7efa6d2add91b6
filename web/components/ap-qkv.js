// <ap-qkv> (qkv): Q = X W_Q, K = X W_K, V = X W_V. Each projection as a matrix product; click
// any cell of the result to see it as the dot product of a row of X with a column of W.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps.js';

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
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Three learned matrices turn every row of X into a query ("what am I looking for?"), a key ("what do I offer?") and a value ("what I pass on"). Same X, three different products.',
      }),
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
    const { view } = stepView(run, this.which, { layer: layerFor(run, state) });
    this.panel.show(view, { explainCell: { row: Math.min(1, view.output.rows - 1), col: 0 } });
  }
}

define(ApQkv);
