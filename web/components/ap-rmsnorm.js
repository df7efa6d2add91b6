// <ap-rmsnorm> (rmsnorm): RMSNorm beside LayerNorm on the same row. The page's model runs twice,
// with the core's normKind 'layernorm' and 'rmsnorm' (a per-call switch, every norm of the model);
// layer 0's first norm reads the same row in both runs, so the two outputs differ only by the norm.
// The statistics are the core's (norm1_stats: μ, σ; norm1_rms: the root mean square).
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, fillSelect, fmt } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { numsTable, rowSelect, textFor } from '../lib/view.js';
import { runsFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { stepView } from '../lib/steps/index.js';

const DIMS = 8; // the first dimensions shown side by side

export class ApRmsnorm extends ApWidget {
  static concept = 'rmsnorm';

  build() {
    this.row = 0;
    this.rowSel = rowSelect(this);
    this.line = el('p', { className: 'changed rms-line' });
    this.warn = el('p', { className: 'warn rms-warn' });
    this.stats = el('div');
    this.table = el('div');
    // The view's picture: the row before any norm, after LayerNorm and after RMSNorm, every
    // dimension one cell, on one colour scale (on chapter I's first screen, issue 23).
    this.picture = el('div', { className: 'rms-picture' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'RMSNorm (Zhang and Sennrich 2019; Llama, Mistral, Gemma) is LayerNorm without the centring: it divides each row by its root mean square √(mean(x²) + ε) and multiplies by a learned gain γ. No mean is subtracted and there is no bias β.',
      }),
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field inline' }, el('span', { text: 'Row' }), this.rowSel),
      ),
      this.picture,
      this.line,
      this.warn,
      this.stats,
      this.table,
    );
  }

  compute(state) {
    // A preset is one attention layer with no norm: the page's text through the default model.
    const base = state.preset ? { ...state, preset: '', text: textFor(state) } : state;
    return runsFor([runSpec({ ...base, normkind: 'layernorm' }), runSpec({ ...base, normkind: 'rmsnorm' })]);
  }

  render([ln, rms]) {
    if (ln.error) throw ln.error;
    if (rms.error) throw rms.error;
    // Layer 0's first norm: its input (x, or x + attention in post-norm) has not met a norm yet.
    const a = stepView(ln, 'norm1', { layer: 0 }).view;
    const b = stepView(rms, 'norm1', { layer: 0 }).view;
    const [X, S] = a.inputs;
    const [, R, gamma] = b.inputs;
    const i = clamp(this.row, 0, X.rows - 1);
    fillSelect(
      this.rowSel,
      X.rowLabels.map((l, r) => ({ value: r, label: `${r}: ${l}` })),
      i,
    );
    const d = X.cols;
    const x = X.values.subarray(i * d, (i + 1) * d);
    const yl = a.output.values.subarray(i * d, (i + 1) * d);
    const yr = b.output.values.subarray(i * d, (i + 1) * d);
    const mu = S.values[i * 2],
      sigma = S.values[i * 2 + 1],
      r = R.values[i];
    const mean = (v) => v.reduce((s, t) => s + t, 0) / v.length;
    Object.assign(this.dataset, { row: String(i), rms: String(r), mu: String(mu), sigma: String(sigma) });
    let diff = 0;
    for (let c = 0; c < d; c++) diff = Math.max(diff, Math.abs(yl[c] - yr[c]));
    this.dataset.maxDiff = String(diff);
    this.line.textContent = `Row "${X.rowLabels[i]}": LayerNorm computes two statistics, μ = ${fmt(mu, 3)} and σ = ${fmt(sigma, 3)}, and subtracts μ; RMSNorm computes one, RMS = ${fmt(r, 3)}, and only divides: less work per row and no re-centring. On this row the two outputs differ by up to ${fmt(diff, 3)} (from μ, and from β, which RMSNorm does not add).`;
    const own = rms.model.config.normKind;
    this.warn.hidden = own === 'rmsnorm';
    this.warn.textContent =
      own === 'rmsnorm'
        ? ''
        : `This model was trained with LayerNorm: the RMSNorm run keeps its learned γ and drops its β, a norm it never learned, so from this norm on its numbers are not what it learned.`;
    const three = new Float32Array(3 * d);
    three.set(x, 0);
    three.set(yl, d);
    three.set(yr, 2 * d);
    this.place(
      this.picture,
      this.hm(
        'rows',
        matrix({
          name: 'norms',
          title: `Row "${X.rowLabels[i]}", its ${d} dimensions`,
          values: three,
          rows: 3,
          cols: d,
          rowLabels: ['x', 'LayerNorm(x)', 'RMSNorm(x)'],
          colAxis: 'dimension',
        }),
        { 'no-numbers': '' },
      ),
    );
    this.stats.replaceChildren(
      numsTable({
        caption: 'What each norm divides by (from the core)',
        header: ['norm', 'subtracts', 'divides by', 'then', 'mean of the output row'],
        rows: [
          ['LayerNorm', fmt(mu, 4), `σ = ${fmt(sigma, 4)}`, '× γ + β', fmt(mean(yl), 4)],
          ['RMSNorm', '—', { text: `RMS = ${fmt(r, 4)}`, className: 'rms' }, '× γ', fmt(mean(yr), 4)],
        ],
      }),
    );
    const n = Math.min(DIMS, d);
    const cell = (v, c, cls) => ({ text: fmt(v[c], 3), className: cls, data: { value: String(v[c]) } });
    // One row per dimension: four narrow columns read on a phone too.
    this.table.replaceChildren(
      numsTable({
        caption: `The row's first ${n} of ${d} dimensions, in and out of layer 0's first norm`,
        header: ['', 'x (same input)', 'γ (gain)', 'LayerNorm', 'RMSNorm'],
        rows: Array.from({ length: n }, (_, c) => [
          `dim ${c}`,
          cell(x, c, 'x'),
          cell(gamma.values, c, 'gamma'),
          cell(yl, c, 'ln'),
          cell(yr, c, 'rmsn'),
        ]),
      }),
    );
  }
}

define(ApRmsnorm);
