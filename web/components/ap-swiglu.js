// <ap-swiglu> (swiglu): the gated FFN of today's decoders. (act(x W_gate) ⊙ (x W_1 + b_1)) W_2 + b_2,
// act = SiLU (SwiGLU) or GELU (GeGLU): the core's ffnKind, with its stages ffn_gate, ffn_gate_act,
// ffn_up, ffn_prod. No shipped model has a gate (W_gate), and the core will not invent one, so this
// view runs a small random-weights decoder built with one; the two kinds it can switch between come
// from the core (model.switchChoices.ffnKind). Beside it, the parameters of the two-matrix FFN.
// Attributes: ffn-kind ('swiglu' | 'geglu', what the model offers).
import { ApWidget, define } from '../lib/widget.js';
import { el, fillSelect, fmt } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { numsTable, textFor } from '../lib/view.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { randomConfig } from '../lib/models.js';

// The view's own model: one decoder layer with a gate, seeded random weights, the page's word list.
const RECIPE = { dModel: 16, nHeads: 2, nLayers: 1 };
const SEED = 7;
const LABELS = { swiglu: 'SwiGLU (SiLU gate)', geglu: 'GeGLU (GELU gate)' };

export class ApSwiglu extends ApWidget {
  static ownInput =
    'This view runs its own small model with random weights and a gate (no trained model here has one), on the words of your text it knows.';
  static concept = 'swiglu';
  static extraAttributes = ['ffn-kind'];

  build() {
    this.kindSel = el('select', {
      attrs: { 'aria-label': 'gated FFN' },
      on: { change: () => this.setAttribute('ffn-kind', this.kindSel.value) },
    });
    this.line = el('p', { className: 'changed swiglu-line' });
    this.maps = el('div', { className: 'col2 swiglu-maps' });
    this.params = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'The FFN of the notes has two matrices: act(x W_1 + b_1) W_2 + b_2. Llama, Mistral and Qwen use a gated one (Shazeer 2020): a third matrix W_gate makes a gate SiLU(x W_gate) that multiplies the up-projection x W_1 + b_1 unit by unit, so the network learns, per token, how much of each hidden unit passes, then W_2 brings the product back down to d.',
      }),
      el(
        'div',
        { className: 'controls', dataset: { control: 'ffn-kind' } },
        el('label', { className: 'field inline' }, el('span', { text: 'Gate' }), this.kindSel),
      ),
      (this.warn = el('p', { className: 'warn swiglu-warn' })),
      this.line,
      this.maps,
      this.params,
    );
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.getAttribute('ffn-kind') || ''}`;
  }

  compute(state) {
    const go = (ap) => {
      this.model ??= ap.createModel(
        { ...randomConfig({ ...RECIPE, tokenizer: 'word' }), ffnKind: 'swiglu' },
        { seed: SEED },
      );
      const kinds = this.model.switchChoices.ffnKind;
      const want = this.getAttribute('ffn-kind');
      const kind = kinds.includes(want) ? want : kinds[0];
      const text = textFor(state);
      const enc = this.model.tokenizer.encode(text);
      const cut = enc.ids.slice(0, Math.min(12, this.model.config.maxLen - 1));
      const t = this.model.forward(cut.length ? cut : [0], { ffnKind: kind });
      try {
        const get = (name) => ({ values: t.get(name, { layer: 0 }), shape: t.shape(name, { layer: 0 }) });
        return {
          ap,
          kind,
          kinds,
          pieces: enc.pieces.slice(0, cut.length),
          gate: get('ffn_gate'),
          gateAct: get('ffn_gate_act'),
          up: get('ffn_up'),
          prod: get('ffn_prod'),
        };
      } finally {
        t.dispose();
      }
    };
    const ap = playgroundNow();
    return ap ? go(ap) : getPlayground().then(go);
  }

  render(r) {
    fillSelect(
      this.kindSel,
      r.kinds.map((k) => ({ value: k, label: LABELS[k] || k })),
      r.kind,
    );
    this.dataset.ffnKind = r.kind;
    const c = this.model.config;
    this.warn.textContent = `Random weights: no model this page ships has a gate W_gate, and the core will not invent one for a model trained without it, so this is a small decoder (d = ${c.dModel}, d_ff = ${c.dFf}, ${c.nLayers} layer${c.nLayers > 1 ? 's' : ''}) built with one and never trained. Its numbers show how the parts combine, not what a trained gate learns.`;
    const [n, dFf] = r.up.shape;
    const labels = r.pieces;
    const m = (name, title, v, kind = 'div') =>
      this.hm(name, matrix({ name, title, values: v.values, rows: n, cols: dFf, rowLabels: labels, kind }), {
        'max-cell': '14',
      });
    const act = r.kind === 'geglu' ? 'GELU' : 'SiLU';
    this.place(
      this.maps,
      m('gate', `gate ${act}(x W_gate) (${n} × ${dFf})`, r.gateAct),
      m('up', `up-projection x W_1 + b_1 (${n} × ${dFf})`, r.up),
      m('prod', 'their product, unit by unit: what W_2 reads', r.prod),
    );
    // How much the gate shuts: units whose gate is below 0.1 in size pass less than a tenth of x W_1.
    let shut = 0,
      worst = 0;
    const g = r.gateAct.values;
    for (let k = 0; k < g.length; k++) {
      if (Math.abs(g[k]) < 0.1) shut++;
      worst = Math.max(worst, Math.abs(g[k] * r.up.values[k] - r.prod.values[k]));
    }
    this.dataset.shut = String(shut);
    this.dataset.maxDiff = String(worst);
    this.line.textContent = `The gate: each product is gate × up for its unit (largest difference from the core's ffn_prod: ${worst.toExponential(1)}). Here ${shut} of ${g.length} gate values are below 0.1 in size: those units pass less than a tenth of their up-projection for that token. In a trained model W_gate is learned, so which units pass is learned too.`;
    // The parameter price of the gate, from the core's count at this model's sizes.
    const count = (ffnKind) =>
      r.ap.parameterCount({
        arch: c.arch,
        dModel: c.dModel,
        nHeads: c.nHeads,
        nLayers: c.nLayers,
        dFf: c.dFf,
        vocabSize: c.vocabSize,
        pos: c.pos,
        ffnKind,
      }).ffn;
    const mlp = count('mlp'),
      gated = count(r.kind);
    this.dataset.ffnMlp = String(mlp);
    this.dataset.ffnGated = String(gated);
    this.params.replaceChildren(
      numsTable({
        caption: `FFN parameters of one layer (+ biases), d = ${c.dModel}, d_ff = ${c.dFf}: the core's count`,
        header: ['FFN', 'parameters'],
        rows: [
          ['the notes: W_1, W_2', mlp.toLocaleString('en')],
          [
            `${r.kind === 'geglu' ? 'GeGLU' : 'SwiGLU'}: W_gate, W_1, W_2`,
            { text: gated.toLocaleString('en'), className: 'gated' },
          ],
        ],
      }),
      el('p', {
        className: 'note',
        text: `The gate costs ${fmt(gated / mlp, 2)} times the parameters at the same d_ff; Shazeer (2020) and Llama take d_ff ≈ 8d/3 instead of 4d to keep the count level.`,
      }),
    );
  }
}

define(ApSwiglu);
