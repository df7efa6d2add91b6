// <ap-block> (block): Add & Norm(attention) then Add & Norm(FFN), stacked N times. The block of
// the chosen layer as a flow of its stages in the order the core ran them (post-norm as in the
// notes, pre-norm with the switch), each with a thumbnail of its numbers; a stage opens that
// step in the stepper. The stack: one button per layer.
import { ApWidget, define } from '../lib/widget.js';
import { el, emit, shapeText } from '../lib/dom.js';
import { layerFor, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { buildSteps } from '../lib/steps.js';
import { renderTex } from '../lib/katex.js';

const ORDER_POST = 'H = \\mathrm{LN}(X + \\operatorname{MHA}(X)), \\qquad X\' = \\mathrm{LN}(H + \\operatorname{FFN}(H))';
const ORDER_PRE = 'H = X + \\operatorname{MHA}(\\mathrm{LN}(X)), \\qquad X\' = H + \\operatorname{FFN}(\\mathrm{LN}(H))';

export class ApBlock extends ApWidget {
  static concept = 'block';

  build() {
    this.layers = el('div', { className: 'controls', attrs: { role: 'group', 'aria-label': 'Layers of the stack' } });
    this.normBtn = el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Norm placement' } },
      el('button', { type: 'button', text: 'post-norm', dataset: { norm: 'post' }, on: { click: () => this.requestState({ norm: 'post' }) } }),
      el('button', { type: 'button', text: 'pre-norm', dataset: { norm: 'pre' }, on: { click: () => this.requestState({ norm: 'pre' }) } }));
    this.formula = el('div', { className: 'formula' });
    this.flow = el('div', { className: 'flow', attrs: { role: 'list' } });
    this.body.append(
      el('p', { className: 'lead', text: 'A transformer block is two sublayers, each wrapped in a residual connection and a layer norm: attention lets tokens exchange information, the FFN processes each token. The original transformer normalises after adding (post-norm); most modern models normalise the sublayer\'s input (pre-norm). Stack N blocks.' }),
      el('div', { className: 'controls' }, this.normBtn), this.layers, this.formula, this.flow);
  }

  compute(state) {
    return runFor(runSpec(state.preset ? { ...state, preset: '', text: textFor(state) } : state));
  }

  render(run, state) {
    if (run.empty) return;
    const layer = layerFor(run, state);
    const pre = run.config.norm === 'pre';
    for (const b of this.normBtn.children) b.setAttribute('aria-pressed', String(b.dataset.norm === run.config.norm));
    renderTex(this.formula, pre ? ORDER_PRE : ORDER_POST, { display: true });
    this.layers.replaceChildren(el('span', { className: 'note', text: `Stack of ${run.config.nLayers} blocks:` }),
      ...Array.from({ length: run.config.nLayers }, (_, l) => el('button', {
        type: 'button', className: 'small', text: `layer ${l}`, attrs: { 'aria-pressed': String(l === layer) },
        on: { click: () => this.requestState({ layer: l }) },
      })));
    const steps = buildSteps(run).filter((s) => s.layer === layer && s.stack === run.mainStack && !s.perHead && s.name !== 'heads' && !/^(q|k|v|q_rot|k_rot)$/.test(s.name));
    // One button per stage, kept across renders (only its thumbnail and shape change).
    if (!this.buttons) this.buttons = new Map();
    const nodes = [];
    steps.forEach((s, k) => {
      let view;
      try { view = s.build(0); } catch { return; }
      const out = view.output;
      let b = this.buttons.get(s.id);
      if (!b) {
        b = el('button', {
          type: 'button', attrs: { role: 'listitem', 'data-step': s.id }, title: `Open "${s.short}" in the stepper`,
          on: { click: () => emit(this, 'ap-goto-step', { step: s.id }) },
        }, el('b', { text: s.short }), el('small'));
        b.arrow = el('span', { className: 'arrow', text: '→', attrs: { 'aria-hidden': 'true' } });
        this.buttons.set(s.id, b);
      }
      b.children[1].textContent = out ? shapeText([out.rows, out.cols]) : '';
      if (out) this.place(b, b.children[0], b.children[1], this.hm(s.id, out, { compact: '', 'max-cell': '6' }));
      if (k) nodes.push(b.arrow);
      nodes.push(b);
    });
    this.place(this.flow, nodes);
  }
}

define(ApBlock);
