// <ap-weighted-sum> (weighted-sum): z_i = sum_j alpha_ij v_j. One output row as a weighted mix
// of the value rows, with the weights and the result from the core. The notes' example:
// z_cat = 0.1 v_the + 0.6 v_cat + 0.3 v_sat.
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, fillSelect, fmt, num } from '../lib/dom.js';
import { StepPanel, claimBox, headFor, layerFor, presetButtons, rowSelect } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { rowOf } from '../lib/heatmap.js';

export class ApWeightedSum extends ApWidget {
  static concept = 'weighted-sum';

  build() {
    this.presets = presetButtons(this, 'weighted-sum');
    this.claim = el('div');
    this.rowSel = rowSelect(this);
    this.sentence = el('p', { className: 'panel mono sum-line' });
    this.panel = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: "The new vector of token i is a weighted average of all the value vectors, with token i's attention weights as coefficients. Nothing is learned here: the weights come from the input.",
      }),
      this.presets.node,
      this.claim,
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field inline' }, el('span', { text: 'Output row' }), this.rowSel),
      ),
      this.sentence,
      this.panel.node,
    );
  }

  render(run, state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const { view } = stepView(run, 'head_out', { layer, head });
    const [A, V] = view.inputs;
    // A new example or text opens on the row the preset's claim is about, else the last row (the
    // <bos> row is trivially v_<bos>); the same text keeps the row the reader picked.
    const key = `${run.preset?.id || ''}\n${A.rowLabels.join('\n')}`;
    if (key !== this._lastPreset || this.row === undefined || this.row >= A.rows) {
      this.row = run.preset ? Math.max(run.preset.row, 0) : A.rows - 1;
      this._lastPreset = key;
    }
    const i = clamp(this.row, 0, A.rows - 1);
    fillSelect(
      this.rowSel,
      A.rowLabels.map((l, r) => ({ value: r, label: `${r}: ${l}` })),
      i,
    );
    // z_i = 0.10 v_the + 0.60 v_cat + ...: token labels as text, numbers from the core.
    const parts = [`z_${A.rowLabels[i]} = `];
    const nodes = [el('span', { text: parts[0] })];
    for (let j = 0; j < A.cols; j++) {
      const w = A.values[i * A.cols + j];
      if (j) nodes.push(el('span', { text: ' + ' }));
      nodes.push(
        el('b', { className: 'coef', text: fmt(w, 2), dataset: { col: String(j), value: num(w) } }),
        el('span', { text: ` v_${A.colLabels[j]}` }),
      );
    }
    this.sentence.replaceChildren(...nodes);
    this.sentence.dataset.row = String(i);
    // Only row i of A and of Z: what this sum uses and gives.
    const view1 = {
      ...view,
      inputs: [rowOf(A, i, { title: `weights of "${A.rowLabels[i]}"` }), V],
      output: rowOf(view.output, i, { title: `z_${A.rowLabels[i]} (head ${head})` }),
      explain: (r, c) => view.explain(i, c),
    };
    this.panel.show(view1, { explainCell: { row: 0, col: 0 } });
  }
}

define(ApWeightedSum);
