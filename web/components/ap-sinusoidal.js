// <ap-sinusoidal> (sinusoidal): PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...).
// The table as the core computes it (the 'pos' stage of a model with sinusoidal positions),
// any cell explained, and how it is added to the embeddings. The notes' d_model = 4 example:
// PE(0, *) = 0, 1, 0, 1; PE(1, 0) = sin 1 = 0.84; PE(1, 1) = cos 1 = 0.54.
import { ApWidget, define } from '../lib/widget.js';
import { el, fillSelect, fmt, num } from '../lib/dom.js';
import { StepPanel, claimBox, numsTable, presetButtons, withEntry } from '../lib/view.js';
import { randomKey } from '../lib/models.js';
import { runFor, runIds } from '../lib/runs.js';
import { stepView } from '../lib/steps/index.js';
import { runSpec } from '../lib/state.js';
import { renderTex } from '../lib/katex.js';

const DS = [4, 8, 16, 32, 64, 128];

export class ApSinusoidal extends ApWidget {
  static concept = 'sinusoidal';

  build() {
    this.d = 32;
    this.n = 32;
    this.presets = presetButtons(this, 'sinusoidal');
    this.claim = el('div');
    this.dSel = el('select', {
      on: {
        change: () => {
          this.d = Number(this.dSel.value);
          this.update();
        },
      },
    });
    fillSelect(
      this.dSel,
      DS.map((d) => ({ value: d, label: String(d) })),
      this.d,
    );
    this.nIn = el('input', {
      type: 'range',
      min: 2,
      max: 64,
      value: this.n,
      attrs: { 'aria-label': 'positions' },
      on: {
        input: () => {
          this.n = Number(this.nIn.value);
          this.update();
        },
      },
    });
    this.nOut = el('span', { className: 'mono' });
    this.sizes = el(
      'div',
      { className: 'controls' },
      el('label', { className: 'field inline' }, el('span', { text: 'd_model' }), this.dSel),
      el('label', { className: 'field inline' }, el('span', { text: 'positions' }), this.nIn),
      this.nOut,
    );
    this.formula = el('div', { className: 'formula' });
    renderTex(
      this.formula,
      'PE_{(pos,\\,2i)} = \\sin\\!\\left(\\frac{pos}{10000^{2i/d}}\\right), \\qquad PE_{(pos,\\,2i+1)} = \\cos\\!\\left(\\frac{pos}{10000^{2i/d}}\\right)',
      { display: true },
    );
    this.readout = el('div');
    this.panel = new StepPanel();
    this.added = new StepPanel();
    this.addedBox = el(
      'div',
      { className: 'added-box', hidden: true }, // shown once the page's model is known to add sinusoids
      el('h4', { text: 'Added to the embeddings of your text' }),
      this.added.node,
    );
    // When the page's model has other positions, one line says so instead of showing its table here.
    this.otherPos = el('p', { className: 'note other-pos', hidden: true });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Each position gets a fixed vector of sines and cosines whose wavelengths grow geometrically along the dimensions: early columns change fast with position, late ones slowly. Every position gets a unique pattern, and any position can be computed, even beyond the training length.',
      }),
      this.presets.node,
      this.claim,
      this.sizes,
      this.formula,
      this.readout,
      this.panel.node,
      this.addedBox,
      this.otherPos,
    );
  }

  compute(state) {
    if (state.preset === 'sinusoidal.d4') {
      const r = runFor(runSpec(state));
      return typeof r.then === 'function' ? r.then((p) => ({ preset: p })) : { preset: r };
    }
    const key = randomKey({
      arch: 'decoder',
      tokenizer: 'char',
      seed: 1,
      dModel: this.d,
      nHeads: 1,
      nLayers: 1,
      pos: 'sinusoidal',
    });
    return withEntry(key, (entry) => {
      const table = runIds(
        entry,
        new Int32Array(this.n).fill(4),
        {},
        Array.from({ length: this.n }, (_, i) => `pos ${i}`),
      );
      // The page's model on the page's text (it may still be loading: then the view waits for it).
      const page = state.preset ? null : runFor(runSpec(state));
      if (page && typeof page.then === 'function')
        return page.then(
          (p) => ({ table, page: p }),
          () => ({ table, page: null }),
        );
      return { table, page };
    });
  }

  render(r) {
    this.presets.refresh();
    const run = r.preset || r.table;
    if (run.error) throw run.error;
    this.claim.replaceChildren(...[claimBox(r.preset?.preset)].filter(Boolean));
    this.sizes.hidden = !!r.preset;
    this.nOut.textContent = `${this.n}`;
    const { view } = stepView(run, 'pos');
    const P = view.output;
    if (!r.preset) {
      P.rowLabels = Array.from({ length: P.rows }, (_, i) => String(i));
      P.title = `PE: ${P.rows} positions × d_model = ${P.cols}`;
      view.inputs = [];
    }
    // The cells the notes quote: PE(0, 0..3), PE(1, 0), PE(1, 1).
    const cell = (p, c) => ({
      text: fmt(P.values[p * P.cols + c], 2),
      data: { pos: String(p), dim: String(c), value: num(P.values[p * P.cols + c]) },
    });
    this.readout.replaceChildren(
      numsTable({
        caption: `The first two positions at d_model = ${P.cols} (computed by the core)`,
        header: ['position', 'dim 0 (sin)', 'dim 1 (cos)', 'dim 2 (sin)', 'dim 3 (cos)'],
        rows: [0, 1]
          .filter((p) => p < P.rows)
          .map((p) => [`PE(${p}, ·)`, ...[0, 1, 2, 3].filter((c) => c < P.cols).map((c) => cell(p, c))]),
        className: 'nums pe-readout',
      }),
    );
    this.panel.show(view, { explainCell: { row: Math.min(1, P.rows - 1), col: 0 } });
    // X = X_tok + P for the page's text, only where the page's model adds these sines and cosines:
    // a model with learned positions would show its learned table here as if it were this one.
    const page = r.page && !r.page.error && !r.page.empty ? r.page : null;
    const kind = page?.config.pos;
    const hasPos = kind === 'sinusoidal' && page.stages().some((s) => s.name === 'pos');
    this.addedBox.hidden = !hasPos;
    if (hasPos) this.added.show(stepView(page, 'x').view, { slot: 'x' });
    this.otherPos.hidden = !page || hasPos;
    this.otherPos.textContent =
      page && !hasPos
        ? `The page's model (${page.entry?.label ?? 'this model'}) does not add these to your text: ${
            kind === 'learned'
              ? 'its positions are a table it learned in training (the learned positions view shows it)'
              : kind === 'rope'
                ? 'it rotates queries and keys instead (RoPE)'
                : kind === 'relative'
                  ? 'it adds a learned bias per distance to the scores instead (relative positions)'
                  : 'it has no positions switched on'
          }. Random weights with sinusoidal positions, in the controls above, show the sum.`
        : '';
  }
}

define(ApSinusoidal);
