// <ap-scores> (scores): S = Q K^T, entry (i, j) = q_i . k_j. The heatmap of one head's scores;
// a cell opens its dot product term by term, with the actual numbers.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, claimBox, headFor, layerFor, presetButtons } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { reslicedHeads } from '../lib/heads-shown.js';

export class ApScores extends ApWidget {
  static concept = 'scores';

  build() {
    this.panel = new StepPanel();
    this.presets = presetButtons(this, 'softmax');
    this.claim = el('div');
    this.headNote = el('p', { className: 'note head-note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "Every query is compared with every key by a dot product. Row i holds how well token i's query matches each key; the numbers can be any size or sign. Click a cell for its dot product term by term.",
      }),
      this.presets.node,
      this.claim,
      this.headNote,
      this.panel.node,
    );
  }

  render(run, state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const head = headFor(run, state);
    const { view } = stepView(run, 'scores', { layer: layerFor(run, state), head });
    // Q and K here are one head's slice: the qkv view above shows them d columns wide.
    const { nHeads: h, dModel: d } = run.config;
    // Heads the switch cut from a model trained with another number: said as such (the model's
    // own count from its file, the switched one from the core's config of this run).
    const resliced = reslicedHeads(run);
    const has = resliced
      ? `This model was trained with ${resliced.trained} head${resliced.trained > 1 ? 's' : ''}; the heads switch cuts it into h = ${h} re-sliced heads.`
      : `This model has h = ${h} heads.`;
    this.headNote.hidden = h === 1;
    this.headNote.textContent =
      h === 1
        ? ''
        : `${has} Each compares queries and keys in its own d_k = d / h = ${d} / ${h} = ${d / h} columns, so the Q and K below are head ${head}'s slices, ${d / h} of the ${d} columns the queries-and-keys view shows. Chapter C puts the heads side by side.`;
    this.panel.show(view, { explainCell: { row: Math.min(1, view.output.rows - 1), col: 0 } });
  }
}

define(ApScores);
