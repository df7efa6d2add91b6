// <ap-residual> (residual): X + Sublayer(X). Before and after the attention sublayer's
// residual, and the identity when the sublayer is zeroed: a copy of the model whose W_O and b_O
// are 0 (a model variant, so the core computes it) gives residual = X exactly.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { StepPanel, layerFor, textFor, withEntry, withModelFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { stepView } from '../lib/steps/index.js';

export class ApResidual extends ApWidget {
  static concept = 'residual';

  build() {
    this.zero = false;
    this.toggle = el('input', {
      type: 'checkbox',
      on: {
        change: () => {
          this.zero = this.toggle.checked;
          this.update();
        },
      },
    });
    this.note = el('p', { className: 'note' });
    this.panel = new StepPanel();
    this.verdict = el('p', { className: 'changed' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "A residual connection adds a sublayer's output to its input: H = X + Sublayer(X). The sublayer only has to learn a correction, gradients flow straight through the addition, and a sublayer that outputs 0 leaves X unchanged.",
      }),
      el(
        'div',
        { className: 'controls' },
        el(
          'label',
          { className: 'switch' },
          this.toggle,
          el('span', { text: 'zero the attention sublayer (W_O = 0, b_O = 0)' }),
        ),
      ),
      this.note,
      this.panel.node,
      this.verdict,
    );
  }

  compute(state) {
    return withModelFor(
      state,
      () => true,
      (entry) => {
        const layer = Math.min(state.layer, entry.base.nLayers - 1);
        const stack = entry.base.arch === 'encoder' ? 'encoder' : 'decoder';
        // Both runs go through runFor, the one path from text to ids (the model's prompt: its
        // start token before the text), on this entry's model, so the zeroed copy reads exactly
        // the ids the model reads.
        const text = state.preset ? textFor(state) : state.text;
        const spec = { ...runSpec({ ...state, preset: '', text }), modelKey: entry.key };
        if (!this.zero) return runFor(spec);
        if (entry.base.arch === 'encoder-decoder')
          throw new Error('zeroing is shown for decoder-only and encoder-only models');
        const key = `${spec.modelKey}|zero:${stack}.${layer}.self_attn`;
        return withEntry(key, () => runFor({ ...spec, modelKey: key }));
      },
    );
  }

  render(run, state) {
    const layer = layerFor(run, state);
    this.note.textContent = this.zero
      ? `Layer ${layer}'s attention output projection is all zeros in this copy of the model.`
      : `Layer ${layer}, the residual around self-attention.`;
    const { view } = stepView(run, 'resid1', { layer });
    this.panel.show(view, { explainCell: { row: 0, col: 0 } });
    const [X, F] = view.inputs,
      R = view.output;
    let diff = 0,
      fmax = 0;
    for (let i = 0; i < R.values.length; i++) {
      diff = Math.max(diff, Math.abs(R.values[i] - X.values[i]));
      fmax = Math.max(fmax, Math.abs(F.values[i]));
    }
    this.verdict.textContent = this.zero
      ? `Sublayer output is 0 everywhere (max |·| = ${fmt(fmax, 3)}), so the residual equals its input: max |H − X| = ${fmt(diff, 3)}.`
      : `The sublayer moved the rows by up to ${fmt(diff, 3)}; the input X is still there, with the correction added.`;
    this.dataset.maxChange = String(diff);
  }
}

define(ApResidual);
