// <ap-ffn> (ffn): FFN(x) = ReLU(x W1 + b1) W2 + b2 with d_ff = 4d, applied to every token on its
// own. The hidden layer, the ReLU mask (which units are off), the output, and where the
// parameters of a block live (counted from the model's tensors).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { StepPanel, layerFor, numsTable, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { stepView } from '../lib/steps.js';
import { matrix } from '../lib/heatmap.js';

export class ApFfn extends ApWidget {
  static concept = 'ffn';

  build() {
    this.hidden1 = new StepPanel();
    this.mask = el('div');
    this.maskNote = el('p', { className: 'changed' });
    this.out = new StepPanel();
    this.params = el('div');
    this.body.append(
      el('p', { className: 'lead', text: 'After attention mixes information between tokens, a two-layer MLP processes each token separately: up to d_ff = 4d hidden units, a ReLU, back down to d. Most of a transformer\'s parameters live here.' }),
      el('h4', { text: '1. Up to d_ff' }), this.hidden1.node,
      el('h4', { text: '2. ReLU: which hidden units are on' }), this.mask,
      el('h4', { text: '3. Back down to d' }), this.out.node,
      el('h4', { text: 'Where the parameters are' }), this.params);
  }

  compute(state) {
    return runFor(runSpec(state.preset ? { ...state, preset: '', text: textFor(state) } : state));
  }

  render(run, state) {
    if (run.empty) return;
    const layer = layerFor(run, state);
    const stack = run.mainStack;
    this.hidden1.show(stepView(run, 'ffn_hidden', { layer }).view, { slot: 'h', explainCell: { row: 0, col: 0 } });
    const act = stepView(run, 'ffn_act', { layer }).view;
    const A = act.output;
    // The ReLU mask is a reading of the core's activations: 1 where the unit passed, 0 where it was cut.
    const on = new Float32Array(A.values.length);
    let count = 0;
    for (let k = 0; k < on.length; k++) { on[k] = A.values[k] > 0 ? 1 : 0; count += on[k]; }
    this.maskNote.textContent = act.changed;
    this.place(this.mask, this.maskNote,
      this.hm('mask', matrix({ name: 'relu_mask', title: `ReLU mask (1 = unit on): ${count} of ${on.length} on`, values: on, rows: A.rows, cols: A.cols, rowLabels: A.rowLabels, kind: 'seq', domain: [0, 1] })));
    this.out.show(stepView(run, 'ffn_out', { layer }).view, { slot: 'o' });
    // Parameter counts from the tensors' shapes.
    const size = (name) => run.model.tensors().find((t) => t.name === name)?.shape.reduce((a, b) => a * b, 1) || 0;
    const p = `${stack}.${layer}.`;
    const attn = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].reduce((s, w) => s + size(`${p}self_attn.${w}`), 0);
    const cross = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].reduce((s, w) => s + size(`${p}cross_attn.${w}`), 0);
    const ffn = ['w1', 'b1', 'w2', 'b2'].reduce((s, w) => s + size(`${p}ffn.${w}`), 0);
    const norms = ['norm1', 'norm2', 'norm_cross'].reduce((s, nn) => s + size(`${p}${nn}.gamma`) + size(`${p}${nn}.beta`), 0);
    const total = attn + cross + ffn + norms;
    const pct = (x) => `${fmt((100 * x) / total, 1)}%`;
    const c = run.config;
    this.params.replaceChildren(numsTable({
      caption: `Layer ${layer}: d = ${c.dModel}, d_ff = ${c.dFf} (${c.dFf / c.dModel}·d)`,
      header: ['part', 'parameters', 'share'],
      rows: [
        ['self-attention (W_Q, W_K, W_V, W_O + biases): 4d² + 4d', String(attn), pct(attn)],
        ...(cross ? [['cross-attention', String(cross), pct(cross)]] : []),
        ['FFN (W_1, W_2 + biases): 2·d·d_ff + d_ff + d', { text: String(ffn), className: 'ffn-params' }, { text: pct(ffn), className: 'ffn-share' }],
        ['layer norms (γ, β)', String(norms), pct(norms)],
        ['block total', String(total), '100%'],
      ],
    }));
  }
}

define(ApFfn);
