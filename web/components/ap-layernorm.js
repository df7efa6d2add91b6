// <ap-layernorm> (layernorm): (x - mu) / sqrt(var + eps) * gamma + beta, per token. The mean and
// standard deviation of every row (the core's norm*_stats stage), gamma and beta, the result,
// and any cell worked out.
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, fillSelect, fmt } from '../lib/dom.js';
import { StepPanel, layerFor, numsTable, rowSelect, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { stepView } from '../lib/steps/index.js';

export class ApLayernorm extends ApWidget {
  static concept = 'layernorm';

  build() {
    this.which = 'norm1';
    this.row = 0;
    this.sel = el('select', {
      on: {
        change: () => {
          this.which = this.sel.value;
          this.update();
        },
      },
    });
    this.rowSel = rowSelect(this);
    // LayerNorm or RMSNorm: the core's model.switchChoices.normKind, a page-wide switch (normkind).
    this.kindSel = el('select', {
      on: { change: () => this.requestState({ normkind: this.kindSel.value }) },
    });
    this.kindLine = el('p', { className: 'note kind-line' });
    this.stats = el('div');
    this.panel = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: "Layer normalisation rescales each token's vector on its own: subtract the row's mean μ, divide by its standard deviation σ, then apply a learned gain γ and bias β per dimension. It keeps activations at a steady scale from layer to layer.",
      }),
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field inline' }, el('span', { text: 'Which norm' }), this.sel),
        el('label', { className: 'field inline' }, el('span', { text: 'Row' }), this.rowSel),
        el(
          'label',
          { className: 'field inline', dataset: { control: 'normkind' } },
          el('span', { text: 'Norm' }),
          this.kindSel,
        ),
      ),
      this.kindLine,
      this.stats,
      this.panel.node,
    );
  }

  compute(state) {
    // A preset is one attention layer with no norm: show the page's text through the default model.
    return runFor(runSpec(state.preset ? { ...state, preset: '', text: textFor(state) } : state));
  }

  render(run, state) {
    const layer = layerFor(run, state);
    const names = run
      .stages()
      .filter((s) => s.layer === layer && /^(norm1|norm2|cross_norm)$/.test(s.name) && s.stack === run.mainStack)
      .map((s) => s.name);
    if (run.stages().some((s) => s.name === 'final_norm')) names.push('final_norm');
    if (!names.includes(this.which)) this.which = names[0];
    // Post-norm (the notes) normalises a sublayer's sum after it; pre-norm (GPT-2, the English
    // model) normalises the sublayer's input before it.
    const where = run.config.norm === 'pre' ? 'before' : 'after';
    fillSelect(
      this.sel,
      names.map((n) => ({
        value: n,
        label:
          n === 'norm1'
            ? `${where} attention (norm1)`
            : n === 'norm2'
              ? `${where} the FFN (norm2)`
              : n === 'cross_norm'
                ? `${where} cross-attention`
                : 'final norm',
      })),
      this.which,
    );
    const own = run.model.config.normKind;
    const kind = run.config.normKind;
    fillSelect(
      this.kindSel,
      run.model.switchChoices.normKind.map((k) => ({ value: k, label: k === 'rmsnorm' ? 'RMSNorm' : 'LayerNorm' })),
      kind,
    );
    this.kindSel.disabled = run.model.switchChoices.normKind.length < 2;
    this.dataset.normKind = kind;
    const { view } = stepView(run, this.which, { layer: this.which === 'final_norm' ? null : layer });
    if (kind === 'rmsnorm') return this.renderRms(run, view, own);
    this.kindLine.textContent =
      'RMSNorm (the Norm switch; Llama, Mistral and Gemma use it) skips the mean and the bias β: it divides by one statistic per row instead of subtracting one and dividing by another, so it is cheaper.';
    const [X, S, gamma, beta] = view.inputs;
    const i = clamp(this.row, 0, X.rows - 1);
    fillSelect(
      this.rowSel,
      X.rowLabels.map((l, r) => ({ value: r, label: `${r}: ${l}` })),
      i,
    );
    const mu = S.values[i * 2],
      sigma = S.values[i * 2 + 1];
    const out = Array.from(view.output.values.slice(i * view.output.cols, (i + 1) * view.output.cols));
    const m = out.reduce((a, b) => a + b, 0) / out.length;
    this.stats.replaceChildren(
      numsTable({
        caption: `Row "${X.rowLabels[i]}" (μ and σ from the core)`,
        header: ['quantity', 'value'],
        rows: [
          ['μ (mean of the input row)', { text: fmt(mu, 4), className: 'mu', data: { value: String(mu) } }],
          ['σ = √(var + ε)', { text: fmt(sigma, 4), className: 'sigma', data: { value: String(sigma) } }],
          [
            'γ (first dims)',
            Array.from(gamma.values.slice(0, 4), (v) => fmt(v, 3)).join(', ') + (gamma.cols > 4 ? ', …' : ''),
          ],
          [
            'β (first dims)',
            Array.from(beta.values.slice(0, 4), (v) => fmt(v, 3)).join(', ') + (beta.cols > 4 ? ', …' : ''),
          ],
          ['mean of the output row', fmt(m, 4)],
        ],
      }),
    );
    this.panel.show(view, { explainCell: { row: i, col: 0 } });
  }

  // RMSNorm: x / √(mean(x²) + ε) · γ. The row's RMS from the core; its mean is shown before and
  // after, since RMSNorm does not move it to 0 (computed here from the numbers shown).
  renderRms(run, view, own) {
    const [X, R, gamma] = view.inputs;
    const i = clamp(this.row, 0, X.rows - 1);
    fillSelect(
      this.rowSel,
      X.rowLabels.map((l, r) => ({ value: r, label: `${r}: ${l}` })),
      i,
    );
    const d = X.cols;
    const x = Array.from(X.values.slice(i * d, (i + 1) * d));
    const out = Array.from(view.output.values.slice(i * d, (i + 1) * d));
    const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
    const rms = R.values[i];
    const untrained = own !== 'rmsnorm';
    this.kindLine.textContent =
      `RMSNorm divides each row by one statistic, its root mean square (here ${fmt(rms, 4)}), instead of two: no mean is subtracted and there is no β, so it is cheaper (Llama, Mistral and Gemma use it). ` +
      (untrained
        ? 'This model was trained with LayerNorm: RMSNorm keeps its learned γ and drops its β, a norm it never learned, so the numbers below are not what it learned.'
        : '');
    this.dataset.rms = String(rms);
    this.stats.replaceChildren(
      numsTable({
        caption: `Row "${X.rowLabels[i]}" (the RMS from the core)`,
        header: ['quantity', 'value'],
        rows: [
          ['RMS = √(mean(x²) + ε)', { text: fmt(rms, 4), className: 'rms', data: { value: String(rms) } }],
          ['mean of the input row (not subtracted)', fmt(mean(x), 4)],
          [
            'γ (first dims)',
            Array.from(gamma.values.slice(0, 4), (v) => fmt(v, 3)).join(', ') + (gamma.cols > 4 ? ', …' : ''),
          ],
          ['mean of the output row', fmt(mean(out), 4)],
        ],
      }),
    );
    this.panel.show(view, { explainCell: { row: i, col: 0 } });
  }
}

define(ApLayernorm);
