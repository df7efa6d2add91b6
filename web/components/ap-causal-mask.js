// <ap-causal-mask> (causal-mask): future scores set to -inf before the softmax, so their weights
// are exactly 0. The mask (as the notes' look-ahead matrix), the masked scores (hatched cells),
// the weights with their row sums, and an encoder / decoder toggle. The notes' example:
// "clouds drift across blue sky": "across" attends to clouds, drift and across only.
// The notes' listing (004 §7) adds mask * -1e9 instead of writing -inf: the core computes the
// head both ways (ap.attention's additiveMask) and the view prints the largest weight difference.
import { ApWidget, define } from '../lib/widget.js';
import { playgroundNow } from '../lib/module.js';
import { el, fmt, num } from '../lib/dom.js';
import { claimBox, headFor, layerFor, numsTable, presetButtons } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { maskLike, matrix } from '../lib/heatmap.js';

export class ApCausalMask extends ApWidget {
  static concept = 'causal-mask';

  build() {
    this.presets = presetButtons(this, 'causal-mask');
    this.claim = el('div');
    this.seg = el(
      'span',
      {
        className: 'seg',
        dataset: { control: 'direction' },
        attrs: { role: 'group', 'aria-label': 'Attention direction' },
      },
      el('button', {
        type: 'button',
        text: 'encoder (bidirectional)',
        dataset: { causal: 'off' },
        on: { click: () => this.requestState({ causal: 'off' }) },
      }),
      el('button', {
        type: 'button',
        text: 'decoder (causal)',
        dataset: { causal: 'on' },
        on: { click: () => this.requestState({ causal: 'on' }) },
      }),
    );
    this.note = el('p', { className: 'note' });
    this.maps = el('div', { className: 'col3' });
    this.rowText = el('p', { className: 'changed' });
    this.sums = el('div');
    this.notes = el('div', { className: 'notes-mask' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'A decoder generates left to right, so token i must not see tokens after it. The mask sets those scores to −∞ before the softmax; exp(−∞) = 0, so their weights are exactly zero and each row still sums to 1 over the visible keys.',
      }),
      // The encoder / decoder switch and its three maps first, the notes' example and what the
      // maps say after them: the maps are on chapter F's first screen (issue 23).
      el('div', { className: 'controls' }, this.seg),
      this.note,
      this.maps,
      this.claim,
      this.presets.node,
      this.rowText,
      this.sums,
      el('h4', { text: "The notes' code: scaled_attention += (mask * -1e9)" }),
      el('p', {
        className: 'lead',
        text: "The listing in the notes (section 7) does not write −∞: it adds mask × −1e9 to the scaled scores. exp(−1e9 − max) is 0 in float32 too, so the weights come out the same. The core runs this head's attention both ways, always with the look-ahead mask:",
      }),
      this.notes,
    );
  }

  // This layer's self-attention inputs, for ap.attention: the rows it reads and its weights.
  attentionInputs(run, layer) {
    const ap = playgroundNow();
    const c = run.config;
    if (run.kind === 'preset') {
      const p = ap.presets.get(run.preset.id);
      return {
        x: run.get('x'),
        wq: p.wq,
        wk: p.wk,
        wv: p.wv,
        wo: p.wo,
        n: p.n,
        dModel: c.dModel,
        nHeads: c.nHeads,
        scale: c.scale,
      };
    }
    if (run.kind !== 'model' || c.pos === 'rope' || c.pos === 'relative') return null;
    const stack = run.mainStack;
    // What the layer's attention reads: pre-norm (GPT-2), its own norm1 of the stream; post-norm,
    // the layer's input (the embeddings, or what the layer before handed on: the trace marks it).
    const x =
      c.norm === 'pre'
        ? run.get('norm1', { layer, stack })
        : layer === 0
          ? run.get('x', { stack })
          : run.get(run.blockOutput(layer - 1, stack), { layer: layer - 1, stack });
    const w = (k) => run.tensor(`${stack}.${layer}.self_attn.${k}`)?.data;
    return {
      x,
      wq: w('wq'),
      wk: w('wk'),
      wv: w('wv'),
      wo: w('wo'),
      bq: w('bq'),
      bk: w('bk'),
      bv: w('bv'),
      bo: w('bo'),
      n: x.length / c.dModel,
      dModel: c.dModel,
      nHeads: c.nHeads,
      scale: c.scale,
    };
  }

  renderNotesMask(run, layer, head, labels) {
    const ap = playgroundNow();
    const inputs = ap && this.attentionInputs(run, layer);
    if (!inputs) {
      this.notes.replaceChildren(
        el('p', {
          className: 'note',
          text: 'This comparison needs attention without RoPE or relative positions; pick a trained model or a notes preset.',
        }),
      );
      return;
    }
    const inf = ap.attention({ ...inputs, causal: true });
    const add = ap.attention({ ...inputs, causal: true, additiveMask: -1e9 });
    let wInf, wAdd, mInf, mAdd, sc;
    try {
      wInf = inf.get('weights', { head });
      wAdd = add.get('weights', { head });
      mInf = inf.get('masked', { head });
      mAdd = add.get('masked', { head });
      sc = add.get('scaled', { head });
    } finally {
      inf.dispose();
      add.dispose();
    }
    const n = inputs.n;
    let maxDiff = 0;
    for (let k = 0; k < wInf.length; k++) maxDiff = Math.max(maxDiff, Math.abs(wInf[k] - wAdd[k]));
    const i = Math.min(n - 1, Math.max(1, Math.floor((n - 1) / 2))); // a row with visible and hidden keys
    const rows = [];
    for (let j = 0; j < n; j++) {
      const k = i * n + j;
      rows.push([
        labels[j] ?? String(j),
        fmt(sc[k], 3),
        { text: fmt(mInf[k], 3), data: { value: num(mInf[k]) } },
        { text: fmt(mAdd[k], 4), data: { value: num(mAdd[k]) } },
        { text: fmt(wInf[k], 4), data: { value: num(wInf[k]) } },
        { text: fmt(wAdd[k], 4), data: { value: num(wAdd[k]) } },
      ]);
    }
    const table = numsTable({
      // A preset is one attention layer: named as the preset (as rnn-chain does), not "layer null".
      caption: `Row "${labels[i] ?? i}" (${run.kind === 'model' ? `layer ${layer}` : 'the preset'}, head ${head}): the same scaled scores, masked two ways`,
      header: ['key', 'scaled', 'masked: set −∞', 'masked: + mask × −1e9', 'weight (−∞)', 'weight (−1e9)'],
      rows,
      className: 'nums notes-mask-row',
    });
    table.querySelector('table').dataset.row = String(i);
    const maps = el(
      'div',
      { className: 'col3' },
      ...[
        ['w-inf', 'weights_inf', 'weights, mask = −∞', wInf],
        ['w-add', 'weights_1e9', 'weights, + mask × −1e9', wAdd],
      ].map(([id, name, title, values]) =>
        this.hm(
          id,
          matrix({
            name,
            title,
            values,
            rows: n,
            cols: n,
            rowLabels: labels,
            colLabels: labels,
            kind: 'seq',
            domain: [0, 1],
            corner: 'q \\ k',
          }),
        ),
      ),
    );
    const verdict = el('p', {
      className: 'changed notes-mask-diff',
      dataset: { maxDiff: String(maxDiff), cells: String(wInf.length) },
      text: `Largest |weight(−∞) − weight(−1e9)| over all ${n}×${n} weights of this head: ${maxDiff === 0 ? '0 (identical in float32)' : maxDiff.toExponential(2)}. Where −1e9 differs: a row whose keys are all masked (padding) gets uniform weights 1/m instead of zeros.`,
    });
    this.notes.replaceChildren(verdict, table, maps);
  }

  render(run, state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const causal = run.config.causal && run.config.arch !== 'encoder';
    for (const b of this.seg.children) b.setAttribute('aria-pressed', String((b.dataset.causal === 'on') === causal));
    this.seg.querySelectorAll('button').forEach((b) => {
      b.disabled = run.config.arch === 'encoder';
    });
    this.note.textContent =
      run.config.arch === 'encoder' ? 'This model is encoder-only: it always attends both ways.' : '';
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const M = stepView(run, 'masked', { layer, head }).view.output;
    const A = stepView(run, 'weights', { layer, head }).view.output;
    // The look-ahead mask as in the notes' listing: 1 where the score was replaced by -inf.
    const mask = new Float32Array(M.values.length);
    for (let k = 0; k < mask.length; k++) mask[k] = M.values[k] === -Infinity ? 1 : 0;
    this.place(
      this.maps,
      this.hm('mask', maskLike(M, 'mask', 'mask (1 = future key, blocked)', mask)),
      this.hm('masked', M),
      this.hm('weights', A),
    );
    this.dataset.causal = String(causal);
    // One row in words: the one the preset's claim is about ("across"), else the middle token.
    const i = run.preset?.row >= 0 ? run.preset.row : Math.floor((A.rows - 1) / 2);
    const seen = A.colLabels.map((l, j) => ({
      l,
      w: A.values[i * A.cols + j],
      masked: M.values[i * M.cols + j] === -Infinity,
    }));
    this.rowText.replaceChildren(
      el('span', { text: `"${A.rowLabels[i]}" attends to: ` }),
      ...seen.flatMap((x, j) => [
        j ? ', ' : '',
        el('span', {
          className: x.masked ? 'masked-w' : 'seen-w',
          dataset: { col: String(j), value: num(x.w), masked: String(x.masked) },
          text: `${x.l} ${x.masked ? '0 (masked)' : fmt(x.w, 2)}`,
        }),
      ]),
    );
    this.rowText.dataset.row = String(i);
    this.renderNotesMask(run, layer, head, A.colLabels);
    this.sums.replaceChildren(
      numsTable({
        caption: 'Row sums of the weights (each 1: the softmax only spreads over visible keys)',
        header: ['query', 'visible keys', 'sum of weights'],
        rows: A.rowLabels.map((l, r) => {
          let s = 0,
            vis = 0;
          for (let j = 0; j < A.cols; j++) {
            s += A.values[r * A.cols + j];
            if (M.values[r * M.cols + j] !== -Infinity) vis++;
          }
          return [l, String(vis), { text: fmt(s, 3), data: { value: String(s) } }];
        }),
        className: 'nums row-sums',
      }),
    );
  }
}

define(ApCausalMask);
