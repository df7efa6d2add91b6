// <ap-concat-wo> (concat-wo): the heads' outputs side by side (concat, n x d), then one
// product with W_O mixes them into the multi-head attention output.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { showHeads } from '../lib/heads-shown.js';

export class ApConcatWo extends ApWidget {
  static concept = 'concat-wo';

  build() {
    this.concat = new StepPanel();
    this.wo = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Each head returns n × d_k numbers. Concatenating the h heads gives n × d again (nothing is computed, only arranged); W_O then mixes information across heads. Click a cell of an output to see its sum.',
      }),
      el('h4', { text: '1. Concatenate' }),
      this.concat.node,
      el('h4', { text: '2. Multiply by W_O' }),
      this.wo.node,
    );
  }

  render(run, state) {
    const layer = layerFor(run, state);
    showHeads(run); // each head's output, side by side
    this.concat.show(stepView(run, 'concat', { layer }).view, { slot: 'c' });
    this.wo.show(stepView(run, 'attn_out', { layer }).view, { slot: 'o', explainCell: { row: 0, col: 0 } });
  }
}

define(ApConcatWo);
