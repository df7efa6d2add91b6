// <ap-heads> (heads): h heads, each with its own slice W_Q^i, W_K^i, W_V^i of size d_k = d / h,
// so each computes its own attention pattern. All of a layer's patterns side by side on one
// colour scale (0 … 1, so a faint head looks faint; a switch gives each head its own scale),
// and under each map one line naming what the head does, computed from its weights
// (lib/head-patterns.js): previous token, itself, first token, next token, one word, or broad.
// The buttons change the number of heads of the whole model (same weights, cut differently).
//
// Attributes: the page's state (text, model, layer, heads, ...), colors="shared" | "per-head".
// Example: <ap-heads model="grammar" text="the cat sat on the mat"></ap-heads>
import { ApWidget, define } from '../lib/widget.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { el, fmt } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps.js';
import { renderTex } from '../lib/katex.js';
import { headPattern, patternParts } from '../lib/head-patterns.js';

const CSS = `
      .heads-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 260px), 1fr)); gap: 16px 18px; align-items: start; margin: 8px 0; }
      .head-card { min-width: 0; margin: 0; background: var(--_panel); border-radius: 8px; padding: 8px 10px; }
      .head-card h4 { margin: 0 0 4px; font-size: 0.98em; }
      .head-pattern { margin: 6px 0 0; font-size: 0.92em; }
      .head-pattern b { font-weight: 600; }
    `;

export class ApHeads extends ApWidget {
  static concept = 'heads';
  static extraAttributes = ['colors'];

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.buttons = el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Number of heads' } });
    this.layers = el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Layer' } });
    this.layerBox = el('span', { className: 'field inline' }, el('span', { text: 'Layer:' }), this.layers);
    this.shared = el('input', {
      type: 'checkbox',
      checked: true,
      attrs: { 'data-input': 'shared-scale' },
      on: { change: () => this.setAttribute('colors', this.shared.checked ? 'shared' : 'per-head') },
    });
    this.scaleNote = el('span', { className: 'note' });
    this.formula = el('div', { className: 'formula' });
    this.grid = el('div', { className: 'heads-grid' });
    this.note = el('p', { className: 'note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'One attention pattern can only express one kind of relation at a time. Multi-head attention runs h attentions in parallel, each on its own d_k = d/h columns of Q, K and V, and so learns h different patterns (typical models use h = 8 or 16). Under each map: what that head does, read from its weights.',
      }),
      el(
        'div',
        { className: 'controls', dataset: { control: 'heads' } },
        el('span', { className: 'field inline' }, el('span', { text: 'Heads:' }), this.buttons),
        this.layerBox,
      ),
      el(
        'div',
        { className: 'controls', dataset: { control: 'colors' } },
        el(
          'label',
          { className: 'switch' },
          this.shared,
          el('span', { text: 'one colour scale for all heads (0 … 1); off: each head its own' }),
        ),
        this.scaleNote,
      ),
      this.formula,
      this.grid,
      this.note,
    );
    this.cards = new Map();
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.getAttribute('colors') || 'shared'}`;
  }

  render(run, state) {
    const h = run.config.nHeads,
      d = run.config.dModel;
    const perHead = this.getAttribute('colors') === 'per-head';
    this.shared.checked = !perHead;
    this.dataset.colors = perHead ? 'per-head' : 'shared';
    this.scaleNote.textContent = perHead
      ? 'Each head has its own scale (0 … its largest weight): small differences look large, so a nearly uniform head can look structured. Compare with the shared scale.'
      : 'Dark purple is 0 and yellow is 1 in every map, so heads compare fairly.';
    const choices = run.kind === 'model' ? run.model.switchChoices.nHeads : run.preset.headChoices;
    this.buttons.replaceChildren(
      ...choices.map((k) =>
        el('button', {
          type: 'button',
          className: 'small',
          text: String(k),
          attrs: { 'aria-pressed': String(k === h), 'aria-label': `${k} head${k > 1 ? 's' : ''}` },
          on: { click: () => this.requestState({ heads: k, head: 0 }) },
        }),
      ),
    );
    const layer = layerFor(run, state);
    const nLayers = run.kind === 'model' ? run.config.nLayers : 1;
    this.layerBox.hidden = nLayers < 2;
    this.layers.replaceChildren(
      ...Array.from({ length: nLayers }, (_, l) =>
        el('button', {
          type: 'button',
          className: 'small',
          text: String(l),
          attrs: { 'aria-pressed': String(l === (layer ?? 0)), 'aria-label': `layer ${l}` },
          on: { click: () => this.requestState({ layer: l }) },
        }),
      ),
    );
    renderTex(
      this.formula,
      `\\text{head}_i = \\operatorname{Attention}(X W_Q^{(i)}, X W_K^{(i)}, X W_V^{(i)}),\\quad i = 0..${h - 1},\\quad d_k = ${d}/${h} = ${d / h}`,
      { display: true },
    );
    const { view } = stepView(run, 'heads', { layer });
    const maps = view.inputs;
    const cards = [];
    maps.forEach((m, i) => {
      const p = headPattern(m.values, m.rows, m.cols, { labels: m.colLabels, masked: m.masked });
      // Per head: 0 .. the largest weight of a row that had a choice (under the causal mask the first
      // row always puts 1 on itself, which would make every head's own scale 0 .. 1 again).
      const shown = matrix({ ...m, title: `head ${i}`, domain: perHead ? [0, p.freeMax || 1] : [0, 1] });
      let c = this.cards.get(i);
      if (!c) {
        c = { line: el('p', { className: 'head-pattern' }) };
        c.node = el('figure', { className: 'head-card', attrs: { 'aria-label': `head ${i}` } }, null, c.line);
        this.cards.set(i, c);
      }
      const hm = this.hm(`head${i}`, shown, { 'max-cell': '44' });
      const [what, figure] = patternParts(p, (x) => fmt(x, 2));
      c.line.replaceChildren(el('b', { className: 'pattern-name', text: what }), `: ${figure}`);
      // readable by tests and by a screen reader's table of contents
      Object.assign(c.node.dataset, {
        head: String(i),
        pattern: p.key,
        score: String(p.score),
        even: String(p.even),
        domain: perHead ? `0,${p.freeMax}` : '0,1',
      });
      if (p.word) c.node.dataset.word = p.word;
      else delete c.node.dataset.word;
      this.place(c.node, hm, c.line);
      cards.push(c.node);
    });
    this.place(this.grid, cards);
    const random = run.kind === 'model' && state.model === 'random';
    this.note.textContent = `Layer ${layer ?? 0}: ${h} head${h > 1 ? 's' : ''} of d_k = ${d / h}. Each map is one head's weights (rows: queries, columns: keys; each row sums to 1).${random ? ' These are random, untrained weights: their patterns mean nothing yet; pick a trained model to see heads that learned something.' : ''}`;
  }
}

define(ApHeads);
