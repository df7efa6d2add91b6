// <ap-causal-mask> (causal-mask): future scores set to -inf before the softmax, so their weights
// are exactly 0. The mask (as the notes' look-ahead matrix), the masked scores (hatched cells),
// the weights with their row sums, and an encoder / decoder toggle. The notes' example:
// "clouds drift across blue sky": "across" attends to clouds, drift and across only.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, num } from '../lib/dom.js';
import { claimBox, headFor, layerFor, numsTable, presetButtons } from '../lib/view.js';
import { stepView } from '../lib/steps.js';
import { matrix } from '../lib/heatmap.js';

export class ApCausalMask extends ApWidget {
  static concept = 'causal-mask';

  build() {
    this.presets = presetButtons(this, 'causal-mask');
    this.claim = el('div');
    this.seg = el('span', { className: 'seg', dataset: { control: 'direction' }, attrs: { role: 'group', 'aria-label': 'Attention direction' } },
      el('button', { type: 'button', text: 'encoder (bidirectional)', dataset: { causal: 'off' }, on: { click: () => this.requestState({ causal: 'off' }) } }),
      el('button', { type: 'button', text: 'decoder (causal)', dataset: { causal: 'on' }, on: { click: () => this.requestState({ causal: 'on' }) } }));
    this.note = el('p', { className: 'note' });
    this.maps = el('div', { className: 'col3' });
    this.rowText = el('p', { className: 'changed' });
    this.sums = el('div');
    this.body.append(
      el('p', { className: 'lead', text: 'A decoder generates left to right, so token i must not see tokens after it. The mask sets those scores to −∞ before the softmax; exp(−∞) = 0, so their weights are exactly zero and each row still sums to 1 over the visible keys.' }),
      this.presets.node, this.claim, el('div', { className: 'controls' }, this.seg), this.note, this.maps, this.rowText, this.sums);
  }

  render(run, state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const causal = run.config.causal && run.config.arch !== 'encoder';
    for (const b of this.seg.children) b.setAttribute('aria-pressed', String((b.dataset.causal === 'on') === causal));
    this.seg.querySelectorAll('button').forEach((b) => { b.disabled = run.config.arch === 'encoder'; });
    this.note.textContent = run.config.arch === 'encoder' ? 'This model is encoder-only: it always attends both ways.' : '';
    const layer = layerFor(run, state), head = headFor(run, state);
    const M = stepView(run, 'masked', { layer, head }).view.output;
    const A = stepView(run, 'weights', { layer, head }).view.output;
    // The look-ahead mask as in the notes' listing: 1 where the score was replaced by -inf.
    const mask = new Float32Array(M.values.length);
    for (let k = 0; k < mask.length; k++) mask[k] = M.values[k] === -Infinity ? 1 : 0;
    this.place(this.maps,
      this.hm('mask', matrix({ name: 'mask', title: 'mask (1 = future key, blocked)', values: mask, rows: M.rows, cols: M.cols, rowLabels: M.rowLabels, colLabels: M.colLabels, kind: 'ids', corner: 'q \\ k' })),
      this.hm('masked', M), this.hm('weights', A));
    this.dataset.causal = String(causal);
    // One row in words: the preset's "across", else the middle token.
    const i = run.preset?.id === 'causal-mask.clouds' ? 2 : Math.floor((A.rows - 1) / 2);
    const seen = A.colLabels.map((l, j) => ({ l, w: A.values[i * A.cols + j], masked: M.values[i * M.cols + j] === -Infinity }));
    this.rowText.replaceChildren(el('span', { text: `"${A.rowLabels[i]}" attends to: ` }),
      ...seen.flatMap((x, j) => [j ? ', ' : '', el('span', { className: x.masked ? 'masked-w' : 'seen-w', dataset: { col: String(j), value: num(x.w), masked: String(x.masked) }, text: `${x.l} ${x.masked ? '0 (masked)' : fmt(x.w, 2)}` })]));
    this.rowText.dataset.row = String(i);
    this.sums.replaceChildren(numsTable({
      caption: 'Row sums of the weights (each 1: the softmax only spreads over visible keys)',
      header: ['query', 'visible keys', 'sum of weights'],
      rows: A.rowLabels.map((l, r) => {
        let s = 0, vis = 0;
        for (let j = 0; j < A.cols; j++) { s += A.values[r * A.cols + j]; if (M.values[r * M.cols + j] !== -Infinity) vis++; }
        return [l, String(vis), { text: fmt(s, 3), data: { value: String(s) } }];
      }),
      className: 'nums row-sums',
    }));
  }
}

define(ApCausalMask);
